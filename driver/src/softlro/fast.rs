//! The fast path: a hardware-verified segment of the most recently used flow is recognised by
//! comparing its first [`MAX_HDR`] bytes with the headers the flow *predicts* for its next
//! segment (the last one's), in two tiers:
//!
//! 1. **Exact**: every header byte but the checksums, the sequence number, TSval and the IPv4 ID
//!    equals the prediction, the sequence number is the next one, the IPv4 ID the next one
//!    (where DF is clear) and TSval not older. That proves every rule of the merged rule table
//!    for a full-size segment (flow key, VLAN, TOS/ECN, TTL, DF, no fragment or options, ACK as
//!    the only flag, ACK and TSecr unchanged, the head's length), so the segment joins with no
//!    further check; with no aggregate held it starts the flow's next one (it is a valid head
//!    by the same checks), copied whole, without a parse.
//! 2. **Moved**: the bytes that must never change within a flow are equal (ACK with PSH free);
//!    the fields that may move (length, ACK, window, timestamps) are then checked one by one.
//!
//! Both read every field at offsets fixed per header layout (code specialised for each).
//! Anything else takes the full path (`parse` + `rules`), which decides and counts why.
//!
//! The fast path never reads the payload: the caller copies it straight into the aggregate
//! ([`SoftLro::fast_room`](super::SoftLro)), from DMA memory in the driver, so a merged byte
//! is copied once. The TCP checksum is kept by sums of the segments' headers (whose checksum
//! field the hardware verified), folded into the aggregate's at close (`merge::finish`).

use super::merge::{self, Tail};
use super::parse::{Options, Seg, flags};
use super::rules;
use super::stats::FlushReason;
use super::table::{Flow, MAX_FLOWS, Table};
use crate::frame::RxChecksum;
use crate::headers::csum;

/// Header bytes the compare covers: Ethernet + tag (18), IPv6 (40), TCP with timestamps (32).
pub(crate) const MAX_HDR: usize = 96;

/// [`MAX_HDR`] header bytes, aligned for word compares.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
pub(crate) struct Hdr([u8; MAX_HDR]);

impl Hdr {
    const ZERO: Hdr = Hdr([0; MAX_HDR]);

    /// Writes `b` at `at` (nothing past the end).
    #[inline(always)]
    pub(crate) fn put(&mut self, at: usize, b: &[u8]) {
        if let Some(d) = self.0.get_mut(at..at + b.len()) {
            d.copy_from_slice(b);
        }
    }

    /// Zeroes `r` (nothing past the end).
    fn clear(&mut self, r: core::ops::Range<usize>) {
        if let Some(d) = self.0.get_mut(r) {
            d.fill(0);
        }
    }
}

/// Whether `h` differs from `want` in any bit `mask` has set, in its first `chunks` 16-byte
/// chunks (a constant where it is called, so the loop unrolls into a few vector operations).
#[inline(always)]
pub(crate) fn differs(h: &[u8; MAX_HDR], want: &Hdr, mask: &Hdr, chunks: usize) -> bool {
    let (h, _) = h.as_chunks::<8>();
    let (w, _) = want.0.as_chunks::<8>();
    let (m, _) = mask.0.as_chunks::<8>();
    let mut d = 0u64;
    for ((h, w), m) in h.iter().zip(w).zip(m).take(2 * chunks) {
        d |= (u64::from_ne_bytes(*h) ^ u64::from_ne_bytes(*w)) & u64::from_ne_bytes(*m);
    }
    d != 0
}

/// What a flow's next segment is expected to look like.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Expect {
    /// The predicted headers: the last segment's, with the head's length and ACK as the only
    /// flag (sequence number, IPv4 ID and TSval are checked on their own).
    pub(crate) want: Hdr,
    /// Tier 1: every header bit but the IPv4 ID, the sequence number, TSval and the checksums.
    pub(crate) exact: Hdr,
    /// Tier 2: the bits that never change within a flow, and the flags but PSH.
    fixed: Hdr,
    /// The head's header layout (the fast path reads its fields at fixed offsets).
    pub(crate) shape: Shape,
    /// Offset of the TCP header.
    t: usize,
    /// The TCP header carries timestamps.
    ts: bool,
    /// Little-endian sum (see [`csum::sum_le`]) of the predicted TCP header's 32-bit words that tier 1
    /// requires equal: all but sequence, checksum/urgent pointer and TSval.
    pub(crate) k_sum: u64,
}

/// The header layouts the fast path knows: Ethernet with or without one VLAN tag, IPv4 without
/// options or IPv6 without extension headers, TCP without options or with timestamps only
/// (every layout a mergeable segment can have).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Anything else, or a head of odd length: every segment takes the full path.
    Other,
    /// Bit 0: VLAN tag; bit 1: IPv6; bit 2: timestamps.
    Known(u8),
}

impl Expect {
    /// Expects nothing (a free slot, or headers the fast path does not handle).
    pub(crate) const NONE: Expect =
        Expect { want: Hdr::ZERO, exact: Hdr::ZERO, fixed: Hdr::ZERO, shape: Shape::Other, t: 0, ts: false, k_sum: 0 };

    /// The expectation after `seg`, the head of a new aggregate held in `head`.
    pub(crate) fn after(seg: &Seg, head: &[u8]) -> Expect {
        let off = seg.payload_off();
        let (ip, t) = (seg.l2_len, seg.tcp_off);
        let ts = seg.options == Options::Timestamp;
        let shape = match (ip, t - ip, seg.tcp_hlen) {
            // Odd payloads would put the next one at an odd offset of the TCP checksum.
            _ if seg.payload_len() % 2 == 1 => Shape::Other,
            (14 | 18, 20 | 40, 20 | 32) if seg.v6 == (t - ip == 40) && ts == (seg.tcp_hlen == 32) => {
                Shape::Known(u8::from(ip == 18) | u8::from(seg.v6) << 1 | u8::from(ts) << 2)
            }
            _ => Shape::Other,
        };
        let Some(src) = head.get(..off).filter(|_| off <= MAX_HDR && shape != Shape::Other) else {
            return Expect::NONE;
        };
        let mut e = Expect { t, shape, ts, ..Expect::NONE };
        e.want.put(0, src);
        e.want.put(t + 13, &[flags::ACK]); // PSH clear: a pushed segment closes
        e.exact.put(0, &[0xff; MAX_HDR][..off]);
        if !seg.v6 {
            e.exact.clear(ip + 4..ip + 6); // ID: checked on its own where DF is clear
            e.exact.clear(ip + 10..ip + 12); // header checksum (the hardware verified it)
        }
        e.exact.clear(t + 4..t + 8); // sequence: checked on its own
        e.exact.clear(t + 16..t + 18); // TCP checksum
        if ts {
            e.exact.clear(t + 24..t + 28); // TSval: a clock, checked on its own (not older)
        }
        e.fixed = e.exact;
        let f = &mut e.fixed;
        if seg.v6 {
            f.clear(ip + 4..ip + 6); // payload length
        } else {
            f.clear(ip + 2..ip + 4); // total length
        }
        f.clear(t + 8..t + 12); // acknowledgment
        f.clear(t + 14..t + 20); // window, checksum, urgent pointer (URG is not allowed)
        if ts {
            f.clear(t + 28..t + 32); // TSecr
        }
        f.put(t + 13, &[!flags::PSH]); // ACK, and PSH on the last one
        e.k_sum = e.fixed_words_sum();
        e
    }

    /// Predicts the fields a merged segment may have moved (ACK, window, TSecr) unchanged.
    pub(crate) fn follow(&mut self, tail: &Tail) {
        let t = self.t;
        self.want.put(t + 8, &tail.ack.to_be_bytes());
        self.want.put(t + 14, &tail.window.to_be_bytes());
        if self.ts {
            self.want.put(t + 28, &tail.tsecr.to_be_bytes());
        }
        self.k_sum = self.fixed_words_sum();
    }

    /// [`Expect::k_sum`] of the current prediction.
    fn fixed_words_sum(&self) -> u64 {
        let t = self.t;
        let w = |at: usize| {
            self.want.0.get(at..at + 4).map_or(0, |b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
        };
        w(t) + w(t + 8) + w(t + 12) + if self.ts { w(t + 20) + w(t + 28) } else { 0 }
    }
}

/// What the fast path does with a segment.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Step {
    /// The predicted segment (with this TSval) joins the held aggregate.
    Next(u32),
    /// The predicted segment (with this TSval) starts the flow's next aggregate (it is copied
    /// whole).
    Restart(u32),
    /// A segment whose moved fields passed their rules joins the held aggregate.
    Moved(Tail),
}

/// The fast path's verdict on one frame: copy `n` bytes from offset `off` of the frame to
/// offset `at` of slot `slot`'s aggregate, then [`commit`] it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    /// Slot of the aggregate.
    pub slot: usize,
    /// First byte to copy from the frame.
    pub off: usize,
    /// Where it goes in the slot.
    pub at: usize,
    /// Bytes to copy (the payload, or the whole frame for [`Step::Restart`]).
    pub n: usize,
    /// What the segment does.
    pub step: Step,
    /// Little-endian sum of the TCP header (see [`csum::sum_le`]).
    hsum: u64,
}

/// Whether the frame of `len` bytes whose first bytes are `h` plainly continues the most
/// recently used flow; reads nothing but the headers and changes nothing. Bytes of `h` past
/// `len` may be anything: only header bytes inside the frame are looked at.
#[inline(always)]
pub(crate) fn plan(table: &Table<'_>, mac: u8, checksum: RxChecksum, h: &[u8; MAX_HDR], len: usize) -> Option<Plan> {
    if checksum != RxChecksum::Verified {
        return None;
    }
    let slot = table.mru % MAX_FLOWS;
    let f = &table.flows[slot];
    if f.mac != mac {
        return None;
    }
    match f.expect.shape {
        Shape::Known(0) => plan_in::<14, false, false>(f, slot, h, len),
        Shape::Known(1) => plan_in::<18, false, false>(f, slot, h, len),
        Shape::Known(2) => plan_in::<14, true, false>(f, slot, h, len),
        Shape::Known(3) => plan_in::<18, true, false>(f, slot, h, len),
        Shape::Known(4) => plan_in::<14, false, true>(f, slot, h, len),
        Shape::Known(5) => plan_in::<18, false, true>(f, slot, h, len),
        Shape::Known(6) => plan_in::<14, true, true>(f, slot, h, len),
        Shape::Known(7) => plan_in::<18, true, true>(f, slot, h, len),
        _ => None,
    }
}

/// What tier 1 checks beyond the header compare: the flow's next sequence number, IPv4 ID (where
/// DF is clear) and latest TSval, and the head's payload size.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Next {
    /// Sequence number the next segment carries.
    pub seq: u32,
    /// IPv4 ID it carries where DF is clear.
    pub id: u16,
    /// The flow's DF bit (the ID is free where it is set).
    pub df: bool,
    /// TSval it must not be older than.
    pub tsval: u32,
    /// Its payload bytes (the head's).
    pub size: usize,
}

impl Next {
    /// The prediction held in `f`.
    #[inline(always)]
    pub(crate) fn of(f: &Flow) -> Next {
        Next { seq: f.next_seq, id: f.next_id, df: f.df, tsval: f.tsval, size: usize::from(f.seg_size) }
    }
}

/// Tier 1 of the fast path for headers of `L2` Ethernet bytes, IPv6 or IPv4, with or without
/// timestamps (every field at a fixed offset): when headers `h` are exactly the predicted next
/// segment's, its TSval and the sum of its TCP header's words the prediction does not fix (add
/// [`Expect::k_sum`] for the whole header's). The caller checks the frame holds the payload.
#[inline(always)]
pub(crate) fn exact<const L2: usize, const V6: bool, const TS: bool>(
    e: &Expect,
    n: &Next,
    h: &[u8; MAX_HDR],
) -> Option<(u32, u64)> {
    let t = L2 + if V6 { 40 } else { 20 };
    let off = t + if TS { 32 } else { 20 };
    let le32 = |at: usize| u32::from_le_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
    let seq = le32(t + 4);
    let tsval = if TS { le32(t + 24).swap_bytes() } else { 0 };
    let id_ok = V6 || n.df || u16::from_be_bytes([h[L2 + 4], h[L2 + 5]]) == n.id;
    // The compare covers the headers' 16-byte chunks.
    if differs(h, &e.want, &e.exact, off.div_ceil(16))
        || seq.swap_bytes() != n.seq
        || !id_ok
        || (tsval.wrapping_sub(n.tsval) as i32) < 0
    {
        return None;
    }
    let hsum = u64::from(seq) + u64::from(le32(t + 16)) + if TS { u64::from(le32(t + 24)) } else { 0 };
    Some((tsval, hsum))
}

/// [`plan`] for headers of `L2` Ethernet bytes, IPv6 or IPv4, with or without timestamps:
/// every field at a fixed offset.
#[inline(always)]
fn plan_in<const L2: usize, const V6: bool, const TS: bool>(
    f: &Flow,
    slot: usize,
    h: &[u8; MAX_HDR],
    len: usize,
) -> Option<Plan> {
    let t = L2 + if V6 { 40 } else { 20 };
    let off = t + if TS { 32 } else { 20 };
    let e = &f.expect;
    let be16 = |at: usize| u16::from_be_bytes([h[at], h[at + 1]]);
    let le32 = |at: usize| u32::from_le_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
    let newer = |new: u32, old: u32| new.wrapping_sub(old) as i32 >= 0;
    // Tier 1: everything as predicted (the prediction has the head's IP length, which the frame
    // must hold).
    let n = usize::from(f.seg_size);
    if len >= off + n
        && let Some((tsval, hsum)) = exact::<L2, V6, TS>(e, &Next::of(f), h)
    {
        let hsum = hsum + e.k_sum;
        return if f.held() {
            (f.room > 0).then_some(Plan { slot, off, at: f.len, n, step: Step::Next(tsval), hsum })
        } else {
            (f.room0 > 0).then_some(Plan { slot, off: 0, at: 0, n: off + n, step: Step::Restart(tsval), hsum })
        };
    }
    // Tier 2: the constant fields as predicted, the moved ones checked by their rules.
    if !f.held() || differs(h, &e.want, &e.fixed, off.div_ceil(16)) {
        return None;
    }
    let end = if V6 { L2 + 40 + usize::from(be16(L2 + 4)) } else { L2 + usize::from(be16(L2 + 2)) };
    let plen = end.wrapping_sub(off);
    // `plen` wraps to a huge value when the IP length ends inside the headers. No larger than
    // the head's, it fits: the aggregate has room for one more of those.
    if end > len || plen == 0 || plen > usize::from(f.seg_size) || f.room == 0 {
        return None;
    }
    let ack = le32(t + 8).swap_bytes();
    let (tsval, tsecr) = if TS { (le32(t + 24).swap_bytes(), le32(t + 28).swap_bytes()) } else { (0, 0) };
    if le32(t + 4).swap_bytes() != f.next_seq
        || (!V6 && !f.df && be16(L2 + 4) != f.next_id)
        || !newer(ack, f.ack)
        || !newer(tsval, f.tsval)
        || !newer(tsecr, f.tsecr)
    {
        return None;
    }
    let hsum = csum::sum_le(&h[t..off]);
    let tail = Tail { ack, window: be16(t + 14), tsval, tsecr, flags: h[t + 13], verified: true };
    Some(Plan { slot, off, at: f.len, n: plen, step: Step::Moved(tail), hsum })
}

/// Takes the segment of `p` (its bytes already copied to the slot) into the aggregate; returns
/// why the aggregate must close now, if it must.
#[inline(always)]
pub(crate) fn commit(table: &mut Table<'_>, p: &Plan, tag: u64) -> Option<FlushReason> {
    // The plan's slot is the most recently used one already.
    let f = &mut table.flows[p.slot % MAX_FLOWS];
    match p.step {
        Step::Next(tsval) => {
            f.fast_hsum += p.hsum;
            f.tsval = tsval;
            merge::take_next(f, p.n, tag);
            (f.room == 0).then(|| rules::limit_reason(f))
        }
        Step::Restart(tsval) => {
            f.tsval = tsval;
            f.born = table.now;
            merge::restart(f, p.n, p.hsum, tag);
            table.held += 1;
            None
        }
        Step::Moved(tail) => {
            f.fast_hsum += p.hsum;
            merge::take(f, p.n, &tail, tag);
            rules::closes(f, tail.flags, p.n)
        }
    }
}
