//! Capability types: the per-SoC quirks the driver core selects from, filled by ddgen from the
//! `soc.capabilities` section of each YAML map.
//!
//! The types ([`Capabilities`] and those of its fields) are declared by ddgen from its one
//! capability schema (`codegen/src/caps_schema.rs`), the same definition every SoC's literal is
//! printed from, and re-exported here; this module adds only their behaviour (the `impl` blocks
//! below) and the handles [`CapField`] and [`CapFieldOn`]. To add a capability field, see
//! "Capabilities: one schema" in `regs/README.md`.

use crate::Space;
use crate::bus::Bus;

pub use crate::generated::caps_types::*;

/// The bits of one register (element) that a capability selects (its fields' mask), in their
/// space: what a capability's register and fields resolve to for one MAC or queue. Reach it
/// through the space's bus with [`CapField::on`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CapField {
    /// Space of the register.
    pub space: Space,
    /// Byte offset of the register (element) in its space.
    pub offset: u32,
    /// The selected bits.
    pub mask: u32,
}

impl CapField {
    /// A handle that changes these bits through `bus` (the bus of [`CapField::space`]).
    #[inline(always)]
    #[must_use]
    pub fn on<B: Bus>(self, bus: B) -> CapFieldOn<B> {
        CapFieldOn { bus, offset: self.offset as usize, mask: self.mask }
    }
}

/// A capability's bits on a bus: every change is one [`Bus::modify32`], so the register's
/// other bits are kept and the platform makes it atomic.
#[derive(Debug)]
pub struct CapFieldOn<B> {
    bus: B,
    offset: usize,
    mask: u32,
}

impl<B: Bus> CapFieldOn<B> {
    /// Sets every selected bit (`true`) or clears them all (`false`).
    #[inline(always)]
    pub fn set(&self, on: bool) {
        self.bus.modify32(self.offset, self.mask, if on { self.mask } else { 0 });
    }
    /// Writes the bits of `value` inside the mask (the others of `value` are ignored).
    #[inline(always)]
    pub fn put(&self, value: u32) {
        self.bus.modify32(self.offset, self.mask, value);
    }
    /// The selected bits as they are now (in place, the others zero).
    #[inline(always)]
    #[must_use]
    pub fn get(&self) -> u32 {
        self.bus.read32(self.offset) & self.mask
    }
}

impl RawReg {
    /// Offset of element `i` (a MAC index for per-MAC registers), or `None` when out of range.
    #[must_use]
    pub const fn at(&self, i: usize) -> Option<u32> {
        if i < self.count as usize { Some(self.offset + self.stride * i as u32) } else { None }
    }
}

impl FieldPos {
    /// The field's mask in the register.
    #[must_use]
    pub const fn mask(&self) -> u32 {
        (((1u64 << self.width) - 1) << self.lsb) as u32
    }
    /// `value` placed in the field (bits beyond the width are dropped).
    #[must_use]
    pub const fn encode(&self, value: u32) -> u32 {
        (value << self.lsb) & self.mask()
    }
}

impl RxChecksumCtl {
    /// The checksum bits of MAC `mac`, or `None` when the register has no such element.
    #[must_use]
    pub const fn at(&self, mac: usize) -> Option<CapField> {
        match self.reg.at(mac) {
            Some(offset) => Some(CapField { space: self.reg.space, offset, mask: self.mask }),
            None => None,
        }
    }
}

impl PathWrite {
    /// The bits this write sets, as a capability field ([`CapFieldOn::put`] makes the write).
    #[must_use]
    pub const fn field(&self) -> CapField {
        CapField { space: self.space, offset: self.offset, mask: self.mask }
    }
    /// `old` with this write applied.
    #[must_use]
    pub const fn apply(&self, old: u32) -> u32 {
        (old & !self.mask) | (self.value & self.mask)
    }
    /// Whether `current` holds what this write sets.
    #[must_use]
    pub const fn holds(&self, current: u32) -> bool {
        current & self.mask == self.value & self.mask
    }
}

impl ModerationLimits {
    /// The `*_ptime` field value: the time limit in register units of `unit_us`.
    #[must_use]
    pub const fn time_units(&self, unit_us: u32) -> u32 {
        match self.time_us.checked_div(unit_us) {
            Some(v) => v,
            None => 0,
        }
    }
}

impl ColdReset {
    /// The reset bits (element 0 of the register), or `None` when the register has none.
    #[must_use]
    pub const fn field(&self) -> Option<CapField> {
        match self.reg.at(0) {
            Some(offset) => Some(CapField { space: self.reg.space, offset, mask: self.mask }),
            None => None,
        }
    }
}

impl Shaper {
    /// Queue `queue`'s whole scheduler register, or `None` when the register has no such element.
    #[must_use]
    pub const fn at(&self, queue: usize) -> Option<CapField> {
        match self.reg.at(queue) {
            Some(offset) => Some(CapField { space: self.reg.space, offset, mask: u32::MAX }),
            None => None,
        }
    }
    /// The scheduler value that caps a queue at link speed `speed_mbps`, or `None` when the
    /// table has no entry for it (then only the base, min-rate value applies).
    #[must_use]
    pub fn value_for(&self, speed_mbps: u32) -> Option<u32> {
        let r = self.rates.iter().find(|r| r.speed_mbps == speed_mbps)?;
        let clear =
            self.max_rate_en.mask() | self.max_rate_man.mask() | self.max_rate_exp.mask() | self.max_rate_weight.mask();
        Some(
            (self.base & !clear)
                | self.max_rate_en.encode(1)
                | self.max_rate_man.encode(r.man as u32)
                | self.max_rate_exp.encode(r.exp as u32)
                | self.max_rate_weight.encode(r.weight as u32),
        )
    }
}

impl Capabilities {
    /// The path setup of MAC `mac` in phy mode `mode`, if the SoC has one.
    #[must_use]
    pub fn path_setup_for(&self, mac: u8, mode: &str) -> Option<&'static PathSetup> {
        self.path_setup.iter().find(|p| p.mac == mac && p.modes.contains(&mode))
    }
}
