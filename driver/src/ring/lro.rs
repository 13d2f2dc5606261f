//! The hardware-LRO rings (PDMA rings 1..=n on SoCs whose capabilities have `hw_lro`): each an
//! [`RxRing`] like ring 0, with the capability that sizes them. What the engine does with them
//! is in [`crate::hwlro`].

use crate::error::EthError;
use crate::platform::Platform;
use crate::ring::mem::Place;
use crate::ring::rx::{RxMem, RxRegs, RxRing};
use alloc::vec::Vec;
use fe_regs::caps::HwLro;
use fe_regs::descriptors::DescriptorLayout;

/// Most LRO rings the core drives.
pub const MAX_LRO_RINGS: usize = 3;
/// Most descriptors per LRO ring.
pub const MAX_LRO_RING_SIZE: usize = 64;
/// Largest LRO buffer (the RX scratch buffer is this big).
pub const MAX_LRO_BUF: usize = 16384;

/// The LRO rings (PDMA rings 1..=n): [`RxRing`]s like ring 0, with the capabilities that
/// program them (none on a SoC without hardware LRO).
#[derive(Debug)]
pub(crate) struct LroRings {
    caps: Option<HwLro>,
    rings: Vec<RxRing<MAX_LRO_RING_SIZE>>,
}

/// The LRO rings' DMA memory before the rings are built ([`LroRings::alloc`]).
#[derive(Debug)]
pub(crate) struct LroMem {
    caps: Option<HwLro>,
    rings: Vec<(RxMem<MAX_LRO_RING_SIZE>, RxRegs)>,
    /// Room for the rings, reserved here so that [`LroRings::with`] never allocates.
    room: Vec<RxRing<MAX_LRO_RING_SIZE>>,
}

impl LroMem {
    /// No LRO rings (a SoC without hardware LRO).
    pub(crate) fn none() -> Self {
        LroMem { caps: None, rings: Vec::new(), room: Vec::new() }
    }

    /// Gives the memory back (a later allocation failed before the rings were built).
    pub(crate) fn free<P: Platform>(&self, p: &P) {
        for (m, _) in &self.rings {
            m.free(p);
        }
    }
}

impl LroRings {
    /// The DMA memory of rings for `caps` on PDMA rings 1..=n of `pdma`, from `p`; the rings
    /// themselves are built by [`LroRings::with`].
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
        let mut m = LroMem { caps: Some(caps), rings: crate::heap::list(rings)?, room: crate::heap::list(rings)? };
        for k in 0..rings {
            let ring = k + 1;
            let (Some(base), Some(count), Some(cpu)) =
                (pdma.rx_ptr.at(ring), pdma.rx_cnt_cfg.at(ring), pdma.pcrx_ptr.at(ring))
            else {
                m.free(p);
                return Err(EthError::Unsupported("hw_lro needs a PDMA RX ring per LRO ring"));
            };
            match RxRing::<MAX_LRO_RING_SIZE>::alloc(p, size, caps.buffer_size as usize, Place::Dram) {
                // Within the reservation: no allocation.
                Ok(r) => m.rings.push((r, RxRegs { base, count, cpu })),
                Err(e) => {
                    m.free(p);
                    return Err(e.into());
                }
            }
        }
        Ok(m)
    }

    /// The rings over `m` (from [`LroRings::alloc`] or [`LroMem::none`]) in `layout`, in the
    /// list `m` reserved (no allocation).
    pub(crate) fn with(m: LroMem, layout: DescriptorLayout) -> Self {
        let LroMem { caps, rings: mems, room: mut rings } = m;
        // `room` holds as many as `mems`: pushed, never grown.
        rings.extend(mems.into_iter().map(|(m, r)| RxRing::with(m, layout, r)));
        LroRings { caps, rings }
    }

    /// Whether the SoC has hardware LRO (there are rings).
    #[must_use]
    pub(crate) fn present(&self) -> bool {
        !self.rings.is_empty()
    }

    /// The hardware-LRO capability, when the SoC has it.
    pub(crate) fn caps(&self) -> Option<HwLro> {
        self.caps
    }

    /// The rings in use.
    pub(crate) fn rings_mut(&mut self) -> &mut [RxRing<MAX_LRO_RING_SIZE>] {
        &mut self.rings
    }

    /// Returns every ring's DMA memory to the platform.
    pub(crate) fn free<P: Platform>(&self, p: &P) {
        for r in &self.rings {
            r.free(p);
        }
    }

    /// Number of LRO rings.
    pub(crate) fn count(&self) -> usize {
        self.rings.len()
    }

    /// Buffers the engine holds.
    pub(crate) fn engine_held(&self) -> usize {
        self.rings.iter().map(RxRing::<MAX_LRO_RING_SIZE>::engine_held).sum()
    }
}
