//! Where a ring's descriptors live, and the one way the rings read and write descriptor words.
//!
//! A SoC's capability `rings` says where the descriptor rings go:
//!
//! * `{dram: true}`: every ring's descriptors are DMA memory from
//!   [`DmaMemory::dma_alloc`](crate::platform::DmaMemory::dma_alloc), read and written with the
//!   platform's DMA accessors (write buffer and barriers as the DMA contract says).
//! * `{sram: OFFSET}`: the QDMA free queue, the QDMA TX ring and PDMA RX ring 0 have their
//!   descriptors in the frame engine's on-chip SRAM, at `OFFSET` of the frame-engine register
//!   window, laid out one after the other by [`crate::ring::sram::SramLayout`]. The CPU reads and writes those
//!   words through the frame-engine bus ([`Platform::fe`]), and the ring-base registers get the
//!   SRAM's physical address: the Ethernet node's `reg` base + `OFFSET` + the ring's place in
//!   the layout. Buffers stay in DMA memory, and so do the hardware-LRO rings.
//!
//! Ordering: the SRAM is device memory, so descriptor words written through the bus reach it in
//! order with the doorbell written after them on the same bus; the rings still call
//! [`DmaMemory::dma_wmb`](crate::platform::DmaMemory::dma_wmb) before every doorbell, for the
//! buffers (TX frames) written to DMA memory. A done bit read through the bus is followed by the
//! read barrier as well before the buffer is read, as for a descriptor in DMA memory.

use crate::platform::{DmaError, Platform};
use crate::ring::{AllocError, alloc32};
use fe_regs::bus::Bus;

/// Where one ring's descriptors are, as the ring reads and writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DescMem {
    /// DMA memory allocated from the platform, at this physical address.
    Dma {
        /// Physical address of the first descriptor.
        phys: u64,
    },
    /// On-chip SRAM inside the frame-engine register window.
    Sram {
        /// Physical address of the first descriptor (what the ring registers get).
        phys: u64,
        /// Byte offset of the first descriptor on the frame-engine bus.
        offset: usize,
    },
}

/// Where a ring is to be placed: DMA memory, or a span of the SRAM already laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Allocate the descriptors from DMA memory.
    Dram,
    /// Use the SRAM span at `offset` of the frame-engine window, at physical address `phys`.
    Sram {
        /// Physical address of the span.
        phys: u64,
        /// Byte offset of the span on the frame-engine bus.
        offset: usize,
    },
}

impl DescMem {
    /// Descriptors of `size` bytes at `place`: DMA memory (aligned to `align`, below 4 GiB) is
    /// allocated now; an SRAM span is the layout's, nothing to allocate.
    pub fn alloc<P: Platform>(p: &P, place: Place, size: usize, align: usize) -> Result<Self, AllocError> {
        Ok(match place {
            Place::Dram => DescMem::Dma { phys: alloc32(p, size, align)? },
            Place::Sram { phys, offset } => DescMem::Sram { phys, offset },
        })
    }

    /// Gives back the `size` bytes [`DescMem::alloc`] took (nothing for SRAM).
    pub fn free<P: Platform>(&self, p: &P, size: usize) {
        if let DescMem::Dma { phys } = *self {
            p.dma_free(phys, size);
        }
    }

    /// Physical address of the first descriptor.
    #[inline(always)]
    #[must_use]
    pub fn phys(&self) -> u64 {
        match *self {
            DescMem::Dma { phys } | DescMem::Sram { phys, .. } => phys,
        }
    }

    /// Bus offset of the word at physical address `addr` (an SRAM ring's own address).
    #[inline(always)]
    fn bus(offset: usize, phys: u64, addr: u64) -> usize {
        offset + addr.wrapping_sub(phys) as usize
    }

    /// Reads `out.len()` words at physical address `addr` of the ring.
    #[inline(always)]
    pub fn read_words<P: Platform>(&self, p: &P, addr: u64, out: &mut [u32]) -> Result<(), DmaError> {
        match *self {
            DescMem::Dma { .. } => p.dma_read_words(addr, out),
            DescMem::Sram { phys, offset } => {
                sram_read(p, Self::bus(offset, phys, addr), out);
                Ok(())
            }
        }
    }
}

/// How a poll loop reads and writes one ring's descriptor words. [`DescMem`] decides where they
/// are at every access; [`InDma`] is a ring known to be in DMA memory, so a packet loop that
/// checked once carries no decision per frame.
pub trait DescAccess: Copy {
    /// Writes `words` at physical address `addr` of the ring.
    fn write_words<P: Platform>(&self, p: &P, addr: u64, words: &[u32]) -> Result<(), DmaError>;
    /// Reads the descriptor at `addr` if its word `ctrl` has a bit of `done` set (done word,
    /// read barrier, the rest); whether it was done.
    fn read_desc<P: Platform>(
        &self,
        p: &P,
        addr: u64,
        ctrl: usize,
        done: u32,
        out: &mut [u32],
    ) -> Result<bool, DmaError>;
}

impl DescAccess for DescMem {
    #[inline(always)]
    fn write_words<P: Platform>(&self, p: &P, addr: u64, words: &[u32]) -> Result<(), DmaError> {
        match *self {
            DescMem::Dma { .. } => p.dma_write_words(addr, words),
            DescMem::Sram { phys, offset } => {
                sram_write(p, Self::bus(offset, phys, addr), words);
                Ok(())
            }
        }
    }
    #[inline(always)]
    fn read_desc<P: Platform>(
        &self,
        p: &P,
        addr: u64,
        ctrl: usize,
        done: u32,
        out: &mut [u32],
    ) -> Result<bool, DmaError> {
        match *self {
            DescMem::Dma { .. } => p.dma_read_desc(addr, ctrl, done, out),
            DescMem::Sram { phys, offset } => Ok(sram_read_desc(p, Self::bus(offset, phys, addr), ctrl, done, out)),
        }
    }
}

/// A ring whose descriptors are DMA memory ([`DescMem::Dma`], checked by whoever made it).
#[derive(Clone, Copy, Debug)]
pub struct InDma;

impl DescAccess for InDma {
    #[inline(always)]
    fn write_words<P: Platform>(&self, p: &P, addr: u64, words: &[u32]) -> Result<(), DmaError> {
        p.dma_write_words(addr, words)
    }
    #[inline(always)]
    fn read_desc<P: Platform>(
        &self,
        p: &P,
        addr: u64,
        ctrl: usize,
        done: u32,
        out: &mut [u32],
    ) -> Result<bool, DmaError> {
        p.dma_read_desc(addr, ctrl, done, out)
    }
}

/// Writes `words` at bus offset `at` of the frame-engine space (an SRAM ring): out of line, so
/// that the DMA-memory rings' packet loops stay as small as without SRAM.
#[cold]
#[inline(never)]
fn sram_write<P: Platform>(p: &P, at: usize, words: &[u32]) {
    let fe = p.fe();
    for (k, w) in words.iter().enumerate() {
        fe.write32(at + 4 * k, *w);
    }
}

/// Reads `out.len()` words at bus offset `at` (an SRAM ring).
#[cold]
#[inline(never)]
fn sram_read<P: Platform>(p: &P, at: usize, out: &mut [u32]) {
    let fe = p.fe();
    for (k, w) in out.iter_mut().enumerate() {
        *w = fe.read32(at + 4 * k);
    }
}

/// [`DescMem::read_desc`] of an SRAM descriptor at bus offset `at`.
#[cold]
#[inline(never)]
fn sram_read_desc<P: Platform>(p: &P, at: usize, ctrl: usize, done: u32, out: &mut [u32]) -> bool {
    let Some(w) = out.get_mut(ctrl) else { return false };
    let fe = p.fe();
    *w = fe.read32(at + 4 * ctrl);
    if *w & done == 0 {
        return false;
    }
    // The bus reads below are ordered with the done bit's; the barrier orders the buffer reads
    // that follow (DMA memory). The done word is not read twice (a bus read is slow, and the
    // second could see a newer descriptor than the barrier ordered).
    p.dma_rmb();
    for (k, w) in out.iter_mut().enumerate().filter(|(k, _)| *k != ctrl) {
        *w = fe.read32(at + 4 * k);
    }
    true
}
