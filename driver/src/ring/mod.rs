//! DMA rings as types that own their invariants: descriptors, buffers, who owns each, and the
//! registers each ring is driven through. The engine ([`crate::eth`]) composes them.
//!
//! Who owns each descriptor follows from the ring's indices: a TX descriptor is the engine's
//! from `push` to `reclaim` (the `in_flight` ones after the release pointer), an RX descriptor
//! from `reset` to `teardown` unless handing it back failed (counted as lost).
//!
//! A ring publishes its descriptor writes with a DMA write barrier before every doorbell, and
//! reads a descriptor's other words only after a read barrier that follows its done bit (see
//! the contract in [`crate::platform`]).
//!
//! Where descriptors live is the SoC's capability `rings`: DMA memory, or (`{sram: OFFSET}`)
//! the frame engine's on-chip SRAM for the free queue ([`fq`]), the TX ring ([`tx`]) and RX
//! ring 0 ([`rx`]), laid out and checked against the board's register window by [`sram`]. The
//! rings read and write descriptor words only through [`mem::DescMem`], which goes to DMA
//! memory or over the frame-engine bus; buffers and the LRO rings ([`lro`]) are always DMA
//! memory.

pub mod fq;
pub mod lro;
pub mod mem;
pub mod rx;
pub mod sram;
pub mod tx;

pub use crate::error::AllocError;
use crate::platform::Platform;
use fe_regs::bus::{Reg, RegSpec};

/// A ring's own registers (its element of the ring register arrays, resolved once when the
/// ring is made) on the platform's frame-engine bus: `p.fe_reg(self.regs.cpu).write_value(..)`.
pub(crate) trait FeReg: Platform {
    /// `spec` on the frame-engine bus.
    fn fe_reg<T: Copy, A>(&self, spec: RegSpec<T, A>) -> Reg<Self::Fe, T, A>;
}

impl<P: Platform> FeReg for P {
    #[inline(always)]
    fn fe_reg<T: Copy, A>(&self, spec: RegSpec<T, A>) -> Reg<P::Fe, T, A> {
        spec.on(self.fe())
    }
}

/// Most descriptors in a ring.
pub const MAX_RING: usize = 512;

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
