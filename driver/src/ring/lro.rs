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
/// program them. Present in every driver (no rings on a SoC without hardware LRO), so that the
/// driver is built in place: an `Option` of it or an array built by `map` went through the
/// constructor's stack frame first.
#[derive(Debug)]
pub(crate) struct LroRings {
    caps: Option<HwLro>,
    /// Rings in use: `rings[..count]`. The slots past it are inert copies of a placeholder
    /// table, never programmed, polled or freed.
    count: usize,
    rings: [RxRing<MAX_LRO_RING_SIZE>; MAX_LRO_RINGS],
}

/// The LRO rings' DMA memory before the rings are built ([`LroRings::alloc`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LroMem {
    caps: Option<HwLro>,
    count: usize,
    rings: [(RxMem, RxRegs); MAX_LRO_RINGS],
}

impl LroMem {
    /// No LRO rings (a SoC without hardware LRO); `regs` fills the unused slots.
    pub(crate) fn none(regs: RxRegs) -> Self {
        LroMem { caps: None, count: 0, rings: [(RxMem::UNUSED, regs); MAX_LRO_RINGS] }
    }

    /// Gives the memory back (a later allocation failed before the rings were built).
    pub(crate) fn free<P: Platform>(&self, p: &P) {
        for (m, _) in &self.rings[..self.count] {
            m.free(p);
        }
    }
}

impl LroRings {
    /// The DMA memory of rings for `caps` on PDMA rings 1..=n of `pdma`, from `p` (`regs`, ring
    /// 0's registers, fill the slots of rings the SoC does not have); the rings themselves are
    /// built by [`LroRings::with`] where the caller puts them.
    pub(crate) fn alloc<P: Platform>(
        p: &P,
        caps: HwLro,
        pdma: &fe_regs::maps::PdmaMap,
        regs: RxRegs,
    ) -> Result<LroMem, EthError> {
        let (rings, size) = (usize::from(caps.rings), usize::from(caps.ring_size));
        if rings == 0 || rings > MAX_LRO_RINGS || !size.is_power_of_two() || size > MAX_LRO_RING_SIZE {
            return Err(EthError::Unsupported(
                "hw_lro: 1 to 3 rings of a power-of-two size up to 64 descriptors are supported",
            ));
        }
        if caps.buffer_size as usize > MAX_LRO_BUF || caps.buffer_size >= 1 << 14 {
            return Err(EthError::Unsupported("hw_lro: buffers of at most 16 KiB are supported"));
        }
        let mut m = LroMem { caps: Some(caps), ..LroMem::none(regs) };
        for k in 0..rings {
            let ring = k + 1;
            let (Some(base), Some(count), Some(cpu)) =
                (pdma.rx_ptr.at(ring), pdma.rx_cnt_cfg.at(ring), pdma.pcrx_ptr.at(ring))
            else {
                m.free(p);
                return Err(EthError::Unsupported("hw_lro needs a PDMA RX ring per LRO ring"));
            };
            match RxRing::<MAX_LRO_RING_SIZE>::alloc(p, size, caps.buffer_size as usize, Place::Dram) {
                Ok(r) => {
                    m.rings[k] = (r, RxRegs { base, count, cpu });
                    m.count = k + 1;
                }
                Err(e) => {
                    m.free(p);
                    return Err(e.into());
                }
            }
        }
        Ok(m)
    }

    /// The rings over `m` (from [`LroRings::alloc`] or [`LroMem::none`]) in `layout`: one
    /// literal of three rings, which the compiler builds in the caller's place.
    #[inline(always)]
    pub(crate) fn with(m: LroMem, layout: DescriptorLayout) -> Self {
        let [(m0, r0), (m1, r1), (m2, r2)] = m.rings;
        LroRings {
            caps: m.caps,
            count: m.count,
            rings: [RxRing::with(m0, layout, r0), RxRing::with(m1, layout, r1), RxRing::with(m2, layout, r2)],
        }
    }

    /// Whether the SoC has hardware LRO (there are rings).
    #[must_use]
    pub(crate) fn present(&self) -> bool {
        self.count > 0
    }

    /// The hardware-LRO capability, when the SoC has it.
    pub(crate) fn caps(&self) -> Option<HwLro> {
        self.caps
    }

    /// The rings in use.
    pub(crate) fn rings_mut(&mut self) -> &mut [RxRing<MAX_LRO_RING_SIZE>] {
        &mut self.rings[..self.count]
    }

    /// Returns every ring's DMA memory to the platform.
    pub(crate) fn free<P: Platform>(&self, p: &P) {
        for r in &self.rings[..self.count] {
            r.free(p);
        }
    }

    /// Number of LRO rings.
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// Buffers the engine holds.
    pub(crate) fn engine_held(&self) -> usize {
        self.rings[..self.count].iter().map(RxRing::<MAX_LRO_RING_SIZE>::engine_held).sum()
    }
}
