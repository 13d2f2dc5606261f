//! Capability types: the per-SoC quirks the driver core selects from, filled by ddgen from the
//! `soc.capabilities` section of each YAML map.

use crate::Space;
use crate::bus::Bus;
use crate::descriptors::DescriptorLayout;

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

/// A register named by a capability: offset of element 0, stride and count.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RawReg {
    /// Address space.
    pub space: Space,
    /// Byte offset of element 0.
    pub offset: u32,
    /// Bytes between elements (0 for a single register).
    pub stride: u32,
    /// Number of elements.
    pub count: u16,
}

impl RawReg {
    /// A register (array) in `space`.
    #[must_use]
    pub const fn new(space: Space, offset: u32, stride: u32, count: u16) -> Self {
        RawReg { space, offset, stride, count }
    }
    /// Offset of element `i` (a MAC index for per-MAC registers), or `None` when out of range.
    #[must_use]
    pub const fn at(&self, i: usize) -> Option<u32> {
        if i < self.count as usize { Some(self.offset + self.stride * i as u32) } else { None }
    }
}

/// Position of a field in a register.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FieldPos {
    /// Lowest bit.
    pub lsb: u8,
    /// Width in bits.
    pub width: u8,
}

impl FieldPos {
    /// A field of `width` bits at `lsb`.
    #[must_use]
    pub const fn new(lsb: u8, width: u8) -> Self {
        FieldPos { lsb, width }
    }
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

/// Where RX checksum checking is switched: a per-MAC register and the ICS/TCS/UCS bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RxChecksumCtl {
    /// The register (one element per MAC).
    pub reg: RawReg,
    /// The enable bits.
    pub mask: u32,
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

/// Hardware LRO parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct HwLro {
    /// Number of LRO rings (after the normal rings).
    pub rings: u8,
    /// Descriptors per LRO ring.
    pub ring_size: u16,
    /// Buffer bytes per LRO descriptor.
    pub buffer_size: u32,
    /// Most segments per aggregate.
    pub max_segments: u8,
    /// Hardware timer unit in microseconds.
    pub timer_unit_us: u32,
    /// Age time in microseconds.
    pub age_time_us: u32,
    /// Longest aggregation in microseconds.
    pub max_agg_time_us: u32,
    /// Room in bytes that must remain in a buffer to add a segment.
    pub min_room: u32,
    /// Destination-IP rules per MAC.
    pub dip_rules_per_mac: u8,
}

/// How interrupts are wired.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IrqLayout {
    /// One line for TX and RX.
    Shared {
        /// Index in the device tree's `interrupts`.
        line: u8,
    },
    /// Separate TX and RX lines.
    Split {
        /// Index of the TX line.
        tx: u8,
        /// Index of the RX line.
        rx: u8,
    },
}

/// Interrupt lines of the frame engine.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Irq {
    /// Entries expected in the device tree's `interrupts`.
    pub lines: u8,
    /// Which lines the driver uses.
    pub layout: IrqLayout,
    /// Interrupt moderation the driver programs at open (`None`: every completion interrupts).
    pub moderation: Option<IrqModeration>,
    /// `interrupt-names` looked up first, when the node has that property (else the indices).
    pub names: Option<IrqNames>,
}

/// `interrupt-names` entries of the lines the driver uses (the shared line's name twice).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IrqNames {
    /// Name of the TX line.
    pub tx: &'static str,
    /// Name of the RX line.
    pub rx: &'static str,
}

/// One read-modify-write of path setup on one register (element).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PathWrite {
    /// Space of the register.
    pub space: Space,
    /// `space.block.register` (with `[i]` for an array element), for reports.
    pub register: &'static str,
    /// Byte offset in the space.
    pub offset: u32,
    /// Bits written.
    pub mask: u32,
    /// Their value (inside `mask`).
    pub value: u32,
    /// Field names and values as the YAML writes them, for reports.
    pub fields: &'static [(&'static str, u32)],
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

/// MAC interface and path setup of one MAC for a class of phy modes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PathSetup {
    /// MAC id.
    pub mac: u8,
    /// The phy modes (interface class) this setup is for.
    pub modes: &'static [&'static str],
    /// Writes, in order.
    pub writes: &'static [PathWrite],
}

/// One direction's interrupt moderation: the delayed done interrupt fires when `packets`
/// completions are held or the first has waited `time_us` (a limit of 0 is unused).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ModerationLimits {
    /// Completions held before the interrupt fires (`*_pint`).
    pub packets: u8,
    /// Longest wait of the first held completion, in microseconds.
    pub time_us: u32,
}

/// Interrupt moderation through the delay-interrupt registers (`pdma.delay_irq`,
/// `qdma.delay_irq`, same layout): limits per direction and the unit of the time fields.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct IrqModeration {
    /// Unit of the registers' `*_ptime` fields in microseconds.
    pub time_unit_us: u32,
    /// RX done limits.
    pub rx: ModerationLimits,
    /// TX done limits.
    pub tx: ModerationLimits,
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

/// Where the DMA rings live.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RingPlacement {
    /// In system memory.
    Dram,
    /// In on-chip SRAM at this offset of the frame-engine space.
    Sram {
        /// Byte offset in the `fe` space.
        offset: u32,
    },
}

/// The cold reset: bits pulsed in the ETHSYS reset register.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ColdReset {
    /// The reset-control register.
    pub reg: RawReg,
    /// Bits to assert and deassert.
    pub mask: u32,
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

/// Max-rate setting for one link speed: rate = `man` * 10^`exp` kbit/s.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ShaperRate {
    /// Link speed in Mbit/s.
    pub speed_mbps: u32,
    /// Mantissa.
    pub man: u16,
    /// Exponent.
    pub exp: u8,
    /// WFQ weight.
    pub weight: u8,
}

/// The QDMA per-queue shaper and its encoding.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shaper {
    /// Per-queue scheduler register (one element per queue).
    pub reg: RawReg,
    /// Value written at init (min-rate only, no max-rate).
    pub base: u32,
    /// Max-rate enable bit.
    pub max_rate_en: FieldPos,
    /// Max-rate mantissa.
    pub max_rate_man: FieldPos,
    /// Max-rate exponent.
    pub max_rate_exp: FieldPos,
    /// Max-rate weight.
    pub max_rate_weight: FieldPos,
    /// Max-rate table per link speed.
    pub rates: &'static [ShaperRate],
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

/// Facts about one MAC.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MacCaps {
    /// `phy-mode` strings this MAC accepts.
    pub phy_modes: &'static [&'static str],
}

/// Capabilities and quirks of one SoC.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// RX checksum control.
    pub rx_checksum: RxChecksumCtl,
    /// Number of QDMA TX queues.
    pub tx_queues: u8,
    /// Normal PDMA RX rings used.
    pub rx_rings: u8,
    /// Hardware LRO, if the SoC has it.
    pub hw_lro: Option<HwLro>,
    /// Interrupt lines.
    pub irq: Irq,
    /// TX descriptor layout.
    pub tx_descriptor: DescriptorLayout,
    /// RX descriptor layout.
    pub rx_descriptor: DescriptorLayout,
    /// Where rings live.
    pub rings: RingPlacement,
    /// Cold reset.
    pub cold_reset: ColdReset,
    /// QDMA shaper.
    pub shaper: Shaper,
    /// Per-MAC facts, indexed by MAC id.
    pub macs: &'static [MacCaps],
    /// Clock names the device tree must provide.
    pub clocks: &'static [&'static str],
    /// MAC interface and path setup per MAC and phy-mode class.
    pub path_setup: &'static [PathSetup],
}

impl Capabilities {
    /// The path setup of MAC `mac` in phy mode `mode`, if the SoC has one.
    #[must_use]
    pub fn path_setup_for(&self, mac: u8, mode: &str) -> Option<&'static PathSetup> {
        self.path_setup.iter().find(|p| p.mac == mac && p.modes.contains(&mode))
    }
}
