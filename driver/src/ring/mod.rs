//! DMA rings as types that own their invariants: descriptors, buffers, who owns each, and the
//! registers each ring is driven through. The engine ([`crate::eth`]) composes them.
//!
//! A ring publishes its descriptor writes with a DMA write barrier before every doorbell, and
//! reads a descriptor's other words only after a read barrier that follows its done bit (see
//! the contract in [`crate::platform`]).

pub mod rx;
pub mod tx;

use crate::platform::Platform;
use core::fmt;

/// Most descriptors a ring's ownership record holds.
pub const MAX_RING: usize = 512;

/// Which side owns each descriptor of a ring (and its buffer): one flag per descriptor, so a
/// change on the packet path is one store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ownership {
    engine: [bool; MAX_RING],
}

impl Default for Ownership {
    fn default() -> Self {
        Self::new()
    }
}

impl Ownership {
    /// Every descriptor the driver's.
    #[must_use]
    pub const fn new() -> Self {
        Ownership { engine: [false; MAX_RING] }
    }

    /// Descriptor `i` now belongs to the engine (ignored at or past [`MAX_RING`]).
    #[inline(always)]
    pub fn set_engine(&mut self, i: usize) {
        if let Some(o) = self.engine.get_mut(i) {
            *o = true;
        }
    }

    /// Descriptor `i` now belongs to the driver.
    #[inline(always)]
    pub fn set_driver(&mut self, i: usize) {
        if let Some(o) = self.engine.get_mut(i) {
            *o = false;
        }
    }

    /// Whether the engine owns descriptor `i`.
    #[cfg(test)]
    #[must_use]
    pub fn is_engine(&self, i: usize) -> bool {
        self.engine.get(i).copied().unwrap_or(false)
    }

    /// Descriptors the engine owns (counted: this is for reports, not the packet path).
    #[must_use]
    pub fn engine_held(&self) -> usize {
        self.engine.iter().filter(|o| **o).count()
    }
}

/// Why a ring's DMA memory could not be had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocError {
    /// The platform has no more DMA memory.
    Exhausted {
        /// Bytes asked for.
        size: usize,
    },
    /// The platform gave memory above 4 GiB (descriptors hold 32-bit addresses).
    Above4G {
        /// Physical address it gave.
        addr: u64,
    },
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AllocError::Exhausted { size } => write!(f, "out of DMA memory (asked for {size} bytes)"),
            AllocError::Above4G { addr } => {
                write!(f, "DMA memory at {addr:#x} is above 4 GiB, which descriptors cannot address")
            }
        }
    }
}

impl core::error::Error for AllocError {}

/// Allocates `size` bytes of DMA memory below 4 GiB (descriptors hold 32-bit addresses); an
/// allocation above is given back and refused.
pub(crate) fn alloc32<P: Platform>(p: &P, size: usize, align: usize) -> Result<u64, AllocError> {
    let a = p.dma_alloc(size, align).ok_or(AllocError::Exhausted { size })?;
    if a.checked_add(size as u64).is_none_or(|end| end > 1 << 32) {
        p.dma_free(a, size);
        return Err(AllocError::Above4G { addr: a });
    }
    Ok(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ownership_counts_each_descriptor_once() {
        let mut o = Ownership::new();
        o.set_engine(3);
        o.set_engine(3);
        o.set_engine(511);
        assert_eq!(o.engine_held(), 2);
        assert!(o.is_engine(511) && !o.is_engine(4));
        o.set_driver(3);
        o.set_driver(3);
        o.set_engine(MAX_RING); // out of range: ignored
        assert_eq!(o.engine_held(), 1);
    }
}
