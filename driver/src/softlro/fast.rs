//! The fast path: a hardware-verified segment of the most recently used flow is recognised by
//! one masked compare of its headers against the held head's, which checks at once every rule
//! that asks for equal fields (flow key, VLAN, TOS/traffic class, TTL/hop limit, DF and
//! fragment bits, flow label, TCP header length and options layout); the few rules on fields
//! that change per segment are then checked one by one. Anything else takes the full path
//! (`parse` + `rules`), which decides and counts why.

use super::csum;
use super::merge::{self, Tail};
use super::parse::{Options, Seg, flags};
use super::rules::{self, MAX_IP_LEN, MAX_SEGS};
use super::stats::FlushReason;
use super::table::Table;
use crate::rx::{RxChecksum, RxFrame};

/// Header bytes the compare covers: Ethernet + tag (18), IPv6 (40), TCP with timestamps (32).
const MAX_HDR: usize = 96;
/// 64-bit words of [`MAX_HDR`].
const WORDS: usize = MAX_HDR / 8;

/// Which bytes of a head's headers every later segment must repeat exactly.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mask {
    words: [u64; WORDS],
    /// Words to compare.
    n: usize,
}

impl Mask {
    /// Compares nothing (a free slot).
    pub(crate) const NONE: Mask = Mask { words: [0; WORDS], n: 0 };
}

/// The mask for a flow whose head is `seg`: every header byte but lengths, IP ID and checksum,
/// sequence and acknowledgment numbers, flags, window, TCP checksum, urgent pointer and
/// timestamp values (checked one by one), and nothing past the headers.
pub(crate) fn mask(seg: &Seg) -> Mask {
    let hdr = seg.payload_off();
    if hdr > MAX_HDR {
        return Mask::NONE;
    }
    let mut m = [0u8; MAX_HDR];
    m[..hdr].fill(0xff);
    let (ip, t) = (seg.l2_len, seg.tcp_off);
    let mut clear = |r: core::ops::Range<usize>| {
        if let Some(b) = m.get_mut(r) {
            b.fill(0);
        }
    };
    if seg.v6 {
        clear(ip + 4..ip + 6); // payload length
    } else {
        clear(ip + 2..ip + 6); // total length, ID
        clear(ip + 10..ip + 12); // header checksum
    }
    clear(t + 4..t + 12); // sequence, acknowledgment
    clear(t + 13..t + 20); // flags, window, checksum, urgent pointer
    if seg.options == Options::Timestamp {
        clear(t + 24..t + 32); // TSval, TSecr
    }
    let mut words = [0u64; WORDS];
    for (w, b) in words.iter_mut().zip(m.chunks_exact(8)) {
        *w = u64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
    }
    Mask { words, n: hdr.div_ceil(8) }
}

#[inline(always)]
fn rd16(d: &[u8], at: usize) -> u16 {
    d.get(at..at + 2).map_or(0, |b| u16::from_be_bytes([b[0], b[1]]))
}

#[inline(always)]
fn rd32(d: &[u8], at: usize) -> u32 {
    d.get(at..at + 4).map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Whether the first [`MAX_HDR`] bytes of `a` and `b` agree wherever `m` says they must.
#[inline(always)]
fn same_headers(a: &[u8; MAX_HDR], b: &[u8; MAX_HDR], m: &Mask) -> bool {
    let mut diff = 0;
    for ((x, y), w) in a.chunks_exact(8).zip(b.chunks_exact(8)).zip(&m.words) {
        let x = u64::from_ne_bytes([x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]]);
        let y = u64::from_ne_bytes([y[0], y[1], y[2], y[3], y[4], y[5], y[6], y[7]]);
        diff |= (x ^ y) & w;
    }
    diff == 0
}

/// Merges `frame` into the most recently used aggregate when it plainly continues it. `None`:
/// take the full path; `Some(close)`: merged, and whether the aggregate must now be closed.
#[inline]
pub(crate) fn try_merge(table: &mut Table<'_>, frame: &RxFrame<'_>, tag: u64) -> Option<Option<FlushReason>> {
    if frame.segs != 1 || frame.checksum != RxChecksum::Verified || table.held == 0 {
        return None;
    }
    let i = table.mru;
    let slot_size = table.slot_size;
    let (f, slot) = table.parts(i);
    let d = frame.data;
    if !f.held() || f.mac != frame.mac || f.mask.n == 0 {
        return None;
    }
    // Frames shorter than MAX_HDR (tiny payloads) take the full path.
    let (Some(a), Some(b)) = (d.first_chunk::<MAX_HDR>(), slot.first_chunk::<MAX_HDR>()) else { return None };
    if !same_headers(a, b, &f.mask) {
        return None;
    }
    let (ip, t) = (f.l2_len, f.tcp_off);
    let hdr = t + f.tcp_hlen;
    let end = if f.v6 { ip + 40 + usize::from(rd16(d, ip + 4)) } else { ip + usize::from(rd16(d, ip + 2)) };
    let fl = d.get(t + 13).copied().unwrap_or(0);
    let plen = end.wrapping_sub(hdr);
    if end > d.len() || end <= hdr || fl & !flags::PSH != flags::ACK || plen > usize::from(f.seg_size) {
        return None;
    }
    let ack = rd32(d, t + 8);
    if rd32(d, t + 4) != f.next_seq || (ack.wrapping_sub(f.ack) as i32) < 0 {
        return None;
    }
    let (tsval, tsecr) = if f.options == Options::Timestamp { (rd32(d, t + 24), rd32(d, t + 28)) } else { (0, 0) };
    if (tsval.wrapping_sub(f.tsval) as i32) < 0 || (tsecr.wrapping_sub(f.tsecr) as i32) < 0 {
        return None;
    }
    if !f.v6 && !f.df && rd16(d, ip + 4) != f.next_id {
        return None;
    }
    let ip_len = if f.v6 { 0 } else { 20 } + f.tcp_hlen + f.payload_len + plen;
    if f.segs >= MAX_SEGS || ip_len > MAX_IP_LEN || f.len + plen > slot_size {
        return None;
    }
    // The payload's sum from the segment's own (verified) checksum, without reading the payload.
    let header = csum::sum(d.get(t..hdr).unwrap_or_default());
    let psum = !csum::fold(f.addr_sum + csum::pseudo_rest(end - t) + header);
    let tail = Tail { ack, window: rd16(d, t + 14), tsval, tsecr, flags: fl, verified: true };
    merge::append(f, slot, d.get(hdr..end).unwrap_or_default(), psum, tail, tag);
    let close = rules::closes(f, fl, plen, slot_size);
    table.touch(i);
    Some(close)
}
