//! Zero-copy receive: ring 0's frames go up in the DMA buffers they arrived in.
//!
//! With a platform pool attached ([`Eth::rx_pool_attach`], an [`RxPool`]), each slot of ring 0
//! holds a buffer the pool lent. [`Eth::poll_buffers`] swaps each filled slot's buffer for a
//! fresh one from the pool and hands the filled one to the stack as the platform's own type
//! ([`RxPool::Buf`]: an skb, a page, an index), as Linux's `build_skb` over a page pool and
//! smoltcp's or embassy's RX tokens do. The core reads nothing of the frame: its length,
//! MAC and checksum verdict come from the descriptor. When the pool is empty the frame is
//! dropped (counted in [`crate::stats::Drops::rx_no_buffer`]) and its buffer posted again, so
//! the ring never runs dry.
//!
//! Copying stays: [`Eth::poll`] and [`Eth::poll_coalesced`] work on a pooled ring as on the
//! ring's own buffers (they copy out and post the same buffer again), and [`Eth::poll_buffers`]
//! without a pool copies as [`Eth::poll`] does. SoftLRO keeps its one copy: a segment's payload
//! goes from its DMA buffer straight to the end of its aggregate and the buffer is posted again,
//! so coalescing costs no pool traffic; [`Eth::poll_buffers_coalesced`] is that path for a
//! stack that receives buffers.

use crate::desc::RxCodec;
use crate::error::EthError;
use crate::eth::{BUF_SIZE, Eth, LroMode, RX_RING};
use crate::frame::{RxChecksum, RxFrame};
use crate::handles::EthRx;
use crate::platform::{Platform, RxPool};
use crate::ring::mem::{DescAccess, DescMem};
use crate::ring::rx::{Cursor, Geometry};
use crate::softlro::SoftLro;
use fe_regs::descriptors::{DescriptorLayout, RxV1, RxV2};

/// A received frame in the DMA buffer it arrived in, now the stack's.
#[derive(Debug)]
#[non_exhaustive]
pub struct RxBuffer<B> {
    /// MAC it arrived on.
    pub mac: u8,
    /// Bytes of the frame, from the buffer's start (destination address on, without FCS).
    pub len: usize,
    /// Checksum verdict.
    pub checksum: RxChecksum,
    /// The buffer, as the platform handed it over ([`RxPool::rx_swap`]).
    pub buf: B,
}

/// What a zero-copy poll hands up: a frame in its own buffer, or one the core copied (a
/// coalesced aggregate, a hardware LRO aggregate, any frame while no pool is attached).
#[derive(Debug)]
pub enum Received<'a, B> {
    /// A frame in the DMA buffer it arrived in.
    Buffer(RxBuffer<B>),
    /// A frame the core copied, borrowed for the duration of the sink call.
    Copied(RxFrame<'a>),
}

impl<P: RxPool> Eth<P> {
    /// Lends ring 0 a buffer of the platform's pool per descriptor in place of the ring's own
    /// buffers (given back to the platform now), for [`Eth::poll_buffers`]. Only while closed;
    /// the ring keeps pool buffers until the driver is dropped, which gives them back with
    /// [`crate::DmaMemory::rx_release`]. Nothing changes when the pool cannot lend them all.
    pub fn rx_pool_attach(&mut self) -> Result<(), EthError> {
        if self.open {
            return Err(EthError::AlreadyOpen);
        }
        self.rx.attach_pool(&self.p)?;
        Ok(())
    }

    /// [`EthRx::poll_buffers`] on the whole engine.
    #[inline(always)]
    pub fn poll_buffers(&mut self, budget: usize, sink: &mut dyn FnMut(Received<'_, P::Buf>)) -> usize {
        self.rx_handle().poll_buffers(budget, sink)
    }

    /// [`EthRx::poll_buffers_coalesced`] on the whole engine.
    #[inline(always)]
    pub fn poll_buffers_coalesced(
        &mut self,
        budget: usize,
        lro: &mut SoftLro<'_>,
        sink: &mut dyn FnMut(Received<'_, P::Buf>),
    ) -> usize {
        self.rx_handle().poll_buffers_coalesced(budget, lro, sink)
    }
}

impl<P: RxPool> EthRx<'_, P> {
    /// Handles up to `budget` received frames in ring order as [`EthRx::poll`] does, but hands
    /// each good ring-0 frame to `sink` in its own DMA buffer ([`Received::Buffer`]), putting a
    /// fresh pool buffer in its slot; hardware LRO aggregates are copied
    /// ([`Received::Copied`]). Without a pool attached every frame is copied. Returns how many
    /// descriptors it consumed; less than `budget` means the rings are empty.
    pub fn poll_buffers(&mut self, budget: usize, sink: &mut dyn FnMut(Received<'_, P::Buf>)) -> usize {
        let done = match (self.rx_layout, self.rx.pooled()) {
            (DescriptorLayout::RxV2, true) => self.ring0_buffers::<RxV2>(budget, sink),
            (_, true) => self.ring0_buffers::<RxV1>(budget, sink),
            // Without a pool, as `poll` does (not a call to it: `poll` stays inlined in its caller).
            (layout, false) => {
                let copied: &mut dyn FnMut(RxFrame<'_>) = &mut |f| sink(Received::Copied(f));
                match layout {
                    DescriptorLayout::RxV2 => self.ring0::<RxV2>(budget, |eth, f| eth.deliver(f, copied)),
                    _ => self.ring0::<RxV1>(budget, |eth, f| eth.deliver(f, copied)),
                }
            }
        };
        done + self.poll_lro(budget - done, &mut |f| sink(Received::Copied(f)))
    }

    /// [`EthRx::poll_buffers`] with receive coalescing as the `lro` feature says (see
    /// [`Eth::poll_coalesced`]): with coalescing on, every frame goes through SoftLRO, which
    /// copies each segment's payload once, into its aggregate, and posts the buffer again; with
    /// it off (or while forwarding), frames go up in their own buffers.
    pub fn poll_buffers_coalesced(
        &mut self,
        budget: usize,
        lro: &mut SoftLro<'_>,
        sink: &mut dyn FnMut(Received<'_, P::Buf>),
    ) -> usize {
        if self.sh.features().lro == LroMode::Off || self.sh.forwarding() {
            return self.poll_buffers(budget, sink);
        }
        self.poll_coalesced(budget, lro, &mut |f| sink(Received::Copied(f)))
    }

    /// Ring 0 in layout `C`, handing each good frame up in its buffer.
    #[inline(always)]
    fn ring0_buffers<C: RxCodec>(&mut self, budget: usize, sink: &mut dyn FnMut(Received<'_, P::Buf>)) -> usize {
        let Some(mut cur) = self.ring0_begin(budget) else { return 0 };
        let mut tally = Tally::new();
        // Ring 0's geometry with its size as a constant, so that the ring arithmetic folds.
        match self.rx.geometry_of::<RX_RING, BUF_SIZE>() {
            Some(g) => while cur.done < budget && self.ring0_buffer_step::<C, _>(g, &mut cur, &mut tally, sink) {},
            None => {
                let g = self.rx.geometry();
                while cur.done < budget && self.ring0_buffer_step::<C, DescMem>(g, &mut cur, &mut tally, sink) {}
            }
        }
        tally.flush(&self.sh.stats);
        self.ring0_end(cur)
    }

    /// The next descriptor of ring 0: a good frame goes up in its buffer when the pool has a
    /// fresh one to post in its place (else it is dropped and counted, its buffer posted again);
    /// any other descriptor is handled as [`Eth::poll`] does. False when the ring is empty (or
    /// unreadable) there.
    #[inline(always)]
    fn ring0_buffer_step<C: RxCodec, A: DescAccess>(
        &mut self,
        g: Geometry<A>,
        cur: &mut Cursor,
        tally: &mut Tally,
        sink: &mut dyn FnMut(Received<'_, P::Buf>),
    ) -> bool {
        let Some(f) = self.ring0_read_in::<C, A>(g, cur) else { return false };
        let Some(f) = f else {
            self.refill_same::<C, A>(g, cur);
            return true;
        };
        // The ring's buffers are the pool's, whose addresses are 32-bit.
        let Some((fresh, buf)) = self.p.rx_swap(f.buf as u32, f.len) else {
            self.sh.stats.drops.rx_no_buffer.add(1);
            self.refill_same::<C, A>(g, cur);
            return true;
        };
        if !self.rx.refill_with::<C, P, A>(g, self.p, cur, fresh) {
            self.sh.stats.drops.rx_dma_error.add(1);
        }
        tally.add(f.mac, f.len, f.checksum);
        sink(Received::Buffer(RxBuffer { mac: f.mac, len: f.len, checksum: f.checksum, buf }));
        true
    }

    /// Hands the descriptor at `cur` back to the DMA with the buffer it has (a frame dropped).
    #[inline(always)]
    fn refill_same<C: RxCodec, A: DescAccess>(&mut self, g: Geometry<A>, cur: &mut Cursor) {
        let i = cur.i;
        if !g.refill::<C, P>(self.p, cur) {
            self.rx.lost(i);
            self.sh.stats.drops.rx_dma_error.add(1);
        }
    }
}

/// Slots of a [`Tally`]: one per MAC id a descriptor's port can map to (ids are masked into
/// it, so counting needs no bounds check).
const TALLY_SLOTS: usize = 8;

/// Frames a poll handed up, per MAC, counted into the statistics once at the end of the poll
/// (one update per MAC and poll, and no branch per frame).
struct Tally {
    /// Frames per MAC.
    frames: [u64; TALLY_SLOTS],
    /// Their bytes.
    bytes: [u64; TALLY_SLOTS],
    /// Those of them checksum-verified.
    verified: [u64; TALLY_SLOTS],
}

impl Tally {
    /// Nothing counted yet.
    #[inline(always)]
    fn new() -> Self {
        Tally { frames: [0; TALLY_SLOTS], bytes: [0; TALLY_SLOTS], verified: [0; TALLY_SLOTS] }
    }

    /// One frame of `len` bytes on MAC `mac` with verdict `checksum`.
    #[inline(always)]
    fn add(&mut self, mac: u8, len: usize, checksum: RxChecksum) {
        let m = usize::from(mac) % TALLY_SLOTS;
        self.frames[m] += 1;
        self.bytes[m] += len as u64;
        self.verified[m] += checksum.verified_count();
    }

    /// Counts the frames in `stats`.
    #[inline(never)]
    fn flush(&self, stats: &crate::stats::StatCells) {
        for (mac, ((&frames, &bytes), &verified)) in self.frames.iter().zip(&self.bytes).zip(&self.verified).enumerate()
        {
            if frames > 0 {
                let mac = mac as u8;
                stats.count_rx_many(mac, verified, bytes, RxChecksum::Verified);
                stats.count_rx_many(mac, frames - verified, 0, RxChecksum::Unverified);
            }
        }
    }
}

impl<P: Platform> Eth<P> {
    /// Gives every pool buffer ring 0 still holds back to the pool (when the driver is dropped,
    /// after close); nothing when no pool is attached.
    pub(crate) fn rx_pool_release(&mut self) {
        self.rx.release_pool(&self.p);
    }
}
