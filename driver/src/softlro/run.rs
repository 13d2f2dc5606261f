//! Runs: the fast path's tier 1 over consecutive segments joining one held aggregate, with its
//! state held by the caller (the driver's poll loop and its lane, `rx_lane.rs`) instead of the
//! flow table and written back once when the run ends (the aggregate is full, another frame
//! comes between, or the poll ends). The lane decides by tier 1's rules (`fast::exact`), made
//! by one masked compare: its prediction ([`Pred`]) is the flow's with the next sequence number
//! and IPv4 ID (where DF is clear) written in and under the mask, and only TSval is checked on
//! its own. `fast::exact` checks the same fields one by one for the general path, which has no
//! run to keep a prediction in; the driver tests hold both to the same refusals.

use super::SoftLro;
use super::fast::{self, Expect, Hdr, MAX_HDR, Next, Shape};
use super::rules;
use super::table::MAX_FLOWS;
use crate::frame::RxFrame;

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
    /// The flow holds no aggregate: the run's first segment starts the next one, copied whole
    /// to the slot's start (its payload where [`Run::room_bytes`] begins).
    fresh: bool,
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

    /// Where the run's first segment goes whole (headers and payload), when it starts the
    /// aggregate ([`Run::room_bytes`] then begins with its payload).
    #[inline(always)]
    pub(crate) fn head_bytes(&self) -> Option<core::ops::Range<usize>> {
        (self.fresh && self.frames == 0).then(|| self.base..self.dst + self.next.size)
    }

    /// Payload bytes of each segment the run takes.
    #[inline(always)]
    pub(crate) fn seg_size(&self) -> usize {
        self.next.size
    }

    /// Storage bytes the rest of the aggregate's room takes: one segment's payload after
    /// another.
    #[inline(always)]
    pub(crate) fn room_bytes(&self) -> core::ops::Range<usize> {
        self.dst..self.dst + usize::from(self.room) * self.next.size
    }

    /// The lane's prediction for headers of layout `L2`/`V6`/`TS` (the run's shape), from its
    /// flow's prediction `e` (see [`SoftLro::lane`]).
    #[inline(always)]
    pub(crate) fn pred<const L2: usize, const V6: bool, const TS: bool>(&self, e: &Expect) -> Pred {
        let id_live = !V6 && !self.next.df;
        let (seq, id, tsval) = (self.next.seq, self.next.id, self.next.tsval);
        let mut p = Pred { want: e.want, mask: e.exact, seq, id, id_live, tsval, hsum: 0 };
        p.mask.put(L2 + if V6 { 40 } else { 20 } + 4, &[0xff; 4]);
        if id_live {
            p.mask.put(L2 + 4, &[0xff; 2]);
        }
        p.write::<L2, V6>();
        p
    }

    /// Takes the `taken` segments the lane's prediction `p` passed (their payloads copied to
    /// the first [`Run::room_bytes`]); whether the aggregate is now full.
    #[inline(always)]
    pub(crate) fn take(&mut self, p: &Pred, taken: usize) -> bool {
        self.room = self.room.saturating_sub(taken as u16);
        self.dst += taken * self.next.size;
        (self.next.seq, self.next.tsval) = (p.seq, p.tsval);
        // With DF set the ID is free; it still moves on by one per segment, as the flow's does.
        self.next.id = self.next.id.wrapping_add(taken as u16);
        self.frames += taken as u64;
        self.hsum += p.hsum;
        self.room == 0
    }
}

/// What the lane compares each frame's headers with: the flow's prediction with the run's next
/// sequence number (and IPv4 ID where DF is clear) written in and under the mask, so one masked
/// compare checks every header byte but the checksums and TSval.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pred {
    want: Hdr,
    mask: Hdr,
    /// Sequence number of the next segment.
    seq: u32,
    /// Its IPv4 ID where DF is clear.
    id: u16,
    /// The ID is under the mask (IPv4 with DF clear): it moves on with each segment.
    id_live: bool,
    /// TSval it must not be older than.
    tsval: u32,
    /// Little-endian sum of the taken segments' TCP header words the flow's prediction does
    /// not fix (see `fast::exact`).
    hsum: u64,
}

impl Pred {
    /// Writes the next sequence number and ID into the predicted headers.
    #[inline(always)]
    fn write<const L2: usize, const V6: bool>(&mut self) {
        self.want.put(L2 + if V6 { 40 } else { 20 } + 4, &self.seq.to_be_bytes());
        if self.id_live {
            self.want.put(L2 + 4, &self.id.to_be_bytes());
        }
    }

    /// Whether headers `h` are the next segment's: every byte as predicted but the checksums
    /// and TSval, and TSval not older. (The descriptor's length says the payload is full-size.)
    #[inline(always)]
    pub(crate) fn matches<const L2: usize, const V6: bool, const TS: bool>(&self, h: &[u8; MAX_HDR]) -> bool {
        let t = L2 + if V6 { 40 } else { 20 };
        let off = t + if TS { 32 } else { 20 };
        !fast::differs(h, &self.want, &self.mask, off.div_ceil(16))
            && (!TS || be32(h, t + 24).wrapping_sub(self.tsval) as i32 >= 0)
    }

    /// Moves on past the segment with headers `h` (which [`Pred::matches`]) and `size` bytes of
    /// payload.
    #[inline(always)]
    pub(crate) fn advance<const L2: usize, const V6: bool, const TS: bool>(&mut self, h: &[u8; MAX_HDR], size: usize) {
        let t = L2 + if V6 { 40 } else { 20 };
        let le32 = |at: usize| u64::from(be32(h, at).swap_bytes());
        self.hsum += le32(t + 4) + le32(t + 16) + if TS { le32(t + 24) } else { 0 };
        if TS {
            self.tsval = be32(h, t + 24);
        }
        self.seq = self.seq.wrapping_add(size as u32);
        if self.id_live {
            self.id = self.id.wrapping_add(1);
        }
        self.write::<L2, V6>();
    }
}

/// The big-endian 32-bit word at `at` of `h`.
#[inline(always)]
fn be32(h: &[u8; MAX_HDR], at: usize) -> u32 {
    u32::from_be_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]])
}

impl SoftLro<'_> {
    /// A run over the aggregate of the most recently used flow, when its fast path applies and
    /// it has room. (With none held, the flow's next aggregate starts through `fast::plan`.)
    pub(crate) fn run_begin(&self) -> Option<Run> {
        let slot = self.table.mru % MAX_FLOWS;
        let f = &self.table.flows[slot];
        // A flow holding no aggregate may start its next one with an exactly predicted segment
        // (as `fast::plan`'s restart does), with the room of a new aggregate.
        let (fresh, room) = match (f.held(), f.room0) {
            (true, _) => (false, f.room),
            (false, 0) => (true, 0),
            (false, room0) => (true, room0.saturating_add(1)),
        };
        if self.forwarding || f.expect.shape == Shape::Other || room == 0 {
            return None;
        }
        let base = slot * self.table.slot_size;
        let off = f.tcp_off + f.tcp_hlen;
        Some(Run {
            slot,
            mac: f.mac,
            shape: f.expect.shape,
            off,
            next: Next::of(f),
            base,
            dst: base + if fresh { off } else { f.len },
            room,
            frames: 0,
            hsum: 0,
            fresh,
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
        if r.fresh {
            // The run started the aggregate (as `merge::restart` does for the fast path).
            (f.segs, f.flags_or, f.verified, f.payload_sum, f.fast_hsum) = (0, 0, true, 0, 0);
            (f.slow_segs, f.slow_payload, f.born) = (0, 0, self.table.now);
            self.table.held += 1;
        }
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
