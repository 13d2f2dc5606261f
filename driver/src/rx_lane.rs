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
use crate::eth::Eth;
use crate::platform::Platform;
use crate::rx::Cursor;
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

impl<P: Platform> Eth<P> {
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

    /// [`Eth::lane`] for headers of `L2` Ethernet bytes, IPv6 or IPv4, with or without
    /// timestamps.
    #[inline(never)]
    fn lane_in<C: RxCodec, const L2: usize, const V6: bool, const TS: bool>(
        &mut self,
        lro: &mut SoftLro<'_>,
        r: &mut Run,
        cur: &mut Cursor,
        budget: usize,
    ) -> LaneExit {
        // Only frames the hardware verified join without a software checksum.
        if !self.features.rx_checksum {
            return LaneExit::Other;
        }
        let off = L2 + if V6 { 40 } else { 20 } + if TS { 32 } else { 20 };
        let (e, storage) = lro.lane(r);
        let (mut s, mut c) = (*r, *cur);
        let mut h = [0u8; MAX_HDR];
        let exit = loop {
            if c.done >= budget {
                break LaneExit::Stop;
            }
            let mut w = [0u32; RX_WORDS];
            if self.p.dma_read_words(self.rx.addr(c.i), &mut w).is_err() {
                break LaneExit::Other;
            }
            let d = C::decode(&w);
            if !d.done {
                break LaneExit::Stop;
            }
            // `check` wants the run's exact segment length, so a bad length never passes.
            let len = usize::from(d.len);
            if !d.last || !d.l4_valid || self.rx_mac(d.src_port) != Some(s.mac) {
                break LaneExit::Other;
            }
            let buf = self.rx.buf_addr(c.i);
            // Header bytes past `off` stay from earlier frames; the compare masks them.
            if self.p.dma_read(buf, h.get_mut(..off).unwrap_or_default()).is_err() {
                break LaneExit::Other;
            }
            let Some((tsval, hsum)) = s.check::<L2, V6, TS>(e, &h, len) else { break LaneExit::Other };
            let Some(room) = storage.get_mut(s.dst()) else { break LaneExit::Other };
            let full = if self.p.dma_read(buf + off as u64, room).is_err() {
                // Taken off the ring but not copied: dropped, and counted.
                self.stats.drops.rx_dma_error += 1;
                false
            } else {
                s.commit(tsval, hsum)
            };
            self.ring0_refill::<C>(&mut c);
            if full {
                break LaneExit::Full;
            }
        };
        (*r, *cur) = (s, c);
        exit
    }
}
