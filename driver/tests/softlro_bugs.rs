//! One test per known bug of other coalescers (`docs/lro-rules.md` section 4, B1-B11), showing that
//! our SoftLRO does not have it.

mod softlro_support;

use fe_driver::RxChecksum::{Unverified, Verified};
use fe_driver::softlro::{FlushReason, MAX_IP_LEN, SoftLro};
use softlro_support::*;

fn chain(first: Seg, n: usize, len: usize) -> Vec<Seg> {
    let mut v = vec![first];
    for _ in 1..n {
        let s = v.last().unwrap().next(len);
        v.push(s);
    }
    v
}

#[test]
fn b1_older_timestamp_refused_newer_accepted_and_the_last_pair_carried() {
    let f = Flow::v4(1);
    let a = Seg::data(0, 1000);
    let mut newer = a.next(1000);
    newer.ts = Some((150, 70));
    let mut newest = newer.next(1000);
    newest.ts = Some((151, 71));
    let out = coalesce(&f, &[a.clone(), newer, newest]);
    assert_eq!((out.len(), out[0].segs), (1, 3), "newer timestamps merge");
    assert_eq!(check_valid(&out[0]).ts, Some((151, 71)), "the aggregate carries the last pair");
    let mut older = a.next(1000);
    older.ts = Some((99, 50));
    let out = coalesce(&f, &[a.clone(), older.clone()]);
    assert_eq!(out.len(), 2, "an older TSval is refused (OpenBSD rev 1.464 accepts it)");
    assert_eq!(check_valid(&out[0]).ts, Some((100, 50)), "and never overwrites the head's");
    assert_eq!(check_valid(&out[1]).ts, Some((99, 50)));
}

#[test]
fn b2_ce_marked_segment_never_merges_with_non_ce() {
    for f in [Flow::v4(1), Flow::v6(1)] {
        let mut a = Seg::data(0, 1000);
        a.tos = 0x02; // ECT(0)
        let mut ce = a.next(1000);
        ce.tos = 0x03; // CE
        let out = coalesce(&f, &[a.clone(), ce.clone()]);
        assert_eq!(out.len(), 2, "the congestion signal survives");
        assert_eq!(check_valid(&out[1]).tos, 0x03);
        // CE then not-CE too.
        let mut head_ce = a.clone();
        head_ce.tos = 0x03;
        assert_eq!(coalesce(&f, &[head_ce, a.next(1000)]).len(), 2);
        // CE with CE merges, and stays CE.
        let mut ce2 = ce.next(1000);
        ce2.tos = 0x03;
        let mut ce1 = a.clone();
        ce1.tos = 0x03;
        let mut ce1b = ce1.next(1000);
        ce1b.tos = 0x03;
        let out = coalesce(&f, &[ce1, ce1b]);
        assert_eq!((out.len(), check_valid(&out[0]).tos), (1, 0x03));
    }
}

#[test]
fn b3_no_ip_length_wrap_at_65535() {
    for f in [Flow::v4(1), Flow::v6(1)] {
        for size in [9000, 1448, 8191] {
            let mut s = Seg::data(0, size);
            s.ts = None;
            let segs = chain(s, 30, size);
            let out = coalesce(&f, &segs);
            let mut total = Vec::new();
            for o in &out {
                let k = check_valid(o);
                let l2 = 14;
                assert_eq!(l2 + k.ip_len, o.data.len(), "the IP length is the real length");
                assert!(k.ip_len - if k.v6 { 40 } else { 0 } <= MAX_IP_LEN);
                total.extend_from_slice(&k.payload);
            }
            assert_eq!(total, pattern(0, 30 * size), "no byte lost to a wrap");
        }
    }
}

#[test]
fn b4_bad_checksum_segment_is_never_merged_nor_blessed() {
    let f = Flow::v4(1);
    let segs = chain(Seg::data(0, 1000), 4, 1000);
    // Bad in the middle, bad as the head, bad as the tail; all marked Unverified.
    for at in 0..3 {
        let frames: Vec<_> = segs[..3]
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut s = s.clone();
                s.bad_tcp_csum = i == at;
                (0, frame(&f, &s), Unverified)
            })
            .collect();
        let out = coalesce_with(frames.clone());
        let bad_out: Vec<_> = out.iter().filter(|o| !check(o.mac, &o.data).unwrap().tcp_csum_ok).collect();
        assert_eq!(bad_out.len(), 1, "the bad segment goes out once");
        assert_eq!(bad_out[0].data, frames[at].1, "untouched");
        assert_eq!((bad_out[0].segs, bad_out[0].checksum), (1, Unverified), "never marked good");
        for o in out.iter().filter(|o| o.segs > 1) {
            assert_eq!(o.checksum, Unverified);
            check_valid(o);
        }
    }
    // A bad IPv4 header checksum as well.
    let mut badip = segs[1].clone();
    badip.bad_ip_csum = true;
    let out = coalesce_with(vec![(0, frame(&f, &segs[0]), Unverified), (0, frame(&f, &badip), Unverified)]);
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].data, frame(&f, &badip));
}

#[test]
fn b5_aggregate_tcp_checksum_is_right_for_an_independent_software_check() {
    // A stack that verifies in software (lwIP) must accept every aggregate.
    for f in [Flow::v4(1), Flow::v6(1), Flow::v4(2).tagged(5, 10)] {
        for (size, verdict) in [(1448, Verified), (1447, Verified), (999, Unverified), (1, Unverified)] {
            let mut segs = chain(Seg::data(0xfffff000, size), 20, size);
            segs.last_mut().unwrap().payload.truncate(size.div_ceil(2));
            let frames: Vec<_> = segs.iter().map(|s| (f.mac, frame(&f, s), verdict)).collect();
            let out = coalesce_with(frames);
            assert!(out.iter().any(|o| o.segs > 1));
            for o in &out {
                let k = check_valid(o);
                assert!(k.tcp_csum_ok && k.ip_csum_ok);
            }
        }
    }
}

#[test]
fn b6_nothing_is_merged_while_forwarding() {
    let f = Flow::v4(1);
    let segs = chain(Seg::data(0, 1448), 10, 1448);
    let mut storage = vec![0u8; 4 * 65536];
    let mut lro = SoftLro::new(&mut storage, 4);
    lro.set_forwarding(true);
    let frames: Vec<_> = segs.iter().map(|s| (0, frame(&f, s), Verified)).collect();
    let out = run(&mut lro, &frames);
    assert_eq!(out.len(), 10);
    for (o, (_, d, _)) in out.iter().zip(&frames) {
        assert_eq!((&o.data, o.segs, o.seg_size), (d, 1, 0), "as received, no GSO metadata to trip TX");
    }
    lro.set_forwarding(false);
    let out = run(&mut lro, &frames);
    assert_eq!(out.len(), 1, "merging again once forwarding is off");
}

#[test]
fn b7_every_aggregate_carries_segment_count_and_size() {
    for f in [Flow::v4(1), Flow::v6(1)] {
        let mut segs = chain(Seg::data(0, 1448), 5, 1448);
        let last = segs.last().unwrap().next(100);
        segs.push(last);
        let out = coalesce(&f, &segs);
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].segs, out[0].seg_size), (6, 1448));
        check_valid(&out[0]);
    }
}

#[test]
fn b8_pure_acks_are_never_merged() {
    let f = Flow::v4(1);
    let mut acks = Vec::new();
    let mut s = Seg::data(0, 0);
    for i in 0..6 {
        s.ack += 1448 * (i % 2);
        s.window += 1;
        acks.push(s.clone());
    }
    let out = coalesce(&f, &acks);
    assert_eq!(out.len(), 6, "ACKs, duplicate ACKs and window updates all reach the stack");
    for (o, s) in out.iter().zip(&acks) {
        assert_eq!(o.data, frame(&f, s));
    }
}

#[test]
fn b9_ipv4_fragments_are_never_merged() {
    let f = Flow::v4(1);
    let a = Seg::data(0, 1000);
    let mut frags = Vec::new();
    for (i, frag) in [0x2000u16, 0x2000 | 100, 200].into_iter().enumerate() {
        let mut s = if i == 0 { a.next(1000) } else { frags.last().cloned().unwrap_or(a.clone()).next(1000) };
        s.df = false;
        s.frag = frag;
        frags.push(s);
    }
    let mut segs = vec![a.clone()];
    segs.extend(frags.iter().cloned());
    let out = coalesce(&f, &segs);
    assert_eq!(out.len(), 4, "no fragment merged, and the held head went out before the first fragment");
    for (o, s) in out.iter().zip(&segs) {
        assert_eq!(o.data, frame(&f, s));
    }
}

#[test]
fn b10_zero_length_segment_between_data_keeps_the_order() {
    let f = Flow::v4(1);
    let a = Seg::data(0, 1000);
    let mut ack = a.next(0);
    ack.ack += 1;
    let b = a.next(1000); // contiguous with `a`, but it comes after the ACK
    let mut b = b;
    b.ack += 1;
    let out = coalesce(&f, &[a.clone(), ack.clone(), b.clone()]);
    assert_eq!(out.len(), 3, "B is not merged into A past the ACK");
    assert_eq!(
        out.iter().map(|o| o.data.clone()).collect::<Vec<_>>(),
        vec![frame(&f, &a), frame(&f, &ack), frame(&f, &b)]
    );
}

#[test]
fn b11_checksums_checked_and_rewritten_ttl_and_tos_compared() {
    let f = Flow::v4(1);
    let segs = chain(Seg::data(0, 1000), 3, 1000);
    // Checked: a bad segment is refused.
    let mut bad = segs[1].clone();
    bad.bad_tcp_csum = true;
    assert_eq!(coalesce_with(vec![(0, frame(&f, &segs[0]), Unverified), (0, frame(&f, &bad), Unverified)]).len(), 2);
    // Rewritten: lengths and both checksums of the aggregate are right.
    let out = coalesce(&f, &segs);
    assert_eq!(out.len(), 1);
    let k = check_valid(&out[0]);
    assert_eq!(k.ip_len, 20 + 32 + 3000);
    // Compared: TTL and TOS.
    let mut ttl = segs[1].clone();
    ttl.ttl = 1;
    let mut tos = segs[1].clone();
    tos.tos = 0x10;
    assert_eq!(coalesce(&f, &[segs[0].clone(), ttl]).len(), 2);
    assert_eq!(coalesce(&f, &[segs[0].clone(), tos]).len(), 2);
    let mut storage = vec![0u8; 65536];
    let mut lro = SoftLro::new(&mut storage, 1);
    let mut ttl = segs[1].clone();
    ttl.ttl = 1;
    run(&mut lro, &[(0, frame(&f, &segs[0]), Verified), (0, frame(&f, &ttl), Verified)]);
    assert_eq!(lro.stats().flushes(FlushReason::TtlChange), 1);
}
