//! The frame engine's on-chip SRAM, on SoCs whose capability `rings` is `{sram: OFFSET}`: word
//! storage at `OFFSET` of the frame-engine register space, reached by the CPU through the bus
//! (device memory: no write buffer, ordered with the registers) and by the engine at its
//! physical address, once the model knows where the register window sits
//! ([`Sim::place_fe`](crate::Sim::place_fe)).
//!
//! The engine's descriptor fetches and write-backs go through [`Inner::desc_read`] and
//! [`Inner::desc_write`]: an address inside the SRAM window is the SRAM, one inside DMA memory
//! is DMA memory, anything else (or a descriptor straddling either's end) is a
//! [`Violation::DescriptorOutOfRange`].

use crate::engine::Inner;
use crate::violation::Violation;
use alloc::vec::Vec;
use fe_regs::SocInfo;
use fe_regs::caps::RingPlacement;

/// Bytes of SRAM the model gives a SoC with SRAM rings (less when the register window ends
/// sooner): what MT7986-class windows of 512 KiB leave above an offset of 256 KiB.
pub(crate) const SRAM_BYTES: u32 = 0x4_0000;

/// The SRAM: where it is and what it holds.
#[derive(Debug, Default)]
pub(crate) struct Sram {
    /// Byte offset in the frame-engine space; `None` on a SoC without SRAM rings.
    offset: Option<u32>,
    /// Bytes of SRAM.
    len: u32,
    /// Physical address of the frame-engine window, once placed.
    fe_base: Option<u64>,
    /// Words written so far (grown on demand; words never written read as 0).
    words: Vec<u32>,
}

impl Sram {
    /// The SRAM of `soc` (empty when its rings are in DRAM), not yet placed.
    pub(crate) fn new(soc: &SocInfo) -> Self {
        match soc.caps.rings {
            RingPlacement::Sram { offset } => Sram { offset: Some(offset), len: SRAM_BYTES, ..Sram::default() },
            RingPlacement::Dram => Sram::default(),
        }
    }

    /// The frame-engine window is `size` bytes at physical address `base`: the SRAM is what of
    /// it lies past the SRAM offset, up to [`SRAM_BYTES`].
    pub(crate) fn place(&mut self, base: u64, size: u64) {
        if let Some(o) = self.offset {
            self.fe_base = Some(base);
            self.len = size.saturating_sub(u64::from(o)).min(u64::from(SRAM_BYTES)) as u32;
        }
    }

    /// The physical address range of the SRAM, once placed.
    pub(crate) fn window(&self) -> Option<core::ops::Range<u64>> {
        let start = self.fe_base? + u64::from(self.offset?);
        Some(start..start + u64::from(self.len))
    }

    /// The word index of bus offset `offset`, if it is in the SRAM.
    pub(crate) fn word_at(&self, offset: u32) -> Option<usize> {
        let d = offset.checked_sub(self.offset?)?;
        (d < self.len).then_some(d as usize / 4)
    }

    /// Physical address of bus offset `offset`, once placed.
    pub(crate) fn phys_of(&self, offset: u32) -> Option<u64> {
        Some(self.fe_base? + u64::from(offset))
    }

    /// The word index of the `len` bytes at physical address `addr`, if they lie in the SRAM.
    fn word_of_phys(&self, addr: u64, len: usize) -> Option<usize> {
        let w = self.window()?;
        let end = addr.checked_add(len as u64)?;
        (addr >= w.start && end <= w.end).then_some(((addr - w.start) / 4) as usize)
    }

    /// Word `i`.
    pub(crate) fn get(&self, i: usize) -> u32 {
        self.words.get(i).copied().unwrap_or(0)
    }

    /// Sets word `i`.
    pub(crate) fn set(&mut self, i: usize, v: u32) {
        if i >= self.words.len() {
            self.words.resize(i + 1, 0);
        }
        self.words[i] = v;
    }
}

impl Inner {
    /// The engine fetches the `N`-word descriptor at physical address `addr`: from the SRAM if
    /// it lies there, else from DMA memory.
    pub(crate) fn desc_read<const N: usize>(&self, addr: u64) -> Result<[u32; N], Violation> {
        if let Some(i) = self.sram.word_of_phys(addr, 4 * N) {
            return Ok(core::array::from_fn(|k| self.sram.get(i + k)));
        }
        self.dma.read_words::<N>(addr).map_err(|_| Violation::DescriptorOutOfRange { addr, len: 4 * N })
    }

    /// The engine writes back the `N`-word descriptor at physical address `addr` (SRAM or DMA
    /// memory, as [`Inner::desc_read`]).
    pub(crate) fn desc_write<const N: usize>(&mut self, addr: u64, words: &[u32; N]) -> Result<(), Violation> {
        if let Some(i) = self.sram.word_of_phys(addr, 4 * N) {
            for (k, w) in words.iter().enumerate() {
                self.sram.set(i + k, *w);
            }
            return Ok(());
        }
        self.dma.write_words(addr, words).map_err(|_| Violation::DescriptorOutOfRange { addr, len: 4 * N })
    }
}
