//! Building an aggregate in its slot: the head is copied whole, each later segment adds only
//! its payload, and on close the head's headers are rewritten (lengths, IPv4 header checksum,
//! ACK, window, timestamps, PSH, and an incrementally computed TCP checksum).

use super::fast::{MAX_HDR, Shape};
use super::parse::{Options, Seg, flags};
use super::rules;
use super::table::Flow;
use crate::frame::{RxChecksum, RxFrame};
use crate::headers::ip::{PROTO_TCP, addr_range, v4, v6};
use crate::headers::l4::tcp;
use crate::headers::{be16, csum, put16, put32};

/// Starts an aggregate in `slot` with `seg` (its payload's sum `psum`) as the head; the caller
/// checked that the trimmed frame fits the slot.
pub(crate) fn start(f: &mut Flow, slot: &mut [u8], frame: &RxFrame<'_>, seg: &Seg, psum: u16, tag: u64) {
    let slot_size = slot.len();
    let (Some(dst), Some(src)) = (slot.get_mut(..seg.end), frame.data.get(..seg.end)) else { return };
    dst.copy_from_slice(src);
    let plen = seg.payload_len();
    let (next_seq, next_id) = (seg.seq.wrapping_add(plen as u32), seg.ip_id.wrapping_add(1));
    *f = Flow {
        len: seg.end,
        last_use: f.last_use,
        born: f.born,
        hash: seg.hash,
        hosts: seg.hosts,
        ports: seg.ports,
        mac: frame.mac,
        l2_len: seg.l2_len,
        v6: seg.v6,
        tcp_off: seg.tcp_off,
        tcp_hlen: seg.tcp_hlen,
        options: seg.options,
        next_seq,
        ack: seg.ack,
        window: seg.window,
        tsval: seg.tsval,
        tsecr: seg.tsecr,
        flags_or: 0,
        tos: seg.tos,
        ttl: seg.ttl,
        df: seg.df,
        next_id,
        flow_label: seg.flow_label,
        seg_size: plen as u16,
        segs: 1,
        room: 0,
        room0: 0,
        payload_sum: u64::from(psum),
        verified: frame.checksum == RxChecksum::Verified,
        tag,
        addr_sum: csum::sum(src.get(addr_range(seg.l2_len, seg.v6)).unwrap_or_default()),
        expect: super::fast::Expect::after(seg, src),
        fast_hsum: 0,
        slow_segs: 1,
        slow_payload: plen,
    };
    f.room = rules::room(f, slot_size);
    f.room0 = f.room;
}

/// Starts the flow's next aggregate with a segment the fast path predicted exactly, copied
/// whole (`len` bytes) to the slot's start; its header sum is `hsum`. Every field the
/// prediction covers (ACK, window, timestamps, layout) is the flow's already.
#[inline(always)]
pub(crate) fn restart(f: &mut Flow, len: usize, hsum: u64, tag: u64) {
    let plen = u32::from(f.seg_size);
    f.len = len;
    f.segs = 1;
    f.flags_or = 0;
    f.verified = true;
    f.payload_sum = 0;
    f.fast_hsum = hsum;
    f.slow_segs = 0;
    f.slow_payload = 0;
    f.room = f.room0;
    f.next_seq = f.next_seq.wrapping_add(plen);
    f.next_id = f.next_id.wrapping_add(1);
    f.tag = tag;
}

/// What the aggregate takes from each segment merged into it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tail {
    /// Acknowledgment number.
    pub ack: u32,
    /// Window.
    pub window: u16,
    /// TSval.
    pub tsval: u32,
    /// TSecr.
    pub tsecr: u32,
    /// TCP flags.
    pub flags: u8,
    /// The segment was hardware-verified.
    pub verified: bool,
}

impl Tail {
    /// The tail fields of a parsed segment.
    pub(crate) fn of(frame: &RxFrame<'_>, seg: &Seg) -> Tail {
        Tail {
            ack: seg.ack,
            window: seg.window,
            tsval: seg.tsval,
            tsecr: seg.tsecr,
            flags: seg.flags,
            verified: frame.checksum == RxChecksum::Verified,
        }
    }
}

/// Appends `payload` (its sum `psum`) to the aggregate; the flow rules have accepted it.
#[inline]
pub(crate) fn append(f: &mut Flow, slot: &mut [u8], payload: &[u8], psum: u16, t: Tail, tag: u64) {
    let plen = payload.len();
    let Some(dst) = slot.get_mut(f.len..f.len + plen) else { return };
    dst.copy_from_slice(payload);
    let psum = if f.payload_len() % 2 == 1 { csum::at_odd_offset(psum) } else { psum };
    f.payload_sum += u64::from(psum);
    f.slow_segs += 1;
    f.slow_payload += plen;
    take(f, plen, &t, tag);
}

/// Takes a segment of `plen` payload bytes (already in the slot) and its tail fields into the
/// aggregate's metadata and the flow's prediction: lengths, counts, room, the next sequence
/// number and IP ID, the latest ACK, window and timestamps, PSH, the verdict and the tag.
#[inline(always)]
pub(crate) fn take(f: &mut Flow, plen: usize, t: &Tail, tag: u64) {
    take_next(f, plen, tag);
    f.ack = t.ack;
    f.window = t.window;
    f.tsval = t.tsval;
    f.tsecr = t.tsecr;
    f.flags_or |= t.flags & flags::PSH;
    f.verified &= t.verified;
    f.expect.follow(t);
}

/// [`take`] for a segment exactly as predicted (full size, nothing moved).
#[inline(always)]
pub(crate) fn take_next(f: &mut Flow, plen: usize, tag: u64) {
    f.len += plen;
    f.segs += 1;
    f.room = f.room.saturating_sub(1);
    f.next_seq = f.next_seq.wrapping_add(plen as u32);
    f.next_id = f.next_id.wrapping_add(1);
    f.tag = tag;
}

/// The sum of the payloads the fast path merged, from their segments' headers alone: each
/// verified segment's pseudo-header, header (checksum field included) and payload sum to
/// zero, so the payloads sum to minus the rest (every such payload starts at an even offset).
fn fast_payload_sum(f: &Flow) -> u64 {
    let segs = u64::from(f.segs - f.slow_segs);
    if segs == 0 {
        return 0;
    }
    let tcp_len = segs * f.tcp_hlen as u64 + (f.payload_len() - f.slow_payload) as u64;
    let headers = u64::from(csum::fold(f.fast_hsum).swap_bytes());
    let rest = headers + segs * (f.addr_sum + csum::pseudo_rest(PROTO_TCP, 0)) + tcp_len;
    u64::from(csum::finish(rest))
}

/// Rewrites the head's headers in `slot` for the aggregate (nothing to do for a lone head).
pub(crate) fn finish(f: &Flow, slot: &mut [u8]) {
    if f.segs <= 1 {
        return;
    }
    // A layout the fast path knows has every field at a fixed offset: rewrite it with code
    // specialised for it (constant offsets, unrolled sums).
    let ts = f.options == Options::Timestamp;
    match (f.expect.shape, slot.first_chunk_mut::<MAX_HDR>()) {
        (Shape::Known(0), Some(h)) => rewrite_in::<14, false, false>(f, h),
        (Shape::Known(1), Some(h)) => rewrite_in::<18, false, false>(f, h),
        (Shape::Known(2), Some(h)) => rewrite_in::<14, true, false>(f, h),
        (Shape::Known(3), Some(h)) => rewrite_in::<18, true, false>(f, h),
        (Shape::Known(4), Some(h)) => rewrite_in::<14, false, true>(f, h),
        (Shape::Known(5), Some(h)) => rewrite_in::<18, false, true>(f, h),
        (Shape::Known(6), Some(h)) => rewrite_in::<14, true, true>(f, h),
        (Shape::Known(7), Some(h)) => rewrite_in::<18, true, true>(f, h),
        _ => rewrite(f, slot, f.l2_len, f.v6, f.tcp_off, f.tcp_hlen, ts),
    }
}

/// [`rewrite`] for headers of `L2` Ethernet bytes, IPv6 or IPv4, with or without timestamps
/// (the layouts of `fast::Shape::Known`).
#[inline(always)]
fn rewrite_in<const L2: usize, const V6: bool, const TS: bool>(f: &Flow, h: &mut [u8; MAX_HDR]) {
    let t = L2 + if V6 { 40 } else { 20 };
    rewrite(f, h, L2, V6, t, if TS { 32 } else { 20 }, TS);
}

/// [`finish`] for headers with the IP header at `ip` (IPv6 or IPv4), the TCP header at `t`,
/// `hlen` bytes long, with timestamps or not.
#[inline(always)]
fn rewrite(f: &Flow, slot: &mut [u8], ip: usize, v6: bool, t: usize, hlen: usize, ts: bool) {
    let tcp_len = hlen + f.payload_len();
    if v6 {
        put16(slot, ip + v6::PAYLOAD_LEN, (t - ip - v6::HLEN + tcp_len) as u16);
    } else {
        // The head's header checksum (verified) follows its new total length (RFC 1624).
        let (old, new) = (be16(slot, ip + v4::TOTAL_LEN).unwrap_or(0), (v4::HLEN + tcp_len) as u16);
        let c = csum::update16(be16(slot, ip + v4::CSUM).unwrap_or(0), old, new);
        put16(slot, ip + v4::TOTAL_LEN, new);
        put16(slot, ip + v4::CSUM, c);
    }
    put32(slot, t + tcp::ACK, f.ack);
    if let Some(b) = slot.get_mut(t + tcp::FLAGS) {
        *b |= f.flags_or;
    }
    put16(slot, t + tcp::WINDOW, f.window);
    put16(slot, t + tcp::CSUM, 0);
    if ts {
        put32(slot, t + 24, f.tsval);
        put32(slot, t + 28, f.tsecr);
    }
    let s = csum::pseudo(slot.get(addr_range(ip, v6)).unwrap_or_default(), PROTO_TCP, tcp_len)
        + csum::sum(slot.get(t..t + hlen).unwrap_or_default())
        + f.payload_sum
        + fast_payload_sum(f);
    put16(slot, t + tcp::CSUM, csum::finish(s));
}
