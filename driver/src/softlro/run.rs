//! Runs: the fast path's tier 1 over consecutive segments joining one held aggregate, with its
//! state held by the caller (the driver's poll loop) instead of the flow table and written back
//! once when the run ends (the aggregate is full, another frame comes between, or the poll
//! ends). The decisions are `fast::plan`'s tier 1 (`fast::exact`), segment by segment; only the
//! bookkeeping moves out of the table.

use super::SoftLro;
use super::fast::{self, MAX_HDR, Next, Shape};
use super::rules;
use super::table::MAX_FLOWS;
use crate::rx::{RxChecksum, RxFrame};

/// Tier-1 state of the aggregate the most recently used flow holds, kept by the caller between
/// segments.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Run {
    slot: usize,
    /// MAC of the flow.
    pub mac: u8,
    shape: Shape,
    /// Offset of a segment's payload (its headers' length).
    off: usize,
    /// What the next segment must carry.
    next: Next,
    /// Storage offset of the slot.
    base: usize,
    /// Storage offset where the next payload goes.
    dst: usize,
    /// More full-size segments the aggregate takes.
    room: u16,
    /// Segments the run took.
    pub frames: u64,
    /// Their frame bytes (as received).
    pub bytes: u64,
    /// Little-endian sum of their TCP headers.
    hsum: u64,
}

/// A segment a run takes: `n` bytes from offset `src` of the frame go to storage offset `dst`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Take {
    /// First byte to copy from the frame.
    pub src: usize,
    /// Where it goes in the storage.
    dst: usize,
    /// Bytes to copy.
    pub n: usize,
    /// The frame's length.
    len: usize,
    /// Its TSval.
    tsval: u32,
    /// Little-endian sum of its TCP header.
    hsum: u64,
}

impl Run {
    /// Takes the segment of `t`, its bytes copied; whether the aggregate is now full.
    #[inline(always)]
    pub(crate) fn commit(&mut self, t: &Take) -> bool {
        self.room = self.room.saturating_sub(1);
        self.dst = t.dst + t.n;
        self.next.seq = self.next.seq.wrapping_add(self.next.size as u32);
        self.next.id = self.next.id.wrapping_add(1);
        self.next.tsval = t.tsval;
        self.frames += 1;
        self.bytes += t.len as u64;
        self.hsum += t.hsum;
        self.room == 0
    }
}

impl SoftLro<'_> {
    /// A run over the aggregate of the most recently used flow, when its fast path applies and
    /// it has room. (With none held, the flow's next aggregate starts through `fast::plan`.)
    pub(crate) fn run_begin(&self) -> Option<Run> {
        let slot = self.table.mru % MAX_FLOWS;
        let f = &self.table.flows[slot];
        if self.forwarding || f.expect.shape == Shape::Other || !f.held() || f.room == 0 {
            return None;
        }
        let base = slot * self.table.slot_size;
        Some(Run {
            slot,
            mac: f.mac,
            shape: f.expect.shape,
            off: f.tcp_off + f.tcp_hlen,
            next: Next::of(f),
            base,
            dst: base + f.len,
            room: f.room,
            frames: 0,
            bytes: 0,
            hsum: 0,
        })
    }

    /// Whether the frame of `len` bytes with headers `h` is the run's predicted next segment;
    /// what to copy where if it is. Changes nothing.
    #[inline(always)]
    pub(crate) fn run_take(
        &self,
        r: &Run,
        mac: u8,
        checksum: RxChecksum,
        h: &[u8; MAX_HDR],
        len: usize,
    ) -> Option<Take> {
        if checksum != RxChecksum::Verified || mac != r.mac {
            return None;
        }
        let e = &self.table.flows[r.slot % MAX_FLOWS].expect;
        let (tsval, hsum) = match r.shape {
            Shape::Known(0) => fast::exact::<14, false, false>(e, &r.next, h, len),
            Shape::Known(1) => fast::exact::<18, false, false>(e, &r.next, h, len),
            Shape::Known(2) => fast::exact::<14, true, false>(e, &r.next, h, len),
            Shape::Known(3) => fast::exact::<18, true, false>(e, &r.next, h, len),
            Shape::Known(4) => fast::exact::<14, false, true>(e, &r.next, h, len),
            Shape::Known(5) => fast::exact::<18, false, true>(e, &r.next, h, len),
            Shape::Known(6) => fast::exact::<14, true, true>(e, &r.next, h, len),
            Shape::Known(7) => fast::exact::<18, true, true>(e, &r.next, h, len),
            _ => None,
        }?;
        Some(Take { src: r.off, dst: r.dst, n: r.next.size, len, tsval, hsum })
    }

    /// Where the bytes of `t` go (the caller copies them there); `None` (never for a run of a
    /// held aggregate with room) when they would not fit the storage.
    #[inline(always)]
    pub(crate) fn run_room(&mut self, t: &Take) -> Option<&mut [u8]> {
        self.table.bytes(t.dst, t.n)
    }

    /// Ends run `r`: writes its state back to its flow (each taken segment with the caller's
    /// `tag`), and delivers the aggregate to `out` when it is full.
    pub(crate) fn run_end<F: FnMut(RxFrame<'_>, u64) + ?Sized>(&mut self, r: Run, tag: u64, out: &mut F) {
        if r.frames == 0 {
            return;
        }
        let f = &mut self.table.flows[r.slot % MAX_FLOWS];
        f.len = r.dst - r.base;
        f.segs += r.frames as u16;
        f.fast_hsum += r.hsum;
        (f.room, f.next_seq, f.next_id, f.tsval, f.tag) = (r.room, r.next.seq, r.next.id, r.next.tsval, tag);
        if r.room == 0 {
            let reason = rules::limit_reason(f);
            self.close(r.slot, reason, out);
        }
    }
}
