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
