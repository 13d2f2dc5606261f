//! SoftLRO: one test per rule of the merged rule table (`docs/lro-rules.md` section 2), the rewrite
//! on merge, the flow table, and a proptest over random interleavings of flows.

mod softlro_support;

use fe_driver::RxChecksum::{Unverified, Verified};
use fe_driver::softlro::{FlushReason, MAX_FLOWS, MAX_IP_LEN, MAX_SEGS, PassReason, SLOT_SIZE, SoftLro};
use softlro_support::*;

/// `head` then `ok` merge into one aggregate; `head` then `bad` do not (each goes out alone,
/// unchanged, in order). The first half guards each rule test against passing vacuously.
fn merges_only_if(flow: &Flow, head: &Seg, ok: &Seg, bad: &Seg) {
    let out = coalesce(flow, &[head.clone(), ok.clone()]);
    assert_eq!(out.len(), 1, "control: the compliant tail must merge");
    assert_eq!(out[0].segs, 2);
    check_valid(&out[0]);
    apart(flow, &[head.clone(), bad.clone()]);
}

/// The segments go out one by one, unchanged, in order.
fn apart(flow: &Flow, segs: &[Seg]) -> Vec<Out> {
    let out = coalesce(flow, segs);
    assert_eq!(out.len(), segs.len(), "nothing merged");
    for (o, s) in out.iter().zip(segs) {
        assert_eq!((o.segs, o.seg_size), (1, 0));
        assert_eq!(o.data, frame(flow, s), "delivered unchanged, in order");
    }
    out
}

// --- Merging and the rewrite on merge ---

#[test]
fn ipv4_segments_merge_with_rewritten_headers() {
    let f = Flow::v4(1);
    let a = head();
    let mut b = a.next(1448);
    b.ack = 7100;
    b.window = 900;
    b.ts = Some((105, 60));
    let mut c = b.next(1448);
    c.ack = 7200;
    c.window = 1000;
    c.ts = Some((106, 61));
    let out = coalesce(&f, &[a.clone(), b, c]);
    assert_eq!(out.len(), 1);
    let o = &out[0];
    assert_eq!((o.segs, o.seg_size, o.checksum), (3, 1448, Verified));
    let k = check_valid(o);
    assert_eq!(k.ip_len, 20 + 32 + 3 * 1448);
    assert_eq!((k.seq, k.ack, k.window, k.ts), (1000, 7200, 1000, Some((106, 61))), "tail's ACK, window, timestamps");
    assert_eq!(k.payload, pattern(1000, 3 * 1448));
    assert_eq!(k.flags, ACK);
}

#[test]
fn ipv6_segments_merge() {
    let f = Flow::v6(1);
    let a = head();
    let out = coalesce(&f, &[a.clone(), a.next(1448), a.next(1448).next(1448)]);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].segs, out[0].seg_size), (3, 1448));
    let k = check_valid(&out[0]);
    assert_eq!(k.ip_len, 40 + 32 + 3 * 1448);
    assert_eq!(k.payload, pattern(1000, 3 * 1448));
}

#[test]
fn segments_without_timestamps_merge() {
    for f in [Flow::v4(1), Flow::v6(2)] {
        let mut a = head();
        a.ts = None;
        let out = coalesce(&f, &[a.clone(), a.next(1448)]);
        assert_eq!(out.len(), 1);
        assert_eq!(check_valid(&out[0]).payload, pattern(1000, 2 * 1448));
    }
}

#[test]
fn odd_sized_segments_keep_the_tcp_checksum_right() {
    // Odd segment sizes put every other segment's payload at an odd offset.
    for f in [Flow::v4(1), Flow::v6(1)] {
        for size in [1, 3, 1447] {
            let a = Seg::data(77, size);
            let mut segs = vec![a.clone()];
            for _ in 0..4 {
                let n = segs.last().unwrap().next(size);
                segs.push(n);
            }
            let last = segs.last().unwrap().next(size.div_ceil(2));
            segs.push(last);
            let out = coalesce(&f, &segs);
            let total: usize = segs.iter().map(|s| s.payload.len()).sum();
            assert_eq!(out.len(), 1, "size {size}");
            let k = check_valid(&out[0]);
            assert_eq!(k.payload, pattern(77, total));
        }
    }
}

#[test]
fn unverified_good_segments_are_verified_in_software_and_go_out_unverified() {
    let f = Flow::v4(1);
    let a = head();
    let frames = [a.clone(), a.next(1448)].iter().map(|s| (0, frame(&f, s), Unverified)).collect();
    let out = coalesce_with(frames);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].segs, out[0].checksum), (2, Unverified));
    check_valid(&out[0]);
}

#[test]
fn one_unverified_segment_makes_the_aggregate_unverified() {
    let f = Flow::v6(1);
    let a = head();
    let b = a.next(1448);
    let out = coalesce_with(vec![(0, frame(&f, &a), Verified), (0, frame(&f, &b), Unverified)]);
    assert_eq!((out.len(), out[0].checksum), (1, Unverified));
    check_valid(&out[0]);
}

#[test]
fn psh_merges_and_closes() {
    let f = Flow::v4(1);
    let a = head();
    let mut b = a.next(1448);
    b.flags = ACK | PSH;
    let c = b.next(1448);
    let out = coalesce(&f, &[a, b, c]);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].segs, 2);
    assert_eq!(check_valid(&out[0]).flags, ACK | PSH, "PSH ORed into the aggregate");
    assert_eq!(out[1].segs, 1);
}

#[test]
fn psh_alone_passes_untouched() {
    let f = Flow::v4(1);
    let mut a = head();
    a.flags |= PSH;
    apart(&f, &[a]);
}

// --- Never merge: TCP flags ---

fn flag_never_merges(flag: u8) {
    let f = Flow::v4(1);
    let a = head();
    let mut bad = a.next(1448);
    bad.flags |= flag;
    merges_only_if(&f, &a, &a.next(1448), &bad);
    // Nor as a head.
    let mut h = a.clone();
    h.flags |= flag;
    apart(&f, &[h.clone(), h.next(1448)]);
}

#[test]
fn syn_never_merges() {
    flag_never_merges(SYN);
}

#[test]
fn fin_never_merges() {
    flag_never_merges(FIN);
}

#[test]
fn rst_never_merges() {
    flag_never_merges(RST);
}

#[test]
fn urg_never_merges() {
    flag_never_merges(URG);
}

#[test]
fn ece_never_merges() {
    flag_never_merges(ECE);
}

#[test]
fn cwr_never_merges() {
    flag_never_merges(CWR);
}

#[test]
fn missing_ack_never_merges() {
    let f = Flow::v4(1);
    let a = head();
    let mut bad = a.next(1448);
    bad.flags = 0;
    merges_only_if(&f, &a, &a.next(1448), &bad);
}

// --- Never merge: the other rows ---

#[test]
fn payload_zero_never_merges() {
    let f = Flow::v4(1);
    let a = head();
    let ack = a.next(0);
    let out = apart(&f, &[a.clone(), ack.clone(), ack.clone()]);
    assert_eq!(out.len(), 3, "duplicate ACKs kept too");
}

#[test]
fn non_contiguous_sequence_never_merges() {
    let f = Flow::v4(1);
    let a = head();
    let mut gap = a.next(1448);
    gap.seq += 1;
    merges_only_if(&f, &a, &a.next(1448), &gap);
    let mut behind = a.next(1448);
    behind.seq -= 1;
    apart(&f, &[a.clone(), behind]);
    apart(&f, &[a.clone(), a.clone()]); // a retransmission
}

#[test]
fn sequence_wraps_modulo_2_32() {
    let f = Flow::v4(1);
    let a = Seg::data(u32::MAX - 100, 1448);
    let out = coalesce(&f, &[a.clone(), a.next(1448)]);
    assert_eq!((out.len(), out[0].segs), (1, 2));
    check_valid(&out[0]);
}

#[test]
fn backwards_ack_never_merges() {
    let f = Flow::v4(1);
    let a = head();
    let mut ahead = a.next(1448);
    ahead.ack += 1000;
    let mut behind = a.next(1448);
    behind.ack -= 1;
    merges_only_if(&f, &a, &ahead, &behind);
}

#[test]
fn options_other_than_timestamp_never_merge() {
    let f = Flow::v4(1);
    let mut a = head();
    a.ts = None;
    // NOP NOP SACK(1 block), the same header length as a timestamp.
    let mut sack = a.next(1448);
    sack.options = Some(vec![1, 1, 5, 10, 0, 0, 0, 1, 0, 0, 0, 2]);
    apart(&f, &[sack.clone(), sack.next(1448)]);
    let mut a2 = head();
    a2.ts = None;
    let mut mss = a2.next(1448);
    mss.options = Some(vec![2, 4, 5, 0xb4]);
    merges_only_if(&f, &a2, &a2.next(1448), &mss);
    // A timestamp not in the appendix-A layout (no NOPs, EOL after).
    let mut odd = head().next(1448);
    odd.options = Some(vec![8, 10, 0, 0, 0, 101, 0, 0, 0, 50, 0, 0]);
    apart(&f, &[head(), odd]);
}

#[test]
fn tcp_header_length_difference_never_merges() {
    let f = Flow::v4(1);
    let a = head();
    let mut no_ts = a.next(1448);
    no_ts.ts = None;
    merges_only_if(&f, &a, &a.next(1448), &no_ts);
}

#[test]
fn older_tsval_never_merges() {
    let f = Flow::v4(1);
    let a = head();
    let mut older = a.next(1448);
    older.ts = Some((99, 50));
    merges_only_if(&f, &a, &a.next(1448), &older);
}

#[test]
fn older_tsecr_never_merges() {
    let f = Flow::v6(1);
    let a = head();
    let mut older = a.next(1448);
    older.ts = Some((101, 49));
    merges_only_if(&f, &a, &a.next(1448), &older);
}

#[test]
fn segment_larger_than_head_never_merges() {
    let f = Flow::v4(1);
    let a = Seg::data(1000, 1000);
    let out = apart(&f, &[a.clone(), a.next(1001)]);
    assert_eq!(out.len(), 2);
    merges_only_if(&f, &a, &a.next(1000), &a.next(1001));
}

#[test]
fn nothing_merges_after_a_short_segment() {
    let f = Flow::v4(1);
    let a = head();
    let short = a.next(500);
    let after = short.next(500);
    let out = coalesce(&f, &[a, short, after]);
    assert_eq!(out.len(), 2, "the short tail is merged and closes the aggregate");
    assert_eq!((out[0].segs, out[0].seg_size), (2, 1448));
    assert_eq!(check_valid(&out[0]).payload.len(), 1948);
    assert_eq!(out[1].segs, 1);
}

#[test]
fn ttl_difference_never_merges() {
    let f = Flow::v4(1);
    let a = head();
    let mut bad = a.next(1448);
    bad.ttl = 63;
    merges_only_if(&f, &a, &a.next(1448), &bad);
}

#[test]
fn hop_limit_difference_never_merges() {
    let f = Flow::v6(1);
    let a = head();
    let mut bad = a.next(1448);
    bad.ttl = 63;
    merges_only_if(&f, &a, &a.next(1448), &bad);
}

#[test]
fn tos_byte_difference_never_merges() {
    let f = Flow::v4(1);
    let a = head();
    let mut dscp = a.next(1448);
    dscp.tos = 0x20;
    merges_only_if(&f, &a, &a.next(1448), &dscp);
    let mut ect = a.next(1448);
    ect.tos = 0x02;
    apart(&f, &[a, ect]);
}

#[test]
fn traffic_class_difference_never_merges() {
    let f = Flow::v6(1);
    let a = head();
    let mut bad = a.next(1448);
    bad.tos = 0xb8;
    merges_only_if(&f, &a, &a.next(1448), &bad);
}

#[test]
fn df_difference_never_merges() {
    let f = Flow::v4(1);
    let a = head();
    let mut bad = a.next(1448);
    bad.df = false;
    merges_only_if(&f, &a, &a.next(1448), &bad);
}

#[test]
fn ip_id_not_plus_one_without_df_never_merges() {
    let f = Flow::v4(1);
    let mut a = head();
    a.df = false;
    let mut bad = a.next(1448);
    bad.ip_id += 1;
    merges_only_if(&f, &a, &a.next(1448), &bad);
    // With DF set the IP ID is ignored (RFC 6864).
    let mut d = head();
    d.ip_id = 9;
    let mut e = d.next(1448);
    e.ip_id = 3;
    assert_eq!(coalesce(&f, &[d, e]).len(), 1);
}

#[test]
fn ipv4_options_never_merge() {
    let f = Flow::v4(1);
    let a = head();
    let mut bad = a.next(1448);
    bad.ip_options = true;
    merges_only_if(&f, &a, &a.next(1448), &bad);
    let mut h = a.clone();
    h.ip_options = true;
    let mut t = h.next(1448);
    t.ip_options = true;
    apart(&f, &[h, t]);
}

#[test]
fn ipv4_fragments_never_merge() {
    let f = Flow::v4(1);
    let a = head();
    let mut first = a.next(1448);
    first.df = false;
    first.frag = 0x2000; // MF, offset 0: still has the TCP header
    merges_only_if(&f, &a, &a.next(1448), &first);
    let mut h = a.clone();
    h.df = false;
    h.frag = 0x2000;
    let mut t = h.next(1448);
    t.frag = 0x2000;
    apart(&f, &[h, t]);
}

#[test]
fn ipv6_extension_headers_merge_when_every_byte_is_equal() {
    // As Linux GRO: segments whose extension headers are byte-identical merge (was: never).
    let f = Flow::v6(1);
    for ext_type in [0, 60] {
        let mut h = head();
        (h.ext_header, h.ext_type, h.ext_data) = (true, ext_type, 7);
        let segs = [h.clone(), h.next(1448), h.next(1448).next(1448)];
        for verdict in [Verified, Unverified] {
            let out = coalesce_with(segs.iter().map(|s| (f.mac, frame(&f, s), verdict)).collect());
            assert_eq!(out.len(), 1, "type {ext_type}, {verdict:?}");
            assert_eq!((out[0].segs, out[0].seg_size), (3, 1448));
            let k = check_valid(&out[0]);
            assert_eq!(k.ip_len, 40 + 8 + 32 + 3 * 1448, "payload length counts the extension header");
            assert_eq!(k.payload, pattern(1000, 3 * 1448));
            assert_eq!(out[0].data[14 + 40..14 + 48], frame(&f, &h)[14 + 40..14 + 48], "the head's header");
        }
        // One byte different, or no extension header at all: never.
        let mut other = h.next(1448);
        other.ext_data = 8;
        merges_only_if(&f, &h, &h.next(1448), &other);
        let mut none = h.next(1448);
        none.ext_header = false;
        merges_only_if(&f, &h, &h.next(1448), &none);
        let mut plain = head();
        plain.ext_header = false;
        let mut with = plain.next(1448);
        (with.ext_header, with.ext_type) = (true, ext_type);
        merges_only_if(&f, &plain, &plain.next(1448), &with);
    }
}

#[test]
fn ipv6_routing_headers_never_merge() {
    // Behind a routing header the TCP pseudo-header's destination is the route's last address,
    // not the header's: such segments pass as received.
    let f = Flow::v6(1);
    let mut h = head();
    (h.ext_header, h.ext_type) = (true, 43);
    apart(&f, &[h.clone(), h.next(1448)]);
    let mut storage = vec![0u8; 65536];
    let mut lro = SoftLro::new(&mut storage, 1);
    run(&mut lro, &[(f.mac, frame(&f, &h), Verified)]);
    assert_eq!(lro.stats().passed(PassReason::Ipv6ExtHeader), 1);
}

#[test]
fn ipv6_flow_label_difference_never_merges() {
    let f = Flow::v6(1);
    let a = head();
    let mut bad = a.next(1448);
    bad.flow_label = 0x54321;
    merges_only_if(&f, &a, &a.next(1448), &bad);
}

#[test]
fn ip_length_beyond_the_frame_never_merges() {
    for f in [Flow::v4(1), Flow::v6(1)] {
        let a = head();
        let mut bad = a.next(1448);
        bad.ip_len_extra = 4;
        merges_only_if(&f, &a, &a.next(1448), &bad);
    }
}

#[test]
fn ethernet_padding_is_trimmed_to_the_ip_length() {
    let f = Flow::v4(1);
    let a = Seg::data(1000, 4);
    let mut b = a.next(4);
    b.pad = 6; // a minimum-size frame
    let mut a = a;
    a.pad = 6;
    let out = coalesce(&f, &[a.clone(), b]);
    assert_eq!((out.len(), out[0].segs), (1, 2));
    let k = check_valid(&out[0]);
    assert_eq!(k.payload, pattern(1000, 8), "no padding inside the aggregate");
    // Alone, a held head goes out trimmed.
    let out = coalesce(&f, &[a.clone()]);
    assert_eq!(out[0].data.len(), frame(&f, &a).len() - 6);
}

#[test]
fn aggregate_stays_within_the_ip_length_limit() {
    for f in [Flow::v4(1), Flow::v6(1)] {
        let mut s = Seg::data(0, 1448);
        s.ts = None;
        let mut segs = vec![s];
        for _ in 0..99 {
            let n = segs.last().unwrap().next(1448);
            segs.push(n);
        }
        let out = coalesce(&f, &segs);
        let mut total = 0;
        for o in &out {
            let k = check_valid(o);
            let ip_payload = k.ip_len - if k.v6 { 40 } else { 0 };
            assert!(ip_payload <= MAX_IP_LEN.min(65535), "{}", k.ip_len);
            total += k.payload.len();
        }
        assert_eq!(total, 100 * 1448);
        assert_eq!(out[0].segs, ((MAX_IP_LEN - 40) / 1448) as u16, "as many as fit");
    }
}

#[test]
fn aggregates_grow_to_the_ip_length_limit() {
    // 1455-byte segments without options: 45 fit in 65535 bytes of IP length (44 would in the
    // 65280 of a 255-byte margin), as Linux GRO builds them.
    for f in [Flow::v4(1), Flow::v6(1)] {
        let mut s = Seg::data(0, 1455);
        s.ts = None;
        let mut segs = vec![s];
        for _ in 0..49 {
            let n = segs.last().unwrap().next(1455);
            segs.push(n);
        }
        let mut storage = vec![0u8; 4 * SLOT_SIZE];
        let mut lro = SoftLro::new(&mut storage, 4);
        let out = run(&mut lro, &segs.iter().map(|s| (f.mac, frame(&f, s), Verified)).collect::<Vec<_>>());
        let k = check_valid(&out[0]);
        assert_eq!(out[0].segs, 45, "v6 {}", f.v6);
        let length_field = k.ip_len - if k.v6 { 40 } else { 0 };
        assert_eq!(length_field, if k.v6 { 0 } else { 20 } + 20 + 45 * 1455);
        assert!(length_field <= MAX_IP_LEN && MAX_IP_LEN == 65535);
        assert_eq!(out.iter().map(|o| check_valid(o).payload.len()).sum::<usize>(), 50 * 1455);
    }
}

#[test]
fn segment_cap_is_64() {
    let f = Flow::v4(1);
    let mut segs = vec![Seg::data(0, 100)];
    for _ in 0..129 {
        let n = segs.last().unwrap().next(100);
        segs.push(n);
    }
    let out = coalesce(&f, &segs);
    assert_eq!(out.iter().map(|o| o.segs).collect::<Vec<_>>(), vec![MAX_SEGS, MAX_SEGS, 2]);
    for o in &out {
        check_valid(o);
    }
}

#[test]
fn bad_tcp_checksum_never_merges() {
    let f = Flow::v4(1);
    let a = head();
    let mut bad = a.next(1448);
    bad.bad_tcp_csum = true;
    let good = a.next(1448);
    let frames = |t: &Seg| vec![(0, frame(&f, &a), Unverified), (0, frame(&f, t), Unverified)];
    assert_eq!(coalesce_with(frames(&good)).len(), 1, "control");
    let out = coalesce_with(frames(&bad));
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].data, frame(&f, &bad), "passed untouched so the stack drops it");
    assert_eq!(out[1].checksum, Unverified);
}

#[test]
fn bad_ipv4_header_checksum_never_merges() {
    let f = Flow::v4(1);
    let a = head();
    let mut bad = a.next(1448);
    bad.bad_ip_csum = true;
    let out = coalesce_with(vec![(0, frame(&f, &a), Unverified), (0, frame(&f, &bad), Unverified)]);
    assert_eq!(out.len(), 2);
    assert_eq!((out[1].data.clone(), out[1].segs), (frame(&f, &bad), 1));
}

// --- Flow identity ---

#[test]
fn vlan_vid_and_pcp_must_match_and_tagged_never_merges_with_untagged() {
    let base = Flow::v4(1).tagged(3, 100);
    let a = head();
    let b = a.next(1448);
    let out = coalesce(&base, &[a.clone(), b.clone()]);
    assert_eq!((out.len(), out[0].segs), (1, 2), "control: same tag merges");
    check_valid(&out[0]);
    for other in [Flow::v4(1).tagged(3, 101), Flow::v4(1).tagged(4, 100), Flow::v4(1)] {
        let out = coalesce_with(vec![(0, frame(&base, &a), Verified), (0, frame(&other, &b), Verified)]);
        assert_eq!(out.len(), 2, "{:?}", other.vlan);
    }
}

#[test]
fn different_macs_ports_or_addresses_never_merge() {
    let base = Flow::v4(1);
    let a = head();
    let b = a.next(1448);
    let mut on_mac1 = base.clone();
    on_mac1.mac = 1;
    let mut port = base.clone();
    port.sport += 1;
    let mut dst_mac = base.clone();
    dst_mac.dst_mac[5] = 9;
    for other in [on_mac1, port, dst_mac, Flow::v4(2)] {
        let out = coalesce_with(vec![(0, frame(&base, &a), Verified), (other.mac, frame(&other, &b), Verified)]);
        assert_eq!(out.len(), 2);
    }
}

#[test]
fn interleaved_flows_merge_separately() {
    let (f, g) = (Flow::v4(1), Flow::v6(2));
    let a = head();
    let b = a.next(1448);
    let frames = vec![
        (0, frame(&f, &a), Verified),
        (0, frame(&g, &a), Verified),
        (0, frame(&f, &b), Verified),
        (0, frame(&g, &b), Verified),
    ];
    let out = coalesce_with(frames);
    assert_eq!(out.iter().map(|o| o.segs).collect::<Vec<_>>(), vec![2, 2]);
}

// --- Table, flush, forwarding ---

#[test]
fn full_table_evicts_the_least_recently_used_aggregate() {
    let mut storage = vec![0u8; 2 * 16384];
    let mut lro = SoftLro::new(&mut storage, 2);
    let flows = [Flow::v4(1), Flow::v4(2), Flow::v4(3)];
    let a = head();
    let b = a.next(1448);
    let mut frames = Vec::new();
    for s in [&a, &b] {
        for f in &flows[..2] {
            frames.push((0, frame(f, s), Verified));
        }
    }
    // Flow 1 was used least recently: flow 3 evicts it.
    frames.push((0, frame(&flows[2], &a), Verified));
    let mut out = Vec::new();
    for (mac, d, c) in &frames {
        lro.push(rx(*mac, d, *c), &mut |f| out.push((check(f.mac, f.data).unwrap().key, f.segs)));
    }
    assert_eq!(out.len(), 1, "the evicted aggregate is delivered at once");
    assert_eq!(out[0].0, check(0, &frame(&flows[0], &a)).unwrap().key);
    assert_eq!(out[0].1, 2);
    assert_eq!(lro.stats().flushes(FlushReason::Evicted), 1);
    lro.flush(&mut |_| {});
    assert_eq!(lro.held(), 0);
}

#[test]
fn nothing_is_held_after_flush() {
    let mut storage = vec![0u8; 8 * 70000];
    let mut lro = SoftLro::new(&mut storage, 8);
    let a = head();
    for n in 0..8 {
        lro.push(rx(0, &frame(&Flow::v4(n), &a), Verified), &mut |_| panic!("nothing closes yet"));
    }
    assert_eq!(lro.held(), 8);
    let mut n = 0;
    lro.flush(&mut |_| n += 1);
    assert_eq!((n, lro.held()), (8, 0));
    lro.flush(&mut |_| panic!("nothing left"));
}

#[test]
fn forwarding_merges_nothing_and_flushes_a_held_flow_before_its_next_frame() {
    let f = Flow::v4(1);
    let a = head();
    let b = a.next(1448);
    let mut storage = vec![0u8; 4 * 65536];
    let mut lro = SoftLro::new(&mut storage, 4);
    let mut out = Vec::new();
    lro.push(rx(0, &frame(&f, &a), Verified), &mut |o| out.push(o.data.to_vec()));
    lro.set_forwarding(true);
    lro.push(rx(0, &frame(&f, &b), Verified), &mut |o| out.push(o.data.to_vec()));
    assert_eq!(out, vec![frame(&f, &a), frame(&f, &b)], "order kept");
    assert_eq!(lro.stats().flushes(FlushReason::Forwarding), 1);
    assert_eq!(lro.stats().passed(PassReason::Forwarding), 1);
}

#[test]
fn flows_are_clamped_and_tiny_storage_passes_everything() {
    let f = Flow::v4(1);
    let a = head();
    let mut none: [u8; 0] = [];
    let out =
        run(&mut SoftLro::new(&mut none, 4), &[(0, frame(&f, &a), Verified), (0, frame(&f, &a.next(1448)), Verified)]);
    assert_eq!(out.len(), 2);
    let mut small = vec![0u8; 100];
    let out = run(&mut SoftLro::new(&mut small, 0), &[(0, frame(&f, &a), Verified)]);
    assert_eq!(out.len(), 1);
    let mut big = vec![0u8; 1000 * 100];
    let mut lro = SoftLro::new(&mut big, 1000);
    for n in 0..MAX_FLOWS as u8 + 1 {
        lro.push(rx(0, &frame(&Flow::v4(n), &Seg::data(0, 10)), Verified), &mut |_| {});
    }
    assert_eq!(lro.held(), MAX_FLOWS);
}

#[test]
fn malformed_frames_pass_through_without_panic() {
    let f = Flow::v4(1);
    let good = frame(&f, &head());
    let mut storage = vec![0u8; 2 * 65536];
    let mut lro = SoftLro::new(&mut storage, 2);
    let mut n = 0;
    for cut in 0..good.len() {
        for c in [Verified, Unverified] {
            lro.push(rx(0, &good[..cut], c), &mut |_| n += 1);
        }
    }
    let mut bad_doff = good.clone();
    bad_doff[14 + 20 + 12] = 0xf0; // data offset 60 bytes
    let mut zero_doff = good.clone();
    zero_doff[14 + 20 + 12] = 0;
    let mut short_ip = good.clone();
    short_ip[14 + 2..14 + 4].copy_from_slice(&10u16.to_be_bytes());
    for d in [bad_doff, zero_doff, short_ip] {
        lro.push(rx(0, &d, Unverified), &mut |_| n += 1);
    }
    lro.flush(&mut |_| n += 1);
    assert_eq!(n, 2 * good.len() + 3);
}

#[test]
fn flush_and_pass_reasons_have_stable_names() {
    let names: Vec<_> = FlushReason::ALL.iter().map(|r| r.name()).collect();
    assert!(names.contains(&"poll_end") && names.contains(&"evicted") && names.contains(&"push"));
    assert_eq!(FlushReason::Push.name(), "push");
    assert_eq!(PassReason::BadChecksum.name(), "bad_checksum");
    for n in names.iter().chain(PassReason::ALL.iter().map(|r| r.name()).collect::<Vec<_>>().iter()) {
        assert!(n.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'), "{n}");
    }
}

#[test]
fn stats_count_frames_segments_and_reasons() {
    let f = Flow::v4(1);
    let a = head();
    let b = a.next(1448);
    let ack = b.next(0);
    let c = ack.next(1448);
    let mut storage = vec![0u8; 4 * 65536];
    let mut lro = SoftLro::new(&mut storage, 4);
    let frames: Vec<_> = [&a, &b, &ack, &c].iter().map(|s| (0, frame(&f, s), Unverified)).collect();
    let out = run(&mut lro, &frames);
    assert_eq!(out.len(), 3);
    let s = lro.stats();
    assert_eq!((s.frames_in, s.frames_out, s.aggregates_out, s.segments_merged), (4, 3, 1, 2));
    assert_eq!(s.flushes(FlushReason::Unmergeable), 1);
    assert_eq!(s.flushes(FlushReason::PollEnd), 1);
    assert_eq!(s.passed(PassReason::NoPayload), 1);
    assert_eq!(s.sw_verified, 3);
}

// --- Property: random interleavings keep every flow's bytes, in order ---

mod prop {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        /// A data segment of `len` bytes with extra flags.
        Data { len: usize, flags: u8 },
        /// `len` bytes lost before the next data segment.
        Gap { len: usize },
        /// The flow's last data segment again.
        Dup,
        /// The next two data segments swapped.
        Swap { len: usize },
        /// A pure ACK.
        Ack,
        /// A data segment with a corrupted payload byte (bad checksum).
        Corrupt { len: usize },
        /// End of a poll.
        Flush,
    }

    fn op() -> impl Strategy<Value = Op> {
        let len = prop_oneof![4 => Just(1448usize), 1 => 1usize..1500, 1 => 1usize..8];
        prop_oneof![
            12 => (len.clone(), prop_oneof![8 => Just(0u8), 1 => Just(PSH), 1 => Just(FIN), 1 => Just(URG), 1 => Just(CWR)])
                .prop_map(|(len, flags)| Op::Data { len, flags }),
            1 => (1usize..3000).prop_map(|len| Op::Gap { len }),
            1 => Just(Op::Dup),
            1 => len.clone().prop_map(|len| Op::Swap { len }),
            2 => Just(Op::Ack),
            1 => len.prop_map(|len| Op::Corrupt { len }),
            1 => Just(Op::Flush),
        ]
    }

    struct Stream {
        flow: Flow,
        last: Seg,
        next_seq: u32,
        /// Expected payload bytes, in input order.
        sent: Vec<u8>,
    }

    impl Stream {
        fn seg(&mut self, len: usize, flags: u8) -> Seg {
            let mut s = self.last.next(0);
            s.seq = self.next_seq;
            s.payload = pattern(self.next_seq, len);
            s.flags = ACK | flags;
            self.next_seq = self.next_seq.wrapping_add(len as u32);
            self.last = s.clone();
            s
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn every_flow_keeps_its_bytes_in_order(
            ops in proptest::collection::vec((0usize..5, op(), any::<bool>()), 1..160),
            table in 1usize..4,
            seq0 in any::<u32>(),
            df in any::<bool>(),
        ) {
            let flows = [Flow::v4(1), Flow::v6(2), Flow::v4(3).tagged(1, 7), Flow::v6(4).tagged(0, 7), Flow::v4(5)];
            let mut inputs: Vec<Stream> = flows.iter().enumerate().map(|(i, f)| {
                let mut last = Seg::data(seq0.wrapping_add(i as u32 * 1_000_000), 0);
                last.df = df || i != 4;
                if i == 1 { last.ts = None; }
                Stream { flow: f.clone(), next_seq: last.seq, last, sent: Vec::new() }
            }).collect();
            let mut storage = vec![0u8; table * 66000];
            let mut lro = SoftLro::new(&mut storage, table);
            let mut out: Vec<Out> = Vec::new();
            let mut bad_frames: Vec<Vec<u8>> = Vec::new();
            let mut pushed = 0u64;
            let mut push = |lro: &mut SoftLro<'_>, out: &mut Vec<Out>, s: &mut Stream, seg: &Seg, c, bad: bool| {
                let mut d = frame(&s.flow, seg);
                if bad {
                    let n = d.len() - 1;
                    d[n] ^= 0x55;
                }
                let payload_at = d.len() - seg.payload.len();
                s.sent.extend_from_slice(&d[payload_at..]);
                if bad { bad_frames.push(d.clone()); }
                lro.push(rx(s.flow.mac, &d, c), &mut |f| out.push(Out { mac: f.mac, data: f.data.to_vec(), checksum: f.checksum, segs: f.segs, seg_size: f.seg_size }));
                pushed += 1;
            };
            for (fi, op, verified) in ops {
                let c = if verified { Verified } else { Unverified };
                let s = &mut inputs[fi];
                match op {
                    Op::Data { len, flags } => { let g = s.seg(len, flags); push(&mut lro, &mut out, s, &g, c, false) }
                    Op::Gap { len } => { s.next_seq = s.next_seq.wrapping_add(len as u32); let g = s.seg(1448, 0); push(&mut lro, &mut out, s, &g, c, false) }
                    Op::Dup => { let g = s.last.clone(); push(&mut lro, &mut out, s, &g, c, false) }
                    Op::Swap { len } => {
                        let g1 = s.seg(len, 0);
                        let g2 = s.seg(len, 0);
                        push(&mut lro, &mut out, s, &g2, c, false);
                        push(&mut lro, &mut out, s, &g1, c, false);
                    }
                    Op::Ack => { let mut g = s.last.next(0); g.seq = s.next_seq; g.ack += 1; s.last.ack += 1; push(&mut lro, &mut out, s, &g, c, false) }
                    Op::Corrupt { len } => { let g = s.seg(len, 0); push(&mut lro, &mut out, s, &g, Unverified, true) }
                    Op::Flush => lro.flush(&mut |f| out.push(Out { mac: f.mac, data: f.data.to_vec(), checksum: f.checksum, segs: f.segs, seg_size: f.seg_size })),
                }
            }
            lro.flush(&mut |f| out.push(Out { mac: f.mac, data: f.data.to_vec(), checksum: f.checksum, segs: f.segs, seg_size: f.seg_size }));
            prop_assert_eq!(lro.held(), 0);
            // Every frame delivered exactly once, alone or inside an aggregate.
            prop_assert_eq!(out.iter().map(|o| u64::from(o.segs)).sum::<u64>(), pushed);
            prop_assert_eq!(lro.stats().frames_in, pushed);
            prop_assert_eq!(lro.stats().frames_out, out.len() as u64);
            for o in &out {
                let k = check(o.mac, &o.data).expect("a TCP frame");
                if !k.tcp_csum_ok {
                    prop_assert!(bad_frames.contains(&o.data), "only input frames with bad checksums may be bad");
                    prop_assert_eq!(o.segs, 1);
                    continue;
                }
                check_valid(o);
            }
            let got = streams(&out);
            for s in &inputs {
                let key = check(s.flow.mac, &frame(&s.flow, &s.last)).unwrap().key;
                let empty = Vec::new();
                prop_assert_eq!(got.get(&key).unwrap_or(&empty), &s.sent, "flow {:?}", s.flow.src);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        /// Mutated and truncated frames never panic, and every frame still comes out exactly once
        /// (alone or inside an aggregate).
        #[test]
        fn damaged_frames_never_panic_nor_get_lost(
            frames in proptest::collection::vec(
                (0usize..4, 0usize..1500, proptest::collection::vec((0usize..120, any::<u8>()), 0..4), 0usize..200, any::<bool>(), 1u16..3),
                1..60,
            ),
            table in 0usize..3,
        ) {
            let flows = [Flow::v4(1), Flow::v6(2), Flow::v4(3).tagged(1, 7), Flow::v6(4).tagged(0, 7)];
            let mut next = [Seg::data(1, 0), Seg::data(1, 0), Seg::data(1, 0), Seg::data(1, 0)];
            let mut storage = vec![0u8; table * 4000];
            let mut lro = SoftLro::new(&mut storage, table);
            let (mut segs_in, mut segs_out) = (0u64, 0u64);
            for (fi, len, flips, cut, verified, segs) in frames {
                let s = next[fi].next(len);
                next[fi] = s.clone();
                let mut d = frame(&flows[fi], &s);
                for (at, x) in flips {
                    if let Some(b) = d.get_mut(at) { *b ^= x; }
                }
                d.truncate(d.len().saturating_sub(cut));
                let c = if verified { Verified } else { Unverified };
                let f = fe_driver::RxFrame::new(0, &d, c).coalesced(segs, 0);
                segs_in += u64::from(segs);
                lro.push(f, &mut |o| segs_out += u64::from(o.segs));
            }
            lro.flush(&mut |o| segs_out += u64::from(o.segs));
            prop_assert_eq!(lro.held(), 0);
            prop_assert_eq!(segs_out, segs_in);
        }
    }
}
