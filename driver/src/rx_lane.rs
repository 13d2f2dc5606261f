//! The poll loop's lane over a SoftLRO run: ring-0 frames that are each exactly the run's
//! predicted next segment, in a loop specialised for the descriptor layout and the flow's header
//! layout, with the run's state in locals.
//!
//! A frame the lane does not take (another flow, a moved field, a bad or unverified descriptor,
//! a read the platform refused) is left where it is, its descriptor not consumed, and the
//! general path (`rx.rs`) handles it from the start; so the lane decides nothing the general
//! path would decide differently, and counts nothing but a payload read that fails after the
//! frame was taken.

use crate::desc::{RX_WORDS, RxCodec};
use crate::eth::{BUF_SIZE, RX_RING};
use crate::handles::EthRx;
use crate::platform::Platform;
use crate::ring::mem::InDma;
use crate::ring::rx::{Cursor, Geometry};
use crate::softlro::SoftLro;
use crate::softlro::fast::{MAX_HDR, Shape};
use crate::softlro::run::Run;

/// Why the lane stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaneExit {
    /// The run's aggregate is full.
    Full,
    /// The ring is empty there, or the budget is spent.
    Stop,
    /// The next frame is not the run's: the general path takes it.
    Other,
}

impl<P: Platform> EthRx<'_, P> {
    /// Takes ring-0 frames in layout `C` into run `r` while each is its predicted next segment
    /// and the budget lasts.
    #[inline(always)]
    pub(crate) fn lane<C: RxCodec>(
        &mut self,
        lro: &mut SoftLro<'_>,
        r: &mut Run,
        cur: &mut Cursor,
        budget: usize,
    ) -> LaneExit {
        match r.shape() {
            Shape::Known(0) => self.lane_in::<C, 14, false, false>(lro, r, cur, budget),
            Shape::Known(1) => self.lane_in::<C, 18, false, false>(lro, r, cur, budget),
            Shape::Known(2) => self.lane_in::<C, 14, true, false>(lro, r, cur, budget),
            Shape::Known(3) => self.lane_in::<C, 18, true, false>(lro, r, cur, budget),
            Shape::Known(4) => self.lane_in::<C, 14, false, true>(lro, r, cur, budget),
            Shape::Known(5) => self.lane_in::<C, 18, false, true>(lro, r, cur, budget),
            Shape::Known(6) => self.lane_in::<C, 14, true, true>(lro, r, cur, budget),
            Shape::Known(7) => self.lane_in::<C, 18, true, true>(lro, r, cur, budget),
            _ => LaneExit::Other,
        }
    }

    /// [`EthRx::lane`] for headers of `L2` Ethernet bytes, IPv6 or IPv4, with or without
    /// timestamps.
    #[inline(never)]
    fn lane_in<C: RxCodec, const L2: usize, const V6: bool, const TS: bool>(
        &mut self,
        lro: &mut SoftLro<'_>,
        r: &mut Run,
        cur: &mut Cursor,
        budget: usize,
    ) -> LaneExit {
        let off = L2 + if V6 { 40 } else { 20 } + if TS { 32 } else { 20 };
        let size = r.seg_size();
        // Only frames the hardware verified join without a software checksum, and only from
        // the PSE port of the run's MAC.
        let Some(port) = self.rx_port_of(r.mac).filter(|_| self.sh.rx_checksum() && size > 0) else {
            return LaneExit::Other;
        };
        let frame = C::verified_frame((off + size) as u16, port);
        let (e, storage) = lro.lane(r);
        let mut pred = r.pred::<L2, V6, TS>(e);
        // A fresh run's first segment goes whole to the slot's start; the rest of the room is
        // one payload after another.
        let head_end = r.head_bytes().map_or(0, |h| h.end);
        let Some((head, room)) = storage.get_mut(..r.room_bytes().end).map(|s| s.split_at_mut(head_end)) else {
            return LaneExit::Other;
        };
        let mut head = r.head_bytes().and_then(|h| head.get_mut(h));
        let Some(room) = room.get_mut(r.room_bytes().start.max(head_end) - head_end..) else {
            return LaneExit::Other;
        };
        let mut slots = room.chunks_exact_mut(size);
        let (mut c, mut taken) = (*cur, 0);
        let mut h = [0u8; MAX_HDR];
        let mut w = [0u32; RX_WORDS];
        let Some(g) = self.rx.geometry_of::<RX_RING, BUF_SIZE>() else { return LaneExit::Other };
        let exit = loop {
            if c.done >= budget {
                break LaneExit::Stop;
            }
            // The done bit first, then (after the read barrier) the rest of the descriptor.
            let got = g.read::<C, P>(self.p, &c, &mut w);
            if got != Ok(true) {
                break if got.is_ok() { LaneExit::Stop } else { LaneExit::Other };
            }
            // One whole frame of the run's segment length, from its port, verified.
            if w.iter().zip(C::FRAME).zip(frame).any(|((w, m), f)| w & m != f) {
                break LaneExit::Other;
            }
            let buf = self.rx.buf_addr(c.i);
            // Header bytes past `off` stay from earlier frames; the compare masks them.
            if self.p.dma_read(buf, h.get_mut(..off).unwrap_or_default()).is_err() || !pred.matches::<L2, V6, TS>(&h) {
                break LaneExit::Other;
            }
            // The head (when the run starts the aggregate) goes whole, the rest as payloads.
            let (src, dst) = match head.take() {
                Some(d) => (buf, d),
                None => match slots.next() {
                    Some(d) => (buf + off as u64, d),
                    None => break LaneExit::Other,
                },
            };
            if self.p.dma_read(src, dst).is_err() {
                // Taken off the ring but not copied: dropped and counted; the run ends here so
                // the aggregate stays contiguous.
                self.sh.stats.drops.rx_dma_error.add(1);
                self.lane_refill::<C>(g, &mut c);
                break LaneExit::Other;
            }
            pred.advance::<L2, V6, TS>(&h, size);
            taken += 1;
            self.lane_refill::<C>(g, &mut c);
            if slots.len() == 0 {
                break LaneExit::Full;
            }
        };
        *cur = c;
        let full = r.take(&pred, taken);
        if full { LaneExit::Full } else { exit }
    }

    /// Hands the descriptor at `c` back to the DMA through the lane's view of ring 0.
    #[inline(always)]
    fn lane_refill<C: RxCodec>(&mut self, g: Geometry<InDma>, c: &mut Cursor) {
        let i = c.i;
        if !g.refill::<C, P>(self.p, c) {
            self.rx.lost(i);
            self.sh.stats.drops.rx_dma_error.add(1);
        }
    }
}
