//! The fast path: a hardware-verified segment of the most recently used flow is recognised by
//! one masked compare of its first [`MAX_HDR`] bytes against the bytes the flow expects, which
//! checks at once every rule that asks for equal fields (flow key, VLAN, TOS/traffic class,
//! TTL/hop limit, DF and fragment bits, flow label, TCP header length and options layout) and
//! that the only flags are ACK and perhaps PSH; the few rules on fields that move (sequence,
//! IP ID where DF is clear, acknowledgment, timestamps, length) are then checked one by one. Anything else takes the full path (`parse` + `rules`), which
//! decides and counts why.
//!
//! The fast path never reads the payload: the caller copies it straight into the aggregate
//! ([`SoftLro::fast_room`](super::SoftLro)), from DMA memory in the driver, so a merged byte
//! is copied once. The TCP checksum is kept by sums of the segments' headers (whose checksum
//! field the hardware verified), folded into the aggregate's at close (`merge::finish`).

use super::merge::{self, Tail};
use super::parse::{Options, Seg, flags};
use super::rules::{self, MAX_IP_LEN, MAX_SEGS};
use super::stats::FlushReason;
use super::table::{MAX_FLOWS, Table};
use crate::rx::RxChecksum;

/// Header bytes the compare covers: Ethernet + tag (18), IPv6 (40), TCP with timestamps (32).
pub(crate) const MAX_HDR: usize = 96;

/// 64-bit words of [`MAX_HDR`].
const WORDS: usize = MAX_HDR / 8;

/// What a flow's next segment must repeat: its first [`MAX_HDR`] bytes, masked, as native-order
/// words so the compare is a few word operations.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Expect {
    /// Which bits must match.
    mask: [u64; WORDS],
    /// Their values (zero wherever `mask` is).
    want: [u64; WORDS],
    /// The head's header layout (the fast path reads its fields at fixed offsets).
    shape: Shape,
}

/// The header layouts the fast path knows: Ethernet with or without one VLAN tag, IPv4 without
/// options or IPv6 without extension headers, TCP without options or with timestamps only
/// (every layout a mergeable segment can have).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// Anything else: every segment takes the full path.
    Other,
    /// Bit 0: VLAN tag; bit 1: IPv6; bit 2: timestamps.
    Known(u8),
}

/// The native-order words of `b`.
fn words(b: &[u8; MAX_HDR]) -> [u64; WORDS] {
    let (chunks, _) = b.as_chunks::<8>();
    let mut w = [0u64; WORDS];
    for (w, c) in w.iter_mut().zip(chunks) {
        *w = u64::from_ne_bytes(*c);
    }
    w
}

impl Expect {
    /// Expects nothing (a free slot, or headers too long for the fast path).
    pub(crate) const NONE: Expect = Expect { mask: [0; WORDS], want: [0; WORDS], shape: Shape::Other };

    /// What every later segment of `seg`'s flow (`seg` is the head, held in `head`) must repeat:
    /// every header byte but lengths, IPv4 ID and checksum, sequence and acknowledgment,
    /// window, TCP checksum, urgent pointer and timestamp values; flags ACK (PSH free).
    pub(crate) fn after(seg: &Seg, head: &[u8]) -> Expect {
        let hdr = seg.payload_off();
        let mut m = [0u8; MAX_HDR];
        let mut h = [0u8; MAX_HDR];
        let (Some(mh), Some(hh), Some(src)) = (m.get_mut(..hdr), h.get_mut(..hdr), head.get(..hdr)) else {
            return Expect::NONE;
        };
        mh.fill(0xff);
        hh.copy_from_slice(src);
        let (ip, t) = (seg.l2_len, seg.tcp_off);
        let mut clear = |r: core::ops::Range<usize>| {
            if let Some(b) = m.get_mut(r) {
                b.fill(0);
            }
        };
        if seg.v6 {
            clear(ip + 4..ip + 6); // payload length
        } else {
            clear(ip + 2..ip + 4); // total length
            clear(ip + 4..ip + 6); // ID: checked on its own where DF is clear
            clear(ip + 10..ip + 12); // header checksum
        }
        clear(t + 4..t + 12); // sequence (checked on its own) and acknowledgment
        clear(t + 14..t + 20); // window, checksum, urgent pointer (URG is not allowed)
        if seg.options == Options::Timestamp {
            clear(t + 24..t + 32); // TSval, TSecr
        }
        if let (Some(mb), Some(hb)) = (m.get_mut(t + 13), h.get_mut(t + 13)) {
            *mb = !flags::PSH; // ACK, and PSH on the last one
            *hb = flags::ACK;
        }
        let mask = words(&m);
        let mut want = words(&h);
        for (w, m) in want.iter_mut().zip(&mask) {
            *w &= m;
        }
        let ts = seg.options == Options::Timestamp;
        let shape = match (seg.l2_len, seg.tcp_off - seg.l2_len, seg.tcp_hlen) {
            (14 | 18, 20 | 40, 20 | 32) if seg.v6 == (t - ip == 40) && ts == (seg.tcp_hlen == 32) => {
                Shape::Known(u8::from(ip == 18) | u8::from(seg.v6) << 1 | u8::from(ts) << 2)
            }
            _ => Shape::Other,
        };
        Expect { mask, want, shape }
    }

    /// Whether `head` matches wherever the mask says it must.
    #[inline(always)]
    fn matches(&self, head: &[u8; MAX_HDR]) -> bool {
        let (chunks, _) = head.as_chunks::<8>();
        let mut diff = 0u64;
        for ((c, m), w) in chunks.iter().zip(&self.mask).zip(&self.want) {
            diff |= (u64::from_ne_bytes(*c) & m) ^ w;
        }
        diff == 0
    }
}

/// Ones'-complement sum of `b` (a whole number of 32-bit words) read as little-endian words:
/// the byte-swapped sum of the big-endian words, without a swap per word (RFC 1071, 2(B)).
#[inline(always)]
fn sum_le(b: &[u8]) -> u64 {
    let (pairs, rest) = b.as_chunks::<8>();
    let mut s = 0u64;
    for p in pairs {
        let w = u64::from_le_bytes(*p);
        s += (w & 0xffff_ffff) + (w >> 32);
    }
    if let Some(w) = rest.first_chunk::<4>() {
        s += u64::from(u32::from_le_bytes(*w));
    }
    s
}

/// The fast path's verdict on one frame: merge `plen` payload bytes at `off` into slot `slot`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    /// Slot of the aggregate.
    pub slot: usize,
    /// Offset of the payload in the frame.
    pub off: usize,
    /// Payload bytes.
    pub plen: usize,
    /// What the aggregate takes from the segment's headers.
    tail: Tail,
    /// Little-endian sum of the TCP header (see [`sum_le`]).
    hsum: u64,
}

/// Whether the frame of `len` bytes whose first bytes are `h` plainly continues the most
/// recently used aggregate; reads nothing but the headers and changes nothing. Bytes of `h`
/// past `len` may be anything: only header bytes inside the frame are looked at.
#[inline(always)]
pub(crate) fn plan(table: &Table<'_>, mac: u8, checksum: RxChecksum, h: &[u8; MAX_HDR], len: usize) -> Option<Plan> {
    if checksum != RxChecksum::Verified || table.held == 0 {
        return None;
    }
    let slot = table.mru % MAX_FLOWS;
    let f = &table.flows[slot];
    if !f.held() || f.mac != mac || !f.expect.matches(h) {
        return None;
    }
    match f.expect.shape {
        Shape::Known(0) => plan_in::<14, false, false>(table, slot, h, len),
        Shape::Known(1) => plan_in::<18, false, false>(table, slot, h, len),
        Shape::Known(2) => plan_in::<14, true, false>(table, slot, h, len),
        Shape::Known(3) => plan_in::<18, true, false>(table, slot, h, len),
        Shape::Known(4) => plan_in::<14, false, true>(table, slot, h, len),
        Shape::Known(5) => plan_in::<18, false, true>(table, slot, h, len),
        Shape::Known(6) => plan_in::<14, true, true>(table, slot, h, len),
        Shape::Known(7) => plan_in::<18, true, true>(table, slot, h, len),
        _ => None,
    }
}

/// [`plan`] for headers of `L2` Ethernet bytes, IPv6 or IPv4, with or without timestamps: every
/// field at a fixed offset. The masked compare already matched the flow's constant fields.
#[inline(always)]
fn plan_in<const L2: usize, const V6: bool, const TS: bool>(
    table: &Table<'_>,
    slot: usize,
    h: &[u8; MAX_HDR],
    len: usize,
) -> Option<Plan> {
    let f = &table.flows[slot];
    let t = L2 + if V6 { 40 } else { 20 };
    let off = t + if TS { 32 } else { 20 };
    let be16 = |at: usize| u16::from_be_bytes([h[at], h[at + 1]]);
    let be32 = |at: usize| u32::from_be_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
    let end = if V6 { L2 + 40 + usize::from(be16(L2 + 4)) } else { L2 + usize::from(be16(L2 + 2)) };
    let plen = end.wrapping_sub(off);
    // `plen` wraps to a huge value when the IP length ends inside the headers.
    if end > len || plen == 0 || plen > usize::from(f.seg_size) || f.payload_len % 2 == 1 {
        return None;
    }
    if be32(t + 4) != f.next_seq || (!V6 && !f.df && be16(L2 + 4) != f.next_id) {
        return None;
    }
    let ack = be32(t + 8);
    let (tsval, tsecr) = if TS { (be32(t + 24), be32(t + 28)) } else { (0, 0) };
    if (ack.wrapping_sub(f.ack) as i32) < 0
        || (tsval.wrapping_sub(f.tsval) as i32) < 0
        || (tsecr.wrapping_sub(f.tsecr) as i32) < 0
    {
        return None;
    }
    let ip_len = if V6 { 0 } else { 20 } + (off - t) + f.payload_len + plen;
    if f.segs >= MAX_SEGS || ip_len > MAX_IP_LEN || f.len + plen > table.slot_size {
        return None;
    }
    let hsum = sum_le(&h[t..off]);
    let tail = Tail { ack, window: be16(t + 14), tsval, tsecr, flags: h[t + 13], verified: true };
    Some(Plan { slot, off, plen, tail, hsum })
}

/// Takes the segment of `p` (its payload already copied to the slot's end) into the aggregate;
/// returns why the aggregate must close now, if it must.
#[inline(always)]
pub(crate) fn commit(table: &mut Table<'_>, p: &Plan, tag: u64) -> Option<FlushReason> {
    let slot_size = table.slot_size;
    table.touch(p.slot);
    let f = &mut table.flows[p.slot % MAX_FLOWS];
    merge::take(f, p.plen, &p.tail, tag);
    f.fast_hsum += p.hsum;
    f.fast_tcp_len += (f.tcp_hlen + p.plen) as u64;
    f.fast_segs += 1;
    rules::closes(f, p.tail.flags, p.plen, slot_size)
}
