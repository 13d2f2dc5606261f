//! Runs: the fast path's tier 1 over consecutive segments joining one held aggregate, with its
//! state held by the caller (the driver's poll loop) instead of the flow table and written back
//! once when the run ends (the aggregate is full, another frame comes between, or the poll
//! ends). The decisions are `fast::plan`'s tier 1 (`fast::exact`), segment by segment; only the
//! bookkeeping moves out of the table.

use super::SoftLro;
use super::fast::{self, Expect, MAX_HDR, Next, Shape};
use super::rules;
use super::table::MAX_FLOWS;
use crate::rx::RxFrame;

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
    /// Little-endian sum of their TCP headers but the words the prediction fixes.
    hsum: u64,
}

impl Run {
    /// The header layout of the run's flow (the poll loop's lane is specialised for it).
    pub(crate) fn shape(&self) -> Shape {
        self.shape
    }

    /// Frame bytes the run took (every segment it takes is exactly headers + the head's size).
    pub(crate) fn bytes(&self) -> u64 {
        self.frames * (self.off + self.next.size) as u64
    }

    /// Whether the frame of `len` bytes with headers `h` (layout `L2`/`V6`/`TS`, the run's
    /// shape) is exactly the run's predicted next segment, by the prediction `e` of its flow
    /// (see [`SoftLro::lane`]); its TSval and the sum of its TCP header's changing words if it
    /// is. A padded or longer frame is not: the run counts bytes from its segment count.
    #[inline(always)]
    pub(crate) fn check<const L2: usize, const V6: bool, const TS: bool>(
        &self,
        e: &Expect,
        h: &[u8; MAX_HDR],
        len: usize,
    ) -> Option<(u32, u64)> {
        if len != self.off + self.next.size {
            return None;
        }
        fast::exact::<L2, V6, TS>(e, &self.next, h)
    }

    /// Storage bytes the next segment's payload goes to (from the end of its frame's headers).
    #[inline(always)]
    pub(crate) fn dst(&self) -> core::ops::Range<usize> {
        self.dst..self.dst + self.next.size
    }

    /// Takes the segment [`Run::check`] passed (TSval `tsval`, header sum `hsum`), its payload
    /// copied to [`Run::dst`]; whether the aggregate is now full.
    #[inline(always)]
    pub(crate) fn commit(&mut self, tsval: u32, hsum: u64) -> bool {
        self.room = self.room.saturating_sub(1);
        self.dst += self.next.size;
        self.next.seq = self.next.seq.wrapping_add(self.next.size as u32);
        self.next.id = self.next.id.wrapping_add(1);
        self.next.tsval = tsval;
        self.frames += 1;
        self.hsum += hsum;
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
            hsum: 0,
        })
    }

    /// The prediction of run `r`'s flow and the whole aggregate storage, for the poll loop's
    /// lane over `r` (it compares with the one and copies payloads into the other).
    #[inline(always)]
    pub(crate) fn lane(&mut self, r: &Run) -> (&Expect, &mut [u8]) {
        self.table.lane(r.slot)
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
        f.fast_hsum += r.hsum + r.frames * f.expect.k_sum;
        (f.room, f.next_seq, f.next_id, f.tsval, f.tag) = (r.room, r.next.seq, r.next.id, r.next.tsval, tag);
        if r.room == 0 {
            let reason = rules::limit_reason(f);
            self.close(r.slot, reason, out);
        }
    }
}
