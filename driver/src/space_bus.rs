//! The bus of any space, for registers a capability selects (they may live in `fe` or in a
//! syscon): `p.cap(field)` gives a [`CapFieldOn`] handle on the right bus, so the core changes
//! capability bits without matching over spaces or writing raw offsets.

use crate::platform::Platform;
use fe_regs::Space;
use fe_regs::bus::Bus;
use fe_regs::caps::{CapField, CapFieldOn};

/// The frame-engine bus or a syscon's: the platform's two bus types behind one [`Bus`].
#[derive(Debug)]
pub enum SpaceBus<F, S> {
    /// Space `fe`.
    Fe(F),
    /// Any other space.
    Syscon(S),
}

impl<F: Bus, S: Bus> Bus for SpaceBus<F, S> {
    #[inline(always)]
    fn read32(&self, offset: usize) -> u32 {
        match self {
            SpaceBus::Fe(b) => b.read32(offset),
            SpaceBus::Syscon(b) => b.read32(offset),
        }
    }
    #[inline(always)]
    fn write32(&self, offset: usize, value: u32) {
        match self {
            SpaceBus::Fe(b) => b.write32(offset, value),
            SpaceBus::Syscon(b) => b.write32(offset, value),
        }
    }
    #[inline(always)]
    fn modify32(&self, offset: usize, mask: u32, value: u32) {
        match self {
            SpaceBus::Fe(b) => b.modify32(offset, mask, value),
            SpaceBus::Syscon(b) => b.modify32(offset, mask, value),
        }
    }
}

/// Capability registers on the platform's buses.
pub trait CapBus: Platform {
    /// The bus of `space`, or `None` when the platform has no window for it.
    fn space_bus(&self, space: Space) -> Option<SpaceBus<Self::Fe, Self::Syscon>>;
    /// `field` on the bus of its space, or `None` when the platform has no window for it
    /// (`Eth::new` checks the spaces the board needs).
    fn cap(&self, field: CapField) -> Option<CapFieldOn<SpaceBus<Self::Fe, Self::Syscon>>> {
        Some(field.on(self.space_bus(field.space)?))
    }
}

impl<P: Platform> CapBus for P {
    #[inline(always)]
    fn space_bus(&self, space: Space) -> Option<SpaceBus<P::Fe, P::Syscon>> {
        if space == Space::Fe { Some(SpaceBus::Fe(self.fe())) } else { self.syscon(space).map(SpaceBus::Syscon) }
    }
}
