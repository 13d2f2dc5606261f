//! SoftLRO's fast path: a segment exactly as its flow predicts joins (or starts the flow's next
//! aggregate) after one header compare; anything the prediction does not cover falls back to
//! the per-field checks or the full path, with the same result as the full path would give.

mod softlro_support;

use fe_driver::RxChecksum::Verified;
use fe_driver::softlro::{FlushReason, SoftLro};
use softlro_support::*;

/// Pushes `segs` of `flow` through `lro` in polls of `poll` frames (flushing after each).
fn polls(lro: &mut SoftLro<'_>, flow: &Flow, segs: &[Seg], poll: usize) -> Vec<Out> {
    let mut out = Vec::new();
    for chunk in segs.chunks(poll) {
        let frames: Vec<_> = chunk.iter().map(|s| (flow.mac, frame(flow, s), Verified)).collect();
        out.extend(run(lro, &frames));
    }
    out
}

/// `n` full-size segments of a bulk stream from `first`.
fn stream(first: Seg, n: usize) -> Vec<Seg> {
    let len = first.payload.len();
    let mut segs = vec![first];
    while segs.len() < n {
        let next = segs.last().map(|s| s.next(len)).unwrap_or_else(head);
        segs.push(next);
    }
    segs
}

/// Every delivered frame is valid and the flow's payload comes out whole and in order.
fn all_bytes_in_order(out: &[Out], first_seq: u32, total: usize) {
    let mut payload = Vec::new();
    for o in out {
        let k = check_valid(o);
        assert_eq!(k.seq, first_seq.wrapping_add(payload.len() as u32), "contiguous, in order");
        payload.extend_from_slice(&k.payload);
    }
    assert_eq!(payload, pattern(first_seq, total));
}

#[test]
fn a_bulk_stream_over_many_polls_takes_the_full_path_once() {
    for flow in [Flow::v4(1), Flow::v6(2), Flow::v4(3).tagged(0, 7), Flow::v6(4).tagged(3, 9)] {
        let mut storage = vec![0u8; 4 * 65536];
        let mut lro = SoftLro::new(&mut storage, 4);
        let segs = stream(head(), 300);
        let out = polls(&mut lro, &flow, &segs, 64);
        all_bytes_in_order(&out, 1000, 300 * 1448);
        let s = lro.stats().clone();
        assert_eq!(s.frames_in, 300);
        // Only the very first segment is parsed in full; every later aggregate (after the end
        // of a poll or a full one) is started by the fast path.
        assert_eq!(s.fast_merged + s.fast_started, 299, "{s:?}");
        assert!(s.fast_started >= 4, "one per later poll at least: {s:?}");
        assert_eq!(s.flushes(FlushReason::PollEnd) + s.flushes(FlushReason::SizeLimit), out.len() as u64);
    }
}

#[test]
fn a_tsval_behind_the_aggregate_is_refused_even_when_all_else_is_predicted() {
    let f = Flow::v4(1);
    let a = head();
    let b = a.next(1448);
    let mut c = b.next(1448);
    c.ts = Some((90, 50)); // older than b's 101
    let out = coalesce(&f, &[a, b, c.clone()]);
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].segs, 2);
    assert_eq!(out[1].data, frame(&f, &c), "the older segment goes out as received");
}

#[test]
fn moved_fields_are_taken_and_predicted_for_the_next_segment() {
    let f = Flow::v4(1);
    let a = head();
    let mut b = a.next(1448);
    b.ack = 9000;
    b.window = 800;
    b.ts = Some((101, 77));
    let c = b.next(1448); // same ACK, window and TSecr as b: exactly as predicted
    let mut storage = vec![0u8; 4 * 65536];
    let mut lro = SoftLro::new(&mut storage, 4);
    let out =
        run(&mut lro, &[(0, frame(&f, &a), Verified), (0, frame(&f, &b), Verified), (0, frame(&f, &c), Verified)]);
    assert_eq!(out.len(), 1);
    let k = check_valid(&out[0]);
    assert_eq!((k.ack, k.window, k.ts), (9000, 800, Some((102, 77))));
    assert_eq!(k.payload, pattern(1000, 3 * 1448));
    assert_eq!(lro.stats().fast_merged, 2);
}

#[test]
fn an_ack_going_backwards_after_a_moved_one_is_refused() {
    let f = Flow::v4(1);
    let a = head();
    let mut b = a.next(1448);
    b.ack = 9000;
    let mut c = b.next(1448);
    c.ack = 8000;
    let out = coalesce(&f, &[a, b, c.clone()]);
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].data, frame(&f, &c));
}

#[test]
fn after_a_pushed_segment_the_next_aggregate_starts_on_the_fast_path() {
    let f = Flow::v4(1);
    let a = head();
    let mut b = a.next(1448);
    b.flags = ACK | PSH;
    let c = b.next(1448);
    let d = c.next(1448);
    let mut storage = vec![0u8; 4 * 65536];
    let mut lro = SoftLro::new(&mut storage, 4);
    let frames: Vec<_> = [&a, &b, &c, &d].iter().map(|s| (0, frame(&f, s), Verified)).collect();
    let out = run(&mut lro, &frames);
    assert_eq!(out.iter().map(|o| o.segs).collect::<Vec<_>>(), vec![2, 2]);
    assert_eq!(check_valid(&out[0]).flags, ACK | PSH);
    all_bytes_in_order(&out, 1000, 4 * 1448);
    assert_eq!((lro.stats().fast_started, lro.stats().flushes(FlushReason::Push)), (1, 1));
}

#[test]
fn a_segment_out_of_sequence_after_a_poll_starts_on_the_full_path() {
    let f = Flow::v4(1);
    let a = head();
    let gap = a.next(1448).next(1448); // one segment lost
    let mut storage = vec![0u8; 4 * 65536];
    let mut lro = SoftLro::new(&mut storage, 4);
    run(&mut lro, &[(0, frame(&f, &a), Verified)]);
    let out = run(&mut lro, &[(0, frame(&f, &gap), Verified), (0, frame(&f, &gap.next(1448)), Verified)]);
    assert_eq!(out.len(), 1);
    assert_eq!(check_valid(&out[0]).seq, gap.seq);
    assert_eq!((lro.stats().fast_started, lro.stats().fast_merged), (0, 1));
}

#[test]
fn without_df_the_ip_id_must_be_the_next_one() {
    let f = Flow::v4(1);
    let mut a = head();
    a.df = false;
    let b = a.next(1448);
    let mut c = b.next(1448);
    c.ip_id = c.ip_id.wrapping_add(5);
    let out = coalesce(&f, &[a, b, c.clone()]);
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].data, frame(&f, &c));
    // With DF set the ID is free (RFC 6864): the same gap merges.
    let mut a = head();
    a.df = true;
    let b = a.next(1448);
    let mut c = b.next(1448);
    c.ip_id = c.ip_id.wrapping_add(5);
    assert_eq!(coalesce(&f, &[a, b, c]).len(), 1);
}

#[test]
fn odd_sized_segments_merge_on_the_full_path_with_correct_checksums() {
    let f = Flow::v6(1);
    let segs = stream(Seg::data(5, 1447), 5);
    let mut storage = vec![0u8; 4 * 65536];
    let mut lro = SoftLro::new(&mut storage, 4);
    let out = polls(&mut lro, &f, &segs, 64);
    assert_eq!(out.len(), 1);
    all_bytes_in_order(&out, 5, 5 * 1447);
    assert_eq!(lro.stats().fast_merged + lro.stats().fast_started, 0);
}

#[test]
fn the_flow_merged_most_recently_is_not_the_one_evicted() {
    let (fa, fb, fc) = (Flow::v4(1), Flow::v4(2), Flow::v4(3));
    let a = head();
    let mut storage = vec![0u8; 2 * 65536];
    let mut lro = SoftLro::new(&mut storage, 2);
    let mut out = Vec::new();
    let mut push = |lro: &mut SoftLro<'_>, f: &Flow, s: &Seg| {
        lro.push(rx(0, &frame(f, s), Verified), &mut |o| out.push(check(o.mac, o.data).map(|k| k.key)))
    };
    push(&mut lro, &fa, &a);
    push(&mut lro, &fb, &a);
    push(&mut lro, &fa, &a.next(1448)); // full path: A becomes the most recent
    push(&mut lro, &fa, &a.next(1448).next(1448)); // fast path: A stays the most recent
    push(&mut lro, &fc, &a); // the table is full: B, used least recently, goes
    assert_eq!(out, vec![check(0, &frame(&fb, &a)).map(|k| k.key)]);
    assert_eq!(lro.stats().flushes(FlushReason::Evicted), 1);
}
