//! Memory-mapped I/O: the only place in this crate that dereferences hardware addresses.

use crate::bus::Bus;

/// A bus over memory-mapped registers starting at a base address.
#[derive(Copy, Clone, Debug)]
pub struct Mmio {
    base: *mut u32,
}

impl Mmio {
    /// A bus whose offset 0 is `base`.
    ///
    /// # Safety
    ///
    /// `base` must point to a mapped register window, 4-byte aligned, that stays mapped while
    /// the bus is used, large enough for every offset accessed, and not aliased by Rust
    /// references.
    #[must_use]
    pub const unsafe fn new(base: *mut u8) -> Self {
        Mmio { base: base.cast() }
    }
}

impl Bus for Mmio {
    #[inline(always)]
    fn read32(&self, offset: usize) -> u32 {
        // SAFETY: `Mmio::new`'s contract makes `base + offset` a mapped, aligned register for
        // every offset the generated maps produce (all multiples of 4 inside the window).
        unsafe { self.base.byte_add(offset).read_volatile() }
    }
    #[inline(always)]
    fn write32(&self, offset: usize, value: u32) {
        // SAFETY: as in `read32`.
        unsafe { self.base.byte_add(offset).write_volatile(value) }
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
                let bus = unsafe { Mmio::new(mem.as_mut_ptr().cast()) };
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
        let bus = unsafe { Mmio::new(mem.as_mut_ptr().cast()) };
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
        let a = unsafe { Mmio::new(mem.as_mut_ptr().cast()) };
        let b = a;
        a.write32(12, 0xdead_beef);
        assert_eq!(b.read32(12), 0xdead_beef);
        b.write32(0, 1);
        assert_eq!(mem, [1, 0, 0, 0xdead_beef]);
    }
}
