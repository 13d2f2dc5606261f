//! Memory-mapped I/O: the only place in this crate that dereferences hardware addresses.

use crate::bus::Bus;

/// A bus over memory-mapped registers: a window of `len` bytes starting at a base address.
/// Accesses outside the window or not 4-byte aligned never reach the hardware: a read gives all
/// ones (what a bus returns for an address nothing decodes), a write is dropped.
#[derive(Copy, Clone, Debug)]
pub struct Mmio {
    base: *mut u32,
    len: usize,
}

impl Mmio {
    /// A bus whose offset 0 is `base` and whose window is `len` bytes (the device tree's `reg`
    /// size).
    ///
    /// # Safety
    ///
    /// `base` must point to a mapped register window of at least `len` bytes, 4-byte aligned,
    /// that stays mapped while the bus is used and is not aliased by Rust references.
    #[must_use]
    pub const unsafe fn new(base: *mut u8, len: usize) -> Self {
        Mmio { base: base.cast(), len }
    }

    /// Bytes of the window.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the window is empty (every access is refused).
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the word at `offset` is inside the window and aligned.
    #[inline(always)]
    fn reaches(&self, offset: usize) -> bool {
        offset.is_multiple_of(4) && offset < self.len && self.len - offset >= 4
    }
}

impl Bus for Mmio {
    #[inline(always)]
    fn read32(&self, offset: usize) -> u32 {
        if !self.reaches(offset) {
            return u32::MAX;
        }
        // SAFETY: `Mmio::new`'s contract makes the `len`-byte window at `base` mapped and
        // aligned; `reaches` keeps the word inside it and aligned.
        unsafe { self.base.byte_add(offset).read_volatile() }
    }
    #[inline(always)]
    fn write32(&self, offset: usize, value: u32) {
        if self.reaches(offset) {
            // SAFETY: as in `read32`.
            unsafe { self.base.byte_add(offset).write_volatile(value) }
        }
    }
}

/// Tests of the unsafe module; `scripts/test` runs them under Miri (`cargo +nightly miri test -p
/// fe-regs --lib mmio`), which checks every access for bounds, alignment and aliasing.
#[cfg(test)]
mod tests {
    extern crate std;

    use super::Mmio;
    use crate::bus::Bus;
    use crate::{SOCS, Space, mt7621};
    use std::vec;
    use std::vec::Vec;

    /// A register window of `words` zeroed words, as real MMIO would be: owned memory that only
    /// the bus touches while it is in use.
    fn window(words: usize) -> Vec<u32> {
        vec![0; words]
    }

    /// The bytes a map needs in `space`: one past its highest register element.
    fn span(info: &crate::SocInfo, space: Space) -> usize {
        let last = info
            .registers
            .iter()
            .filter(|r| r.space == space)
            .map(|r| r.offset as usize + r.stride as usize * (usize::from(r.count.max(1)) - 1) + 4);
        last.max().unwrap_or(4)
    }

    #[test]
    fn every_register_of_every_soc_is_reached_inside_its_window() {
        for info in SOCS {
            for space in [Space::Fe, Space::Ethsys] {
                let mut mem = window(span(info, space) / 4);
                // SAFETY: `mem` is a live, 4-byte-aligned allocation covering every offset of
                // this space's map, and no reference to it is used before the bus's last access.
                let bus = unsafe { Mmio::new(mem.as_mut_ptr().cast(), mem.len() * 4) };
                let mut written = Vec::new();
                for r in info.registers.iter().filter(|r| r.space == space) {
                    for i in 0..usize::from(r.count.max(1)) {
                        let off = r.offset as usize + r.stride as usize * i;
                        let value = 0x5a00_0000 | off as u32;
                        bus.write32(off, value);
                        assert_eq!(bus.read32(off), value, "{} {}[{i}]", info.name, r.name);
                        written.push((off, value));
                    }
                }
                for (off, value) in written {
                    assert_eq!(mem[off / 4], value, "{} offset {off:#x}", info.name);
                }
            }
        }
    }

    #[test]
    fn typed_accessors_touch_only_their_own_word() {
        let glo = mt7621::FE.pdma.glo_cfg.offset() as usize;
        let mut mem = window(glo / 4 + 2);
        // SAFETY: `mem` covers `glo_cfg` and the word after it; no reference is used meanwhile.
        let bus = unsafe { Mmio::new(mem.as_mut_ptr().cast(), mem.len() * 4) };
        mt7621::FE.pdma.glo_cfg.on(bus).modify(|v| v.set_rx_dma_en(true));
        assert!(mt7621::FE.pdma.glo_cfg.on(bus).read().rx_dma_en());
        let rx_dma_en = mem[glo / 4];
        assert_ne!(rx_dma_en, 0);
        assert!(mem.iter().enumerate().all(|(i, w)| i == glo / 4 || *w == 0));
    }

    #[test]
    fn copies_of_a_bus_share_one_window() {
        let mut mem = window(4);
        // SAFETY: `mem` is four aligned words; only the two copies of the bus touch it.
        let a = unsafe { Mmio::new(mem.as_mut_ptr().cast(), 16) };
        let b = a;
        a.write32(12, 0xdead_beef);
        assert_eq!(b.read32(12), 0xdead_beef);
        b.write32(0, 1);
        assert_eq!(mem, [1, 0, 0, 0xdead_beef]);
    }

    #[test]
    fn accesses_outside_the_window_never_reach_memory() {
        let mut mem = window(5);
        // SAFETY: the bus is told about the first four words only; the fifth is a guard that
        // must stay untouched. No reference is used meanwhile.
        let bus = unsafe { Mmio::new(mem.as_mut_ptr().cast(), 16) };
        for off in [16, 17, 20, usize::MAX - 3, usize::MAX] {
            bus.write32(off, 0x1234_5678);
            assert_eq!(bus.read32(off), u32::MAX, "offset {off:#x}");
        }
        // Unaligned offsets inside the window are refused as well.
        bus.write32(2, 0x1234_5678);
        assert_eq!(bus.read32(2), u32::MAX);
        bus.write32(12, 7);
        assert_eq!(bus.read32(12), 7);
        assert_eq!(mem, [0, 0, 0, 7, 0]);
    }
}
