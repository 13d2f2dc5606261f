//! PDMA RX ring 0: NAPI-style polling with a budget, an RX checksum verdict per frame, and
//! refilling each descriptor as soon as its frame is copied out.
//!
//! Frames go to the sink one by one in ring order, then the aggregates of the hardware LRO rings
//! (where the SoC has them). [`Eth::poll_coalesced`] puts SoftLRO between the rings and the sink
//! as the `lro` feature says, and flushes it when the ring is drained (as GRO does).

use crate::desc::{RX_WORDS, RxCodec};
use crate::eth::RX_RING;
use crate::eth::{BUF_SIZE, Eth, LroMode};
use crate::frame::{RxChecksum, RxFrame};
use crate::handles::EthRx;
use crate::platform::Platform;
use crate::ring::mem::{DescAccess, DescMem};
use crate::ring::rx::{Cursor, Geometry};
use crate::rx_lane::LaneExit;
use crate::softlro::SoftLro;
use crate::softlro::run::Run;
use fe_regs::descriptors::{DescriptorLayout, RxV1, RxV2};

/// Bytes of a frame read before SoftLRO decides on it: more than the fast path's headers.
const HEAD: usize = 128;

/// A filled descriptor of ring 0 holding a good frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Filled {
    /// Physical address of its buffer.
    pub(crate) buf: u64,
    /// Its length.
    pub(crate) len: usize,
    /// MAC it arrived on.
    pub(crate) mac: u8,
    /// Its checksum verdict.
    pub(crate) checksum: RxChecksum,
}

impl<P: Platform> Eth<P> {
    /// [`EthRx::poll`] on the whole engine.
    #[inline(always)]
    pub fn poll(&mut self, budget: usize, sink: &mut dyn FnMut(RxFrame<'_>)) -> usize {
        self.rx_handle().poll(budget, sink)
    }

    /// [`EthRx::poll_coalesced`] on the whole engine.
    #[inline(always)]
    pub fn poll_coalesced(&mut self, budget: usize, lro: &mut SoftLro<'_>, sink: &mut dyn FnMut(RxFrame<'_>)) -> usize {
        self.rx_handle().poll_coalesced(budget, lro, sink)
    }

    /// At close, with RX DMA off: counts frames received but not polled as dropped and takes
    /// every buffer back. Returns how many frames were dropped.
    pub(crate) fn rx_teardown(&mut self) -> Result<u64, crate::platform::DmaError> {
        let dropped = self.rx.teardown(&self.p)?;
        self.shared.stats.drops.rx_teardown.add(dropped);
        Ok(dropped)
    }
}

impl<P: Platform> EthRx<'_, P> {
    /// Handles up to `budget` received frames in ring order: copies each out to `sink` with its
    /// checksum verdict (the descriptor's L4-valid bit is trusted only while RX checksum is on),
    /// gives the descriptor back to the DMA, and moves the CPU index. Returns how many
    /// descriptors it consumed (frames delivered plus frames dropped); less than `budget` means
    /// the ring is empty.
    pub fn poll(&mut self, budget: usize, sink: &mut dyn FnMut(RxFrame<'_>)) -> usize {
        let done = match self.rx_layout {
            DescriptorLayout::RxV2 => self.ring0::<RxV2>(budget, |eth, f| eth.deliver(f, sink)),
            _ => self.ring0::<RxV1>(budget, |eth, f| eth.deliver(f, sink)),
        };
        done + self.poll_lro(budget - done, sink)
    }

    /// [`Eth::poll`] with receive coalescing as the `lro` feature says: off, every frame goes
    /// to `sink` as received; `soft`, ring-0 frames pass through `lro` (SoftLRO); `hw`, the
    /// hardware's aggregates go up as they are and ring-0 frames pass through `lro`. Nothing
    /// is merged while the interface
    /// forwards ([`Eth::set_forwarding`]). A segment SoftLRO's fast path takes is copied once,
    /// from its DMA buffer straight to the end of its aggregate.
    ///
    /// Held aggregates are flushed when this poll drains ring 0 (returns less than `budget`);
    /// after a poll that used the whole budget they stay held for the next poll, up to the
    /// SoftLRO flush timeout (measured with [`crate::Clock::now_ns`]). A caller that stops
    /// polling after a full-budget poll calls [`SoftLro::flush`] (or polls until the ring drains).
    pub fn poll_coalesced(&mut self, budget: usize, lro: &mut SoftLro<'_>, sink: &mut dyn FnMut(RxFrame<'_>)) -> usize {
        if self.sh.features().lro == LroMode::Off || self.sh.forwarding() {
            // What an earlier poll held goes first.
            if lro.held() != 0 {
                lro.flush(sink);
            }
            return self.poll(budget, sink);
        }
        let done = self.ring0_soft(budget, lro, sink);
        done + self.poll_lro(budget - done, sink)
    }

    /// Ring 0 through SoftLRO for [`Eth::poll_coalesced`]. As GRO, aggregates are held across a
    /// poll that used its whole budget (another follows at once), up to the flush timeout; they
    /// are flushed when ring 0 is drained, and before the LRO rings' aggregates.
    #[inline(never)]
    fn ring0_soft(&mut self, budget: usize, lro: &mut SoftLro<'_>, sink: &mut dyn FnMut(RxFrame<'_>)) -> usize {
        lro.poll_begin(self.p);
        let done = match self.rx_layout {
            DescriptorLayout::RxV2 => self.ring0_coalesced::<RxV2>(budget, lro, sink),
            _ => self.ring0_coalesced::<RxV1>(budget, lro, sink),
        };
        lro.poll_end(self.p, done < budget || self.sh.features().lro == LroMode::Hw, sink);
        done
    }

    /// Ring 0 in layout `C`: hands each good frame's buffer to `frame`.
    #[inline(always)]
    pub(crate) fn ring0<C: RxCodec>(&mut self, budget: usize, mut frame: impl FnMut(&mut Self, Filled)) -> usize {
        let Some(mut cur) = self.ring0_begin(budget) else { return 0 };
        // Ring 0 in DMA memory with its size as a constant: no per-frame decision in the loop.
        match self.rx.geometry_of::<RX_RING, BUF_SIZE>() {
            Some(g) => while cur.done < budget && self.ring0_step::<C, _>(g, &mut cur, &mut frame) {},
            None => {
                let g = self.rx.geometry();
                while cur.done < budget && self.ring0_step::<C, DescMem>(g, &mut cur, &mut frame) {}
            }
        }
        self.ring0_end(cur)
    }

    /// [`EthRx::ring0`] through SoftLRO. The run over the most recently used flow's aggregate
    /// lives here, between frames (see `softlro/run.rs`): while frames continue it, the lane
    /// specialised for its header layout takes them (`rx_lane.rs`); any other frame goes
    /// through [`EthRx::deliver_coalesced`], which ends the run and may begin the next.
    #[inline(always)]
    fn ring0_coalesced<C: RxCodec>(
        &mut self,
        budget: usize,
        lro: &mut SoftLro<'_>,
        sink: &mut dyn FnMut(RxFrame<'_>),
    ) -> usize {
        match self.rx.geometry_of::<RX_RING, BUF_SIZE>() {
            Some(g) => self.ring0_coalesced_in::<C, _>(g, budget, lro, sink),
            None => self.ring0_coalesced_in::<C, DescMem>(self.rx.geometry(), budget, lro, sink),
        }
    }

    /// [`EthRx::ring0_coalesced`] through ring 0's geometry `g`.
    #[inline(always)]
    fn ring0_coalesced_in<C: RxCodec, A: DescAccess>(
        &mut self,
        g: Geometry<A>,
        budget: usize,
        lro: &mut SoftLro<'_>,
        sink: &mut dyn FnMut(RxFrame<'_>),
    ) -> usize {
        let Some(mut cur) = self.ring0_begin(budget) else { return 0 };
        let mut run = lro.run_begin();
        while cur.done < budget {
            if let Some(r) = run.as_mut() {
                match self.lane::<C>(lro, r, &mut cur, budget) {
                    LaneExit::Full => {
                        let full = *r;
                        self.end_run(lro, full, sink);
                        run = lro.run_begin();
                        continue;
                    }
                    LaneExit::Stop => break,
                    LaneExit::Other => {}
                }
            }
            if !self
                .ring0_step::<C, A>(g, &mut cur, &mut |eth: &mut Self, f| eth.deliver_coalesced(lro, &mut run, f, sink))
            {
                break;
            }
        }
        if let Some(r) = run {
            self.end_run(lro, r, sink);
        }
        self.ring0_end(cur)
    }

    /// Starts a poll of ring 0 (acknowledges its interrupt): where it is, unless the interface
    /// is closed or the budget is 0.
    #[inline(always)]
    pub(crate) fn ring0_begin(&mut self, budget: usize) -> Option<Cursor> {
        if !self.open || budget == 0 {
            return None;
        }
        self.soc.fe.bind(&self.p.fe()).pdma().irq_status().write(|v| v.clear_rx_done());
        self.trust_csum = self.sh.rx_checksum();
        Some(self.rx.begin())
    }

    /// Handles the next descriptor of ring 0, handing a good frame to `frame`; false when the
    /// ring is empty (or unreadable) there.
    #[inline(always)]
    pub(crate) fn ring0_step<C: RxCodec, A: DescAccess>(
        &mut self,
        g: Geometry<A>,
        cur: &mut Cursor,
        frame: &mut impl FnMut(&mut Self, Filled),
    ) -> bool {
        let Some(f) = self.ring0_read_in::<C, A>(g, cur) else { return false };
        if let Some(f) = f {
            frame(self, f);
        }
        if !self.rx.refill_via::<C, P, A>(g, self.p, cur) {
            self.sh.stats.drops.rx_dma_error.add(1);
        }
        true
    }

    /// Reads the descriptor at `cur` through ring 0's geometry `g` (not consuming it): `None`
    /// when the ring is empty (or unreadable) there, `Some(None)` for a descriptor to drop
    /// (counted), else its good frame.
    #[inline(always)]
    pub(crate) fn ring0_read_in<C: RxCodec, A: DescAccess>(
        &mut self,
        g: Geometry<A>,
        cur: &Cursor,
    ) -> Option<Option<Filled>> {
        let mut w = [0u32; RX_WORDS];
        match g.read::<C, P>(self.p, cur, &mut w) {
            Ok(true) => {}
            Ok(false) => return None,
            Err(_) => {
                self.sh.stats.drops.rx_dma_error.add(1);
                return None;
            }
        }
        let d = C::decode(&w);
        let len = usize::from(d.len);
        if !d.last || len.wrapping_sub(1) >= BUF_SIZE {
            self.sh.stats.drops.rx_bad_descriptor.add(1);
        } else if let Some(mac) = self.rx_mac(d.src_port) {
            let checksum = RxChecksum::from_verified(self.trust_csum && d.l4_valid);
            return Some(Some(Filled { buf: self.rx.buf_addr(cur.i), len, mac, checksum }));
        } else {
            self.sh.stats.drops.rx_bad_port.add(1);
        }
        Some(None)
    }

    /// Ends a poll of ring 0 at `cur`: publishes the refilled descriptors and tells the DMA how
    /// far the CPU got. Returns how many descriptors the poll consumed.
    #[inline(always)]
    pub(crate) fn ring0_end(&mut self, cur: Cursor) -> usize {
        self.rx.publish(self.p, cur)
    }

    /// Copies the frame out and hands it to `sink`.
    #[inline(always)]
    pub(crate) fn deliver(&mut self, f: Filled, sink: &mut dyn FnMut(RxFrame<'_>)) {
        let Some(data) = self.scratch.get_mut(..f.len) else { return };
        if self.p.dma_read(f.buf, data).is_err() {
            self.sh.stats.drops.rx_dma_error.add(1);
            return;
        }
        self.sh.stats.count_rx(f.mac, f.len, f.checksum);
        sink(RxFrame::new(f.mac, data, f.checksum));
    }

    /// Offers a frame the run did not take to SoftLRO: reads its headers, ends the run, offers
    /// the frame to the fast path (copying only what it takes straight into the aggregate) or
    /// SoftLRO whole, and begins a new run.
    #[inline(never)]
    fn deliver_coalesced(
        &mut self,
        lro: &mut SoftLro<'_>,
        run: &mut Option<Run>,
        f: Filled,
        sink: &mut dyn FnMut(RxFrame<'_>),
    ) {
        if let Some(r) = run.take() {
            self.end_run(lro, r, sink);
        }
        self.offer(lro, f, sink);
        *run = lro.run_begin();
    }

    /// [`EthRx::deliver_coalesced`] without the run.
    #[inline(always)]
    fn offer(&mut self, lro: &mut SoftLro<'_>, f: Filled, sink: &mut dyn FnMut(RxFrame<'_>)) {
        let h = f.len.min(HEAD);
        let (head, rest) = self.scratch.split_at_mut(HEAD);
        if self.p.dma_read(f.buf, head.get_mut(..h).unwrap_or_default()).is_err() {
            self.sh.stats.drops.rx_dma_error.add(1);
            return;
        }
        // Bytes of the head past the frame are stale; the fast path looks only inside the frame.
        let Some(first) = head.first_chunk() else { return };
        if let Some(plan) = lro.fast_plan(f.mac, f.checksum, first, f.len) {
            if self.p.dma_read(f.buf + plan.off as u64, lro.fast_room(&plan)).is_err() {
                self.sh.stats.drops.rx_dma_error.add(1);
                return;
            }
            self.sh.stats.count_rx(f.mac, f.len, f.checksum);
            lro.fast_commit(&plan, 0, &mut |o, _| sink(o));
        } else if f.len > h && self.p.dma_read(f.buf + h as u64, rest.get_mut(..f.len - h).unwrap_or_default()).is_err()
        {
            self.sh.stats.drops.rx_dma_error.add(1);
        } else {
            self.sh.stats.count_rx(f.mac, f.len, f.checksum);
            let data = self.scratch.get(..f.len).unwrap_or_default();
            lro.push(RxFrame::new(f.mac, data, f.checksum), sink);
        }
    }

    /// Ends run `r` (its segments counted as received here), delivering its aggregate when full.
    #[inline(never)]
    fn end_run(&mut self, lro: &mut SoftLro<'_>, r: Run, sink: &mut dyn FnMut(RxFrame<'_>)) {
        self.sh.stats.count_rx_many(r.mac, r.frames, r.bytes(), RxChecksum::Verified);
        lro.run_end(r, 0, &mut |o, _| sink(o));
    }

    /// The PSE port the frames of MAC `mac` arrive from while it is enabled (the inverse of
    /// [`EthRx::rx_mac`]: GDMA n is PSE port n + 1).
    #[inline(always)]
    pub(crate) fn rx_port_of(&self, mac: u8) -> Option<u8> {
        let port = usize::from(mac) + 1;
        (self.rx_port.get(port) == Some(&mac)).then_some(port as u8)
    }

    /// The enabled MAC a frame from PSE source port `src_port` arrived on, if any.
    #[inline(always)]
    pub(crate) fn rx_mac(&self, src_port: u8) -> Option<u8> {
        crate::eth::port_mac(&self.rx_port, src_port)
    }
}
