//! The hardware-LRO rings (PDMA rings 1..=n on SoCs whose capabilities have `hw_lro`): each an
//! [`RxRing`] like ring 0, with the capability that sizes them. What the engine does with them
//! is in [`crate::hwlro`].

use crate::error::EthError;
use crate::platform::Platform;
use crate::ring::mem::Place;
use crate::ring::rx::{RxMem, RxRegs, RxRing};
use fe_regs::caps::HwLro;
use fe_regs::descriptors::DescriptorLayout;

/// Most LRO rings the core drives.
pub const MAX_LRO_RINGS: usize = 3;
/// Most descriptors per LRO ring.
pub const MAX_LRO_RING_SIZE: usize = 64;
/// Largest LRO buffer (the RX scratch buffer is this big).
pub const MAX_LRO_BUF: usize = 16384;

/// The LRO rings (PDMA rings 1..=n): [`RxRing`]s like ring 0, with the capabilities that
/// program them.
#[derive(Debug)]
pub(crate) struct LroRings {
    pub(crate) caps: HwLro,
    pub(crate) rings: [Option<RxRing<MAX_LRO_RING_SIZE>>; MAX_LRO_RINGS],
}

/// The LRO rings' DMA memory before the rings are built ([`LroRings::alloc`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LroMem {
    caps: HwLro,
    rings: [Option<(RxMem, RxRegs)>; MAX_LRO_RINGS],
}

impl LroMem {
    /// Gives the memory back (a later allocation failed before the rings were built).
    pub(crate) fn free<P: Platform>(&self, p: &P) {
        for (m, _) in self.rings.iter().flatten() {
            m.free(p);
        }
    }
}

impl LroRings {
    /// The DMA memory of rings for `caps` on PDMA rings 1..=n of `pdma`, from `p`; the rings
    /// themselves are built by [`LroRings::with`] where the caller puts them.
    pub(crate) fn alloc<P: Platform>(p: &P, caps: HwLro, pdma: &fe_regs::maps::PdmaMap) -> Result<LroMem, EthError> {
        let (rings, size) = (usize::from(caps.rings), usize::from(caps.ring_size));
        if rings == 0 || rings > MAX_LRO_RINGS || !size.is_power_of_two() || size > MAX_LRO_RING_SIZE {
            return Err(EthError::Unsupported(
                "hw_lro: 1 to 3 rings of a power-of-two size up to 64 descriptors are supported",
            ));
        }
        if caps.buffer_size as usize > MAX_LRO_BUF || caps.buffer_size >= 1 << 14 {
            return Err(EthError::Unsupported("hw_lro: buffers of at most 16 KiB are supported"));
        }
        let mut m = LroMem { caps, rings: [None; MAX_LRO_RINGS] };
        for k in 0..rings {
            let ring = k + 1;
            let (Some(base), Some(count), Some(cpu)) =
                (pdma.rx_ptr.at(ring), pdma.rx_cnt_cfg.at(ring), pdma.pcrx_ptr.at(ring))
            else {
                m.free(p);
                return Err(EthError::Unsupported("hw_lro needs a PDMA RX ring per LRO ring"));
            };
            match RxRing::<MAX_LRO_RING_SIZE>::alloc(p, size, caps.buffer_size as usize, Place::Dram) {
                Ok(r) => m.rings[k] = Some((r, RxRegs { base, count, cpu })),
                Err(e) => {
                    m.free(p);
                    return Err(e.into());
                }
            }
        }
        Ok(m)
    }

    /// The rings over `m` (from [`LroRings::alloc`]) in `layout`.
    #[inline(always)]
    pub(crate) fn with(m: LroMem, layout: DescriptorLayout) -> Self {
        LroRings { caps: m.caps, rings: m.rings.map(|r| r.map(|(mem, regs)| RxRing::with(mem, layout, regs))) }
    }

    /// Returns every ring's DMA memory to the platform.
    pub(crate) fn free<P: Platform>(&self, p: &P) {
        for r in self.rings.iter().flatten() {
            r.free(p);
        }
    }

    /// Number of LRO rings.
    pub(crate) fn count(&self) -> usize {
        self.rings.iter().flatten().count()
    }

    /// Buffers the engine holds.
    pub(crate) fn engine_held(&self) -> usize {
        self.rings.iter().flatten().map(RxRing::<MAX_LRO_RING_SIZE>::engine_held).sum()
    }
}
