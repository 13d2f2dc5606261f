//! One PDMA RX ring: descriptors, one buffer per descriptor, who owns each, and the registers
//! the ring is driven through. Ring 0 and the hardware LRO rings are both this type.
//!
//! A poll walks the ring with a [`Cursor`]: [`RxRing::read`] returns a filled descriptor (its
//! done bit read first, then a read barrier, then its other words), [`RxRing::refill`] hands it
//! back to the DMA, and [`RxRing::publish`] ends the poll with a write barrier and the CPU-index
//! doorbell. [`RxRing::teardown`] counts what was received and not polled, at close.
//!
//! The ring keeps the buffer address of each slot itself (as Linux keeps `rx_data[i]`) and never
//! trusts the address word the engine writes back. The buffers are the ring's own block (one
//! allocation, `buf_size` bytes per slot) until [`RxRing::attach_pool`] lends each slot a
//! platform pool buffer instead; from then on a poll may swap a filled slot's buffer for a fresh
//! one ([`RxRing::refill_with`]: the address word with the control word).

use super::FeReg;
use crate::desc::{self, RX_WORDS, RxCodec};
use crate::platform::{DmaError, Platform, RxPool};
use crate::ring::mem::{DescAccess, DescMem, InDma, Place};
use crate::ring::{AllocError, MAX_RING, alloc32};
use alloc::boxed::Box;
use fe_regs::bus::{RegSpec, Rw};
use fe_regs::descriptors::{DescriptorLayout, RxV1, RxV2};
use fe_regs::values::{PdmaPcrxPtr, PdmaRxCntCfg, PdmaRxPtr};

/// Descriptors in PDMA RX ring 0.
pub const RX_RING: usize = 256;

/// The PDMA registers of one RX ring.
#[derive(Clone, Copy, Debug)]
pub struct RxRegs {
    /// Ring base address.
    pub base: RegSpec<PdmaRxPtr, Rw>,
    /// Ring size in descriptors.
    pub count: RegSpec<PdmaRxCntCfg, Rw>,
    /// CPU index: the doorbell (the last descriptor handed back to the DMA).
    pub cpu: RegSpec<PdmaPcrxPtr, Rw>,
}

/// Where a poll of a ring is.
#[derive(Clone, Copy, Debug)]
pub struct Cursor {
    /// Next descriptor.
    pub i: usize,
    /// Descriptors consumed so far.
    pub done: usize,
}

/// Where an RX ring's descriptors are: a `Copy` view a poll loop keeps in registers while it
/// walks the ring (the ring's state, and each slot's buffer address, stay in [`RxRing`]).
///
/// `A` says how its descriptor words are reached: [`DescMem`] (decided per access) or
/// [`InDma`] ([`RxRing::geometry_of`], for a poll loop over a ring in DMA memory).
#[derive(Clone, Copy, Debug)]
pub struct Geometry<A: DescAccess = DescMem> {
    mem: A,
    base: u64,
    mask: usize,
    /// The control word of a descriptor handed back (its buffer length, not done).
    fresh: u32,
}

impl<A: DescAccess> Geometry<A> {
    /// Physical address of descriptor `i`.
    #[inline(always)]
    #[must_use]
    pub fn desc(&self, i: usize) -> u64 {
        // Every RX layout the core handles is RX_WORDS words long (`desc::is_rx`).
        self.base + ((i & self.mask) * RX_WORDS * 4) as u64
    }

    /// Reads the descriptor at `cur` into `w` if the DMA has filled it, in the order the DMA
    /// contract asks (done bit, read barrier, the rest); false when the ring is empty there.
    /// Decode `w` with the layout's codec; the frame is in [`RxRing::buf_addr`]`(cur.i)`.
    #[inline(always)]
    pub fn read<C: RxCodec, P: Platform>(
        &self,
        p: &P,
        cur: &Cursor,
        w: &mut [u32; RX_WORDS],
    ) -> Result<bool, DmaError> {
        self.mem.read_desc(p, self.desc(cur.i), C::CTRL, C::DONE_BIT, w)
    }

    /// Hands the descriptor at `cur` back to the DMA (layout `C`) and moves `cur` past it.
    /// Returns false when the platform refused the write: the caller then records the loss
    /// with [`RxRing::lost`].
    #[inline(always)]
    pub fn refill<C: RxCodec, P: Platform>(&self, p: &P, cur: &mut Cursor) -> bool {
        // The buffer address never changes: handing the descriptor back rewrites one word.
        let ok = self.mem.write_words(p, self.desc(cur.i) + 4 * C::CTRL as u64, &[self.fresh]).is_ok();
        cur.i = (cur.i + 1) & self.mask;
        cur.done += 1;
        ok
    }
}

/// An RX ring's DMA memory and slot table before the ring is built ([`RxRing::alloc`]).
#[derive(Debug)]
pub struct RxMem<const SLOTS: usize = MAX_RING> {
    mem: DescMem,
    bufs: u64,
    size: usize,
    buf_size: usize,
    /// The slot table, on the heap ([`crate::heap`]).
    addrs: Box<[u32; SLOTS]>,
}

impl<const SLOTS: usize> RxMem<SLOTS> {
    /// Gives the memory back (a later allocation failed before the ring was built).
    pub fn free<P: Platform>(&self, p: &P) {
        self.mem.free(p, RX_WORDS * 4 * self.size);
        p.dma_free(self.bufs, self.buf_size * self.size);
    }
}

/// An RX ring of at most `SLOTS` descriptors and its buffers.
#[derive(Debug)]
pub struct RxRing<const SLOTS: usize = MAX_RING> {
    /// Where the descriptors are ([`crate::ring::mem`]).
    mem: DescMem,
    base: u64,
    /// The ring's own buffer block (`buf_size` bytes per slot), until a pool lends the buffers.
    block: Option<u64>,
    /// Each slot's buffer address (descriptors hold 32-bit addresses), on the heap.
    addrs: Box<[u32; SLOTS]>,
    size: usize,
    /// `size - 1`: sizes are powers of two, so ring arithmetic is a mask.
    mask: usize,
    buf_size: usize,
    /// The buffer length written into a fresh descriptor.
    plen: u16,
    /// The control word of a descriptor handed back (layout's, with `plen`).
    fresh: u32,
    layout: DescriptorLayout,
    regs: RxRegs,
    /// Descriptors the engine holds: all of them from `reset` to `teardown`, but those whose
    /// hand-back failed.
    held: usize,
    /// Next descriptor the DMA fills (in ring order).
    next: usize,
}

impl<const SLOTS: usize> RxRing<SLOTS> {
    /// The DMA memory of a ring of `size` descriptors (a power of two up to `SLOTS`; others are
    /// rounded down) at `place` (DMA memory or the SoC's SRAM) with `buf_size`-byte buffers, and
    /// its slot table on the heap; [`RxRing::with`] then builds the ring.
    pub fn alloc<P: Platform>(p: &P, size: usize, buf_size: usize, place: Place) -> Result<RxMem<SLOTS>, AllocError> {
        // Slot indices are masked with `SLOTS - 1`.
        const { assert!(SLOTS.is_power_of_two()) };
        let size = 1 << size.clamp(1, SLOTS).ilog2();
        let mem = DescMem::alloc(p, place, RX_WORDS * 4 * size, 16)?;
        let bufs = alloc32(p, buf_size * size, 64).inspect_err(|_| mem.free(p, RX_WORDS * 4 * size))?;
        let addrs = crate::heap::table(0).inspect_err(|_| {
            mem.free(p, RX_WORDS * 4 * size);
            p.dma_free(bufs, buf_size * size);
        })?;
        Ok(RxMem { mem, bufs, size, buf_size, addrs })
    }

    /// The ring over `m` (from [`RxRing::alloc`]) in `layout`, driven through `regs`.
    #[inline(always)]
    pub fn with(m: RxMem<SLOTS>, layout: DescriptorLayout, regs: RxRegs) -> Self {
        let RxMem { mem, bufs, size, buf_size, addrs } = m;
        let plen = buf_size.min(usize::from(u16::MAX)) as u16;
        let fresh = match layout {
            DescriptorLayout::RxV2 => <RxV2 as RxCodec>::fresh_ctrl(plen),
            _ => <RxV1 as RxCodec>::fresh_ctrl(plen),
        };
        RxRing {
            mem,
            base: mem.phys(),
            block: Some(bufs),
            // Filled from the block at `reset`.
            addrs,
            size,
            mask: size - 1,
            buf_size,
            plen,
            fresh,
            layout,
            regs,
            held: 0,
            next: 0,
        }
    }

    /// Returns the ring's own DMA memory to the platform (the engine must hold none of it).
    /// Buffers a pool lent stay in the slots: give them back first with
    /// [`RxRing::release_pool`].
    pub fn free<P: Platform>(&self, p: &P) {
        self.mem.free(p, RX_WORDS * 4 * self.size);
        if let Some(bufs) = self.block {
            p.dma_free(bufs, self.buf_size * self.size);
        }
    }

    /// Whether the slots hold buffers a pool lent ([`RxRing::attach_pool`]).
    #[must_use]
    pub fn pooled(&self) -> bool {
        self.block.is_none()
    }

    /// Lends every slot a buffer of `p`'s pool in place of the ring's own block, which goes
    /// back to the platform (while the engine holds none: at close). Nothing changes when the
    /// pool cannot lend them all (what it lent goes back).
    pub fn attach_pool<P: RxPool>(&mut self, p: &P) -> Result<(), AllocError> {
        let Some(bufs) = self.block else { return Ok(()) };
        // Into the slots directly (no second table on the stack); on failure the slots get
        // their own block's buffers back.
        for i in 0..self.size {
            let got = p.rx_alloc(self.buf_size).ok_or(AllocError::Exhausted { size: self.buf_size });
            let got = got.and_then(|a| match a.checked_add(self.buf_size as u32) {
                Some(_) => Ok(a),
                None => {
                    p.rx_release(u64::from(a), self.buf_size);
                    Err(AllocError::Above4G { addr: u64::from(a) })
                }
            });
            match got {
                Ok(a) => {
                    if let Some(s) = self.addrs.get_mut(i) {
                        *s = a;
                    }
                }
                Err(e) => {
                    for (k, s) in self.addrs.iter_mut().enumerate().take(i) {
                        p.rx_release(u64::from(*s), self.buf_size);
                        *s = (bufs + (k * self.buf_size) as u64) as u32;
                    }
                    return Err(e);
                }
            }
        }
        p.dma_free(bufs, self.buf_size * self.size);
        self.block = None;
        Ok(())
    }

    /// Gives every buffer a pool lent back (when the driver is dropped, after close); the ring
    /// must not be used afterwards but to [`RxRing::free`] it.
    pub fn release_pool<P: Platform>(&mut self, p: &P) {
        if self.block.is_none() {
            for a in self.addrs.iter_mut().take(self.size) {
                p.rx_release(u64::from(*a), self.buf_size);
                *a = 0;
            }
        }
    }

    /// Bytes of each buffer.
    #[must_use]
    pub fn buf_size(&self) -> usize {
        self.buf_size
    }

    /// Where the ring's descriptors and buffers are.
    #[inline(always)]
    #[must_use]
    pub fn geometry(&self) -> Geometry {
        Geometry { mem: self.mem, base: self.base, mask: self.mask, fresh: self.fresh }
    }

    /// [`RxRing::geometry`] of a ring in DMA memory known to have `SIZE` descriptors of `BUF`
    /// bytes (ring 0), so that a poll loop's ring arithmetic folds into constants and its
    /// descriptor accesses carry no decision; `None` if it has not (or is in SRAM: the loop
    /// then takes [`RxRing::geometry`]).
    #[inline(always)]
    #[must_use]
    pub fn geometry_of<const SIZE: usize, const BUF: usize>(&self) -> Option<Geometry<InDma>> {
        let dma = matches!(self.mem, DescMem::Dma { .. });
        (dma && self.size == SIZE && self.buf_size == BUF).then_some(Geometry {
            mem: InDma,
            base: self.base,
            mask: SIZE - 1,
            fresh: self.fresh,
        })
    }

    /// Physical address of descriptor `i`'s buffer, as the ring keeps it (never the address word
    /// the engine wrote back).
    #[inline(always)]
    #[must_use]
    pub fn buf_addr(&self, i: usize) -> u64 {
        // SLOTS is a power of two at least the ring's size, so the mask only spares a bound check.
        u64::from(self.addrs.get(i & (SLOTS - 1)).copied().unwrap_or_default())
    }

    /// Descriptor `i` could not be handed back: it stays the driver's, and the ring is one
    /// shorter until close.
    pub fn lost(&mut self, _i: usize) {
        self.held = self.held.saturating_sub(1);
    }

    /// Buffers the engine holds.
    #[must_use]
    pub fn engine_held(&self) -> usize {
        self.held
    }

    /// Gives every descriptor (with its empty buffer) to the DMA, publishes them, and programs
    /// the ring's base, size and CPU index (at open; the PDMA's RX is off). Resetting the DMA
    /// index (`pst_drx_idx`) is the engine's, as one register serves every ring.
    pub fn reset<P: Platform>(&mut self, p: &P) -> Result<(), DmaError> {
        if let Some(bufs) = self.block {
            // The ring's own block: slot i's buffer is at i buffers in (below 4 GiB: alloc32).
            for (i, a) in self.addrs.iter_mut().take(self.size).enumerate() {
                *a = (bufs + (i * self.buf_size) as u64) as u32;
            }
        }
        let g = self.geometry();
        for i in 0..self.size {
            self.mem.write_words(p, g.desc(i), &desc::rx_fresh(self.layout, self.buf_addr(i) as u32, self.plen))?;
            self.held = i + 1;
        }
        self.next = 0;
        p.dma_wmb();
        p.fe_reg(self.regs.base).write_value(PdmaRxPtr(self.base as u32));
        p.fe_reg(self.regs.count).write_value(PdmaRxCntCfg(self.size as u32));
        p.fe_reg(self.regs.cpu).write_value(PdmaPcrxPtr(self.size as u32 - 1));
        Ok(())
    }

    /// Starts a poll where the last one ended.
    #[inline(always)]
    #[must_use]
    pub fn begin(&self) -> Cursor {
        Cursor { i: self.next & self.mask, done: 0 }
    }

    /// [`Geometry::read`] on this ring.
    #[inline(always)]
    pub fn read<C: RxCodec, P: Platform>(
        &self,
        p: &P,
        cur: &Cursor,
        w: &mut [u32; RX_WORDS],
    ) -> Result<bool, DmaError> {
        self.geometry().read::<C, P>(p, cur, w)
    }

    /// [`Geometry::refill`] on this ring, recording a refused write with [`RxRing::lost`].
    #[inline(always)]
    pub fn refill<C: RxCodec, P: Platform>(&mut self, p: &P, cur: &mut Cursor) -> bool {
        self.refill_via::<C, P, DescMem>(self.geometry(), p, cur)
    }

    /// [`RxRing::refill`] through `g`, this ring's geometry.
    #[inline(always)]
    pub fn refill_via<C: RxCodec, P: Platform, A: DescAccess>(
        &mut self,
        g: Geometry<A>,
        p: &P,
        cur: &mut Cursor,
    ) -> bool {
        let i = cur.i;
        let ok = g.refill::<C, P>(p, cur);
        if !ok {
            self.lost(i);
        }
        ok
    }

    /// Hands the descriptor at `cur` (of geometry `g`, this ring's) back to the DMA (layout `C`)
    /// with buffer `addr` in place of
    /// the one its frame went up in, and moves `cur` past it: the address and control words, in
    /// one access where they are neighbours (both layouts the core handles). The slot's buffer
    /// is `addr` from now on (given back at drop); returns false when the platform refused the
    /// write, which is recorded with [`RxRing::lost`] (the next open posts `addr`).
    #[inline(always)]
    pub fn refill_with<C: RxCodec, P: Platform, A: DescAccess>(
        &mut self,
        g: Geometry<A>,
        p: &P,
        cur: &mut Cursor,
        addr: u32,
    ) -> bool {
        let (i, d) = (cur.i, g.desc(cur.i));
        if let Some(a) = self.addrs.get_mut(i & (SLOTS - 1)) {
            *a = addr;
        }
        let ok = if C::ADDR + 1 == C::CTRL {
            g.mem.write_words(p, d + 4 * C::ADDR as u64, &[addr, g.fresh]).is_ok()
        } else {
            g.mem.write_words(p, d + 4 * C::ADDR as u64, &[addr]).is_ok()
                && g.mem.write_words(p, d + 4 * C::CTRL as u64, &[g.fresh]).is_ok()
        };
        cur.i = (cur.i + 1) & g.mask;
        cur.done += 1;
        if !ok {
            self.lost(i);
        }
        ok
    }

    /// Ends a poll at `cur`: publishes the refilled descriptors and tells the DMA how far the
    /// CPU got. Returns how many descriptors the poll consumed.
    #[inline(always)]
    pub fn publish<P: Platform>(&mut self, p: &P, cur: Cursor) -> usize {
        if cur.done > 0 {
            self.next = cur.i;
            p.dma_wmb();
            let last = cur.i.wrapping_sub(1) & self.mask;
            p.fe_reg(self.regs.cpu).write_value(PdmaPcrxPtr(last as u32));
        }
        cur.done
    }

    /// At close, with RX DMA off: counts the frames received but not polled and takes every
    /// buffer back. Returns how many frames that was.
    pub fn teardown<P: Platform>(&mut self, p: &P) -> Result<u64, DmaError> {
        let (ctrl, done) = match self.layout {
            DescriptorLayout::RxV2 => (<RxV2 as RxCodec>::CTRL, <RxV2 as RxCodec>::DONE),
            _ => (<RxV1 as RxCodec>::CTRL, <RxV1 as RxCodec>::DONE),
        };
        let mut dropped = 0;
        for k in 0..self.size {
            let i = (self.next + k) & self.mask;
            let mut w = [0u32];
            self.mem.read_words(p, self.geometry().desc(i) + 4 * ctrl as u64, &mut w)?;
            if w[0] & done[ctrl] == 0 {
                break;
            }
            dropped += 1;
        }
        // Nothing but done bits was read; the barrier closes the sequence all the same.
        p.dma_rmb();
        self.held = 0;
        Ok(dropped)
    }
}
