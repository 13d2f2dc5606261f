//! The QDMA TX ring: descriptors linked in a circle, one buffer per descriptor, who owns each,
//! and the four pointer registers the ring is driven through.
//!
//! [`TxRing::push`] is the only way a descriptor is filled (single frames, bursts and frames
//! spread over several descriptors alike); [`TxRing::kick`] publishes what was pushed with a DMA
//! write barrier and rings the doorbell (`ctx_ptr`); [`TxRing::reclaim`] walks from the CPU
//! release pointer to the engine's `drx_ptr`; [`TxRing::teardown`] takes back what the engine
//! never took. One descriptor always stays free, so a full ring never looks empty to the engine.

use super::FeReg;
use crate::desc::{self, TxCodec, TxDesc};
use crate::platform::{DmaError, Platform};
use crate::ring::mem::{DescAccess, DescMem, Place};
use crate::ring::{AllocError, alloc32};
use alloc::boxed::Box;
use fe_regs::bus::{RegSpec, Rw};
use fe_regs::descriptors::DescriptorLayout;
use fe_regs::values::{QdmaCrxPtr, QdmaCtxPtr, QdmaDrxPtr, QdmaDtxPtr};

/// Descriptors in the QDMA TX ring (one stays free so a full ring never looks empty).
pub const TX_RING: usize = 512;
/// Bytes of every TX buffer.
pub const TX_BUF: usize = 2048;

/// The four QDMA pointer registers a TX ring is driven through.
#[derive(Clone, Copy, Debug)]
pub struct TxRegs {
    /// CPU TX pointer: the doorbell (the next descriptor the CPU will fill).
    pub ctx: RegSpec<QdmaCtxPtr, Rw>,
    /// DMA TX pointer: the next descriptor the engine will send.
    pub dtx: RegSpec<QdmaDtxPtr, Rw>,
    /// CPU release pointer: the last descriptor the CPU took back.
    pub crx: RegSpec<QdmaCrxPtr, Rw>,
    /// DMA release pointer: the last descriptor the engine has finished with.
    pub drx: RegSpec<QdmaDrxPtr, Rw>,
}

/// The TX ring and its buffers, with who owns each descriptor and what frame it ends.
#[derive(Debug)]
pub struct TxRing {
    /// Where the descriptors are ([`crate::ring::mem`]).
    mem: DescMem,
    /// Physical address of descriptor 0.
    base: u64,
    bufs: u64,
    layout: DescriptorLayout,
    desc_size: usize,
    regs: TxRegs,
    /// Per descriptor, on the heap: the length of the frame it ends in bits 0-15 (0 on the
    /// earlier descriptors of a multi-descriptor frame, so each frame is counted once, as sent
    /// or dropped) and its MAC in bits 16-23 ([`frame_word`]). One word, one table: one heap
    /// pointer on the TX path.
    frames: Box<[u32; TX_RING]>,
    /// Next descriptor to fill.
    head: usize,
    /// The descriptor the CPU release pointer names (last freed).
    released: usize,
    /// Descriptors filled and not yet reclaimed.
    in_flight: usize,
}

/// A descriptor's entry in the ring's frame table: the MAC of its frame and the length the
/// frame ends with on it.
#[inline(always)]
fn frame_word(mac: u8, len: u16) -> u32 {
    u32::from(len) | u32::from(mac) << 16
}

/// The MAC and length of a [`frame_word`].
#[inline(always)]
fn frame_of(w: u32) -> (u8, u16) {
    ((w >> 16) as u8, w as u16)
}

/// A TX ring's DMA memory and tables before the ring is built ([`TxRing::alloc`]).
#[derive(Debug)]
pub struct TxMem {
    mem: DescMem,
    bufs: u64,
    desc_size: usize,
    frames: Box<[u32; TX_RING]>,
}

impl TxMem {
    /// Gives the memory back (a later allocation failed before the ring was built).
    pub fn free<P: Platform>(&self, p: &P) {
        self.mem.free(p, self.desc_size * TX_RING);
        p.dma_free(self.bufs, TX_BUF * TX_RING);
    }
}

impl TxRing {
    /// The DMA memory of a ring in `layout`, its descriptors at `place` (DMA memory or the SoC's
    /// SRAM): small enough to return through registers; [`TxRing::with`] then builds the ring,
    /// frame records included, where the caller puts it, never on the stack first.
    pub fn alloc<P: Platform>(p: &P, layout: DescriptorLayout, place: Place) -> Result<TxMem, AllocError> {
        let desc_size = layout.size();
        let mem = DescMem::alloc(p, place, desc_size * TX_RING, desc_size.max(16))?;
        let bufs = alloc32(p, TX_BUF * TX_RING, 64).inspect_err(|_| mem.free(p, desc_size * TX_RING))?;
        let free = || {
            mem.free(p, desc_size * TX_RING);
            p.dma_free(bufs, TX_BUF * TX_RING);
        };
        let frames = crate::heap::table(0).inspect_err(|_| free())?;
        Ok(TxMem { mem, bufs, desc_size, frames })
    }

    /// The ring over `m` (from [`TxRing::alloc`] for `layout`), driven through `regs`.
    #[inline(always)]
    pub fn with(m: TxMem, layout: DescriptorLayout, regs: TxRegs) -> Self {
        TxRing {
            mem: m.mem,
            base: m.mem.phys(),
            bufs: m.bufs,
            layout,
            desc_size: m.desc_size,
            regs,
            frames: m.frames,
            head: 0,
            released: TX_RING - 1,
            in_flight: 0,
        }
    }

    /// Returns the ring's DMA memory to the platform (the engine must hold none of it).
    pub fn free<P: Platform>(&self, p: &P) {
        self.mem.free(p, self.desc_size * TX_RING);
        p.dma_free(self.bufs, TX_BUF * TX_RING);
    }

    /// Physical address of descriptor `i`.
    #[inline(always)]
    pub fn addr(&self, i: usize) -> u32 {
        (self.base + (i % TX_RING * self.desc_size) as u64) as u32
    }

    /// Physical address of buffer `i`.
    #[inline(always)]
    fn buf(&self, i: usize) -> u32 {
        (self.bufs + (i % TX_RING * TX_BUF) as u64) as u32
    }

    /// Index of the descriptor at physical address `a`, if it is one.
    fn index(&self, a: u32) -> Option<usize> {
        let d = u64::from(a).checked_sub(self.base)? as usize;
        (d.is_multiple_of(self.desc_size) && d / self.desc_size < TX_RING).then_some(d / self.desc_size)
    }

    /// Buffers the engine holds.
    #[must_use]
    pub fn engine_held(&self) -> usize {
        // Pushed and not yet reclaimed or torn down: the descriptors after the release pointer.
        self.in_flight
    }

    /// Descriptors filled and not yet reclaimed.
    #[must_use]
    pub fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// Descriptors [`TxRing::push`] can fill now without reclaiming (one always stays free).
    #[inline(always)]
    #[must_use]
    pub fn room(&self) -> usize {
        TX_RING - 1 - self.in_flight
    }

    /// Writes every descriptor as the CPU's, linked in a circle, publishes them, and points
    /// the four QDMA pointers at the ring (at open; the engine's TX DMA is off).
    pub fn reset<P: Platform>(&mut self, p: &P) -> Result<(), DmaError> {
        for i in 0..TX_RING {
            let d =
                TxDesc { addr: self.buf(i), next: self.addr(i + 1), last: true, owner_cpu: true, ..TxDesc::default() };
            let (w, n) = desc::encode_tx(self.layout, &d);
            self.mem.write_words(p, u64::from(self.addr(i)), &w[..n])?;
        }
        self.head = 0;
        self.released = TX_RING - 1;
        self.in_flight = 0;
        p.dma_wmb();
        p.fe_reg(self.regs.ctx).write_value(QdmaCtxPtr(self.addr(0)));
        p.fe_reg(self.regs.dtx).write_value(QdmaDtxPtr(self.addr(0)));
        p.fe_reg(self.regs.crx).write_value(QdmaCrxPtr(self.addr(TX_RING - 1)));
        p.fe_reg(self.regs.drx).write_value(QdmaDrxPtr(self.addr(TX_RING - 1)));
        Ok(())
    }

    /// Fills the next descriptor (layout `C`) with `data` and the control fields of `d`, for
    /// the engine to take at the next [`TxRing::kick`]. `mac` and `frame_len` are what the
    /// descriptor counts when reclaimed (`frame_len` 0 on all but a frame's last descriptor).
    /// The caller checked the room and the length (at most [`TX_BUF`]). The slot's buffer and
    /// next-descriptor addresses were written by [`TxRing::reset`], so only the control words
    /// are. Returns the slot, for [`TxRing::patch`].
    #[inline(always)]
    pub fn push<C: TxCodec, P: Platform>(
        &mut self,
        p: &P,
        data: &[u8],
        d: &TxDesc,
        mac: u8,
        frame_len: u16,
    ) -> Result<usize, DmaError> {
        self.push_pieces::<C, P>(p, core::iter::once(data), d, mac, frame_len)
    }

    /// [`TxRing::push`] with the buffer's bytes given in pieces, written one after the other
    /// (together at most a buffer).
    #[inline(always)]
    pub fn push_pieces<'a, C: TxCodec, P: Platform>(
        &mut self,
        p: &P,
        pieces: impl Iterator<Item = &'a [u8]>,
        d: &TxDesc,
        mac: u8,
        frame_len: u16,
    ) -> Result<usize, DmaError> {
        let i = self.head % TX_RING;
        let mut at = u64::from(self.buf(i));
        for piece in pieces {
            p.dma_write(at, piece)?;
            at += piece.len() as u64;
        }
        let w = C::ctrl(d);
        self.mem.write_words(p, u64::from(self.addr(i)) + 4 * C::LO as u64, &w[..C::N])?;
        self.frames[i] = frame_word(mac, frame_len);
        self.head = (i + 1) % TX_RING;
        self.in_flight += 1;
        Ok(i)
    }

    /// Overwrites bytes at `off` of slot `slot`'s buffer (a pushed, not yet kicked frame).
    pub fn patch<P: Platform>(&self, p: &P, slot: usize, off: usize, bytes: &[u8]) -> Result<(), DmaError> {
        p.dma_write(u64::from(self.buf(slot)) + off as u64, bytes)
    }

    /// Takes back the descriptors pushed since `head` was [`TxRing::head`] and not kicked (a
    /// multi-descriptor frame that could not be pushed whole); the engine never saw them.
    pub fn unpush(&mut self, head: usize) {
        while self.head != head % TX_RING && self.in_flight > 0 {
            self.head = (self.head + TX_RING - 1) % TX_RING;
            self.in_flight -= 1;
        }
    }

    /// The next descriptor [`TxRing::push`] fills.
    #[must_use]
    pub fn head(&self) -> usize {
        self.head
    }

    /// Publishes every descriptor pushed so far (DMA write barrier) and rings the doorbell.
    #[inline(always)]
    pub fn kick<P: Platform>(&self, p: &P) {
        p.dma_wmb();
        p.fe_reg(self.regs.ctx).write_value(QdmaCtxPtr(self.addr(self.head)));
    }

    /// Frees the buffers of every descriptor the engine has completed (layout `C`): walks from
    /// the CPU release pointer to the engine's `drx_ptr`, checks each descriptor's owner bit,
    /// tells `sent` the (MAC, length) of each frame completed, and moves the release pointer.
    /// Returns how many descriptors were freed.
    #[inline(always)]
    pub fn reclaim<C: TxCodec, P: Platform>(&mut self, p: &P, mut sent: impl FnMut(u8, u16)) -> usize {
        if self.in_flight == 0 {
            return 0;
        }
        let drx = p.fe_reg(self.regs.drx).read().0;
        let Some(done) = self.index(drx) else { return 0 };
        let mut freed = 0;
        let mut i = self.released % TX_RING;
        while i != done && freed < self.in_flight {
            let next = (i + 1) % TX_RING;
            let mut w = [0u32];
            // Only the owner word is read: the frame's MAC and length are the ring's own
            // records, so no read barrier is needed before using them.
            if self.mem.read_words(p, u64::from(self.addr(next)) + 4 * C::OWNER as u64, &mut w).is_err()
                || !C::owner_cpu(w[0])
            {
                break;
            }
            let (mac, len) = frame_of(self.frames[next]);
            if len > 0 {
                sent(mac, len);
            }
            i = next;
            freed += 1;
        }
        if freed > 0 {
            self.released = i;
            self.in_flight -= freed;
            p.fe_reg(self.regs.crx).write_value(QdmaCrxPtr(self.addr(i)));
        }
        freed
    }

    /// At close, after reclaim and with TX DMA off: takes back descriptors the engine never
    /// took, giving them back to the CPU. Returns how many frames they held (dropped).
    pub fn teardown<P: Platform>(&mut self, p: &P) -> Result<u64, DmaError> {
        let mut dropped = 0;
        while self.in_flight > 0 {
            let i = (self.released + 1) % TX_RING;
            let d =
                TxDesc { addr: self.buf(i), next: self.addr(i + 1), last: true, owner_cpu: true, ..TxDesc::default() };
            let (w, n) = desc::encode_tx(self.layout, &d);
            self.mem.write_words(p, u64::from(self.addr(i)), &w[..n])?;
            self.released = i;
            self.in_flight -= 1;
            dropped += u64::from(frame_of(self.frames[i]).1 > 0);
        }
        p.dma_wmb();
        Ok(dropped)
    }
}
