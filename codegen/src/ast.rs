//! The YAML register language as written: one file, before `extends` is resolved.
//!
//! Every name and number keeps the location it was written at (`Spanned`), so later passes can
//! point at it. Unknown keys are rejected by the parser.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_saphyr::Spanned;
use std::fmt;

/// A YAML mapping from names to items, in source order, keeping where each name was written.
#[derive(Debug, Clone)]
pub struct Named<T>(pub Vec<(Spanned<String>, T)>);

impl<T> Default for Named<T> {
    fn default() -> Self {
        Named(Vec::new())
    }
}

impl<T> Named<T> {
    /// Iterates over `(name, item)` pairs in source order.
    pub fn iter(&self) -> impl Iterator<Item = &(Spanned<String>, T)> {
        self.0.iter()
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Named<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = Named<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a mapping from names to entries")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Named(Vec::new()))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while let Some(k) = map.next_key::<Spanned<String>>()? {
                    let v = map.next_value::<T>()?;
                    items.push((k, v));
                }
                Ok(Named(items))
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
}

/// Access kind of a register or field, as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Read-only: reads return hardware state; writes are ignored.
    Ro,
    /// Write-only: reads return nothing meaningful.
    Wo,
    /// Read-write.
    Rw,
    /// Write 1 to clear: reads return state, writing 1 clears the bit, writing 0 has no effect.
    W1c,
    /// Read to clear: reading returns state and clears it (counters).
    Rc,
}

impl Access {
    /// The keyword used in YAML.
    pub fn keyword(self) -> &'static str {
        match self {
            Access::Ro => "ro",
            Access::Wo => "wo",
            Access::Rw => "rw",
            Access::W1c => "w1c",
            Access::Rc => "rc",
        }
    }
    /// Whether software can read a meaningful value.
    pub fn readable(self) -> bool {
        !matches!(self, Access::Wo)
    }
    /// Whether software writes have an effect.
    pub fn writable(self) -> bool {
        matches!(self, Access::Wo | Access::Rw | Access::W1c)
    }
}

/// A bit range: `5` (one bit) or `"29:16"` (msb:lsb, inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bits {
    /// Lowest bit.
    pub lsb: u32,
    /// Number of bits (at least 1).
    pub width: u32,
}

impl Bits {
    /// One past the highest bit, computed without overflow for any YAML value.
    pub fn end(self) -> u64 {
        u64::from(self.lsb).saturating_add(u64::from(self.width))
    }

    /// The largest value the field holds (all ones; `u64::MAX` from 64 bits up).
    pub fn max_value(self) -> u64 {
        1u64.checked_shl(self.width).map_or(u64::MAX, |v| v.wrapping_sub(1))
    }

    /// The highest bit (the lsb for a width of 0, which validation rejects).
    pub fn msb(self) -> u64 {
        self.end().saturating_sub(1).max(u64::from(self.lsb))
    }
}

impl<'de> Deserialize<'de> for Bits {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Bits;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a bit number such as 5 or a range \"msb:lsb\" such as \"29:16\"")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Bits, E> {
                let lsb = u32::try_from(v).map_err(|_| E::custom("bit number too large"))?;
                Ok(Bits { lsb, width: 1 })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Bits, E> {
                if v < 0 {
                    return Err(E::custom(format!("bit number {v} is negative")));
                }
                self.visit_u64(v as u64)
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Bits, E> {
                let parse = |t: &str| -> Result<u32, E> {
                    t.trim()
                        .parse::<u32>()
                        .map_err(|_| E::custom(format!("`{s}` is not a bit range; write \"msb:lsb\", e.g. \"29:16\"")))
                };
                match s.split_once(':') {
                    None => Ok(Bits { lsb: parse(s)?, width: 1 }),
                    Some((hi, lo)) => {
                        let (msb, lsb) = (parse(hi)?, parse(lo)?);
                        if msb < lsb {
                            return Err(E::custom(format!(
                                "bit range `{s}` is reversed; write the high bit first (\"{lsb}:{msb}\")"
                            )));
                        }
                        match msb.checked_sub(lsb).and_then(|d| d.checked_add(1)) {
                            Some(width) => Ok(Bits { lsb, width }),
                            None => Err(E::custom(format!("bit range `{s}` is wider than any register"))),
                        }
                    }
                }
            }
        }
        d.deserialize_any(V)
    }
}

/// One YAML file of the register language.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct File {
    /// Name of this map (the SoC name, e.g. `mt7621`, or a base name).
    pub name: Spanned<String>,
    /// A base that other files extend; generates no SoC.
    #[serde(default, rename = "abstract")]
    pub is_abstract: bool,
    /// Name of the map this one derives from.
    pub extends: Option<Spanned<String>>,
    /// Human description.
    pub description: Option<String>,
    /// Address spaces (frame engine, ETHSYS syscon).
    #[serde(default)]
    pub spaces: Named<Space>,
    /// DMA descriptor layouts.
    #[serde(default)]
    pub descriptors: Named<Descriptor>,
    /// Compatible strings and capabilities.
    pub soc: Option<Spanned<SocSection>>,
    /// Inherited items this map drops, as paths: `space.block`, `space.block.register`,
    /// `space.block.register.field`, `descriptors.layout`, `descriptors.layout.field` or
    /// `capabilities.name`. Needs `extends`; applied before this file's own items.
    #[serde(default)]
    pub remove: Vec<Spanned<String>>,
}

/// An address space: a set of blocks relative to one base address.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Space {
    /// Human description.
    pub description: Option<String>,
    /// Where the device tree says this space is (inherited through `extends` when absent).
    pub dt: Option<Spanned<SpaceDt>>,
    /// Blocks by name.
    #[serde(default)]
    pub blocks: Named<Block>,
}

/// How the device tree locates a space: `property: reg` is the Ethernet node's own `reg`; any
/// other property is a phandle list on the Ethernet node naming a syscon node, whose `reg` is
/// the space (`index` picks the phandle, default 0).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpaceDt {
    /// `reg`, or a phandle property of the Ethernet node (`mediatek,ethsys`).
    pub property: Spanned<String>,
    /// Which phandle of the property's list (default 0).
    pub index: Option<Spanned<u64>>,
}

/// Repetition of a block or register.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Array {
    /// Number of elements.
    pub count: Spanned<u64>,
    /// Bytes between elements.
    pub stride: Spanned<u64>,
}

/// A block of registers at a base offset in its space.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Block {
    /// Offset of the block in its space (required for a new block).
    pub base: Option<Spanned<u64>>,
    /// Repeat the block.
    pub array: Option<Spanned<Array>>,
    /// Human description.
    pub description: Option<String>,
    /// Registers by name.
    #[serde(default)]
    pub registers: Named<Register>,
}

/// A 32-bit register.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Register {
    /// Offset inside the block (required for a new register).
    pub offset: Option<Spanned<u64>>,
    /// Access kind (default `rw`).
    pub access: Option<Spanned<Access>>,
    /// Value after reset (default 0).
    pub reset: Option<Spanned<u64>>,
    /// Repeat the register.
    pub array: Option<Spanned<Array>>,
    /// Human description.
    pub description: Option<String>,
    /// Fields by name.
    #[serde(default)]
    pub fields: Named<Field>,
}

/// A field of a register.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Field {
    /// Bit range (required for a new field).
    pub bits: Option<Spanned<Bits>>,
    /// Access kind (default: the register's).
    pub access: Option<Spanned<Access>>,
    /// Human description.
    pub description: Option<String>,
    /// Named values.
    #[serde(rename = "enum")]
    pub values: Option<Named<Spanned<u64>>>,
    /// A field repeated in the register: `count` elements, `stride` *bits* apart (element `n`
    /// at `bits` moved up by `n * stride`).
    pub array: Option<Spanned<Array>>,
}

/// A DMA descriptor layout: little-endian 32-bit words.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Descriptor {
    /// Size in bytes (a multiple of 4; required for a new layout).
    pub size: Option<Spanned<u64>>,
    /// Human description.
    pub description: Option<String>,
    /// Fields by name.
    #[serde(default)]
    pub fields: Named<DescField>,
}

/// A field of a descriptor word.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct DescField {
    /// Word index (0 = first 32-bit word).
    pub word: Option<Spanned<u64>>,
    /// Bit range inside the word.
    pub bits: Option<Spanned<Bits>>,
    /// Human description.
    pub description: Option<String>,
}

/// The SoC section: what makes a map a concrete SoC.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SocSection {
    /// Device-tree compatible strings that select this SoC.
    pub compatible: Option<Vec<Spanned<String>>>,
    /// Capabilities and quirks.
    #[serde(default)]
    pub capabilities: Capabilities,
}

/// Reference to a register by `space.block.register`.
pub type RegPath = Spanned<String>;

/// Capabilities as written; in a derived file each one given replaces the base's.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Capabilities {
    /// Where RX checksum checking is switched on and off.
    pub rx_checksum: Option<Spanned<RegBits>>,
    /// Number of QDMA TX queues.
    pub tx_queues: Option<Spanned<u64>>,
    /// Number of normal (non-LRO) PDMA RX rings the driver uses.
    pub rx_rings: Option<Spanned<u64>>,
    /// Hardware LRO (`none` or its parameters).
    pub hw_lro: Option<Spanned<HwLroSpec>>,
    /// Interrupt lines.
    pub irq: Option<Spanned<Irq>>,
    /// Name of the TX descriptor layout.
    pub tx_descriptor: Option<Spanned<String>>,
    /// Name of the RX descriptor layout.
    pub rx_descriptor: Option<Spanned<String>>,
    /// Where DMA rings live.
    pub rings: Option<Spanned<Rings>>,
    /// Cold reset: register and mask.
    pub cold_reset: Option<Spanned<RegMask>>,
    /// QDMA shaper encoding and per-link-speed table.
    pub shaper: Option<Spanned<Shaper>>,
    /// Per-MAC facts (index = MAC id).
    pub macs: Option<Spanned<Vec<Mac>>>,
    /// Clock names the device tree must provide.
    pub clocks: Option<Spanned<Vec<Spanned<String>>>>,
    /// MAC interface and path setup: per MAC and interface class, the fields to set.
    pub path_setup: Option<Spanned<Vec<Spanned<PathEntry>>>>,
}

/// One path-setup entry: for these MACs in these phy modes, set these fields in this order.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathEntry {
    /// MAC ids (index in `macs`).
    pub macs: Vec<Spanned<u64>>,
    /// The interface class: `phy-mode` strings this entry is for.
    pub modes: Vec<Spanned<String>>,
    /// Register writes in order (each a read-modify-write of the named fields); may be empty.
    #[serde(default)]
    pub set: Vec<Spanned<PathWrite>>,
}

/// One read-modify-write of path setup.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathWrite {
    /// `space.block.register`.
    pub register: RegPath,
    /// Element of an arrayed register or block; absent: every element.
    pub index: Option<Spanned<u64>>,
    /// Field name to value (a number or one of the field's enum names).
    pub fields: Named<Spanned<FieldValue>>,
}

/// A field value in path setup: a number or an enum name of the field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldValue {
    /// A number.
    Num(u64),
    /// An enum name of the field.
    Name(String),
}

impl<'de> Deserialize<'de> for FieldValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FieldValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or an enum name of the field")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<FieldValue, E> {
                Ok(FieldValue::Num(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<FieldValue, E> {
                u64::try_from(v).map(FieldValue::Num).map_err(|_| E::custom(format!("negative field value {v}")))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<FieldValue, E> {
                Ok(FieldValue::Num(u64::from(v)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<FieldValue, E> {
                Ok(FieldValue::Name(s.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// A register and some of its fields.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegBits {
    /// `space.block.register`.
    pub register: RegPath,
    /// Field names in that register.
    pub fields: Vec<Spanned<String>>,
}

/// A register and a raw mask.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegMask {
    /// `space.block.register`.
    pub register: RegPath,
    /// Bits to act on.
    pub mask: Spanned<u64>,
}

/// `hw_lro: none` or the LRO parameters.
#[derive(Debug, Clone)]
pub enum HwLroSpec {
    /// The SoC has no hardware LRO.
    None,
    /// The SoC has hardware LRO.
    Some(Box<HwLro>),
}

impl<'de> Deserialize<'de> for HwLroSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = HwLroSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("`none` or a mapping of hardware LRO parameters")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<HwLroSpec, E> {
                if s == "none" {
                    Ok(HwLroSpec::None)
                } else {
                    Err(E::custom(format!("expected `none` or a mapping, found `{s}`")))
                }
            }
            fn visit_unit<E: de::Error>(self) -> Result<HwLroSpec, E> {
                Ok(HwLroSpec::None)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<HwLroSpec, A::Error> {
                HwLro::deserialize(de::value::MapAccessDeserializer::new(map)).map(|l| HwLroSpec::Some(Box::new(l)))
            }
        }
        d.deserialize_any(V)
    }
}

/// Hardware LRO parameters.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HwLro {
    /// Number of LRO rings (they follow the normal rings).
    pub rings: Spanned<u64>,
    /// Descriptors per LRO ring.
    pub ring_size: Spanned<u64>,
    /// Buffer size per LRO descriptor in bytes.
    pub buffer_size: Spanned<u64>,
    /// Most segments merged into one buffer.
    pub max_segments: Spanned<u64>,
    /// Hardware timer unit in microseconds.
    pub timer_unit_us: Spanned<u64>,
    /// Age time (flush an idle flow) in microseconds.
    pub age_time_us: Spanned<u64>,
    /// Longest aggregation in microseconds.
    pub max_agg_time_us: Spanned<u64>,
    /// Room (bytes) that must remain in a buffer to add a segment.
    pub min_room: Spanned<u64>,
    /// Destination-IP rules per MAC.
    pub dip_rules_per_mac: Spanned<u64>,
}

/// Interrupt lines: either one shared line, or separate TX and RX lines.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Irq {
    /// Number of entries in the device tree's `interrupts`.
    pub lines: Spanned<u64>,
    /// Index of the one shared line.
    pub shared: Option<Spanned<u64>>,
    /// Index of the TX line.
    pub tx: Option<Spanned<u64>>,
    /// Index of the RX line.
    pub rx: Option<Spanned<u64>>,
    /// `interrupt-names` entries looked up first (the index is the fallback when the node has
    /// no `interrupt-names`): the same roles as the indices (`shared`, or `tx` and `rx`).
    pub names: Option<Spanned<IrqNames>>,
    /// Interrupt moderation through the delay-interrupt registers (`pdma.delay_irq`,
    /// `qdma.delay_irq`), programmed at open; absent: every completion interrupts at once.
    pub moderation: Option<Spanned<IrqModeration>>,
}

/// Interrupt names by role.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IrqNames {
    /// Name of the one shared line.
    pub shared: Option<Spanned<String>>,
    /// Name of the TX line.
    pub tx: Option<Spanned<String>>,
    /// Name of the RX line.
    pub rx: Option<Spanned<String>>,
}

/// Interrupt moderation: when the delayed RX/TX done interrupt fires.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IrqModeration {
    /// Unit of the registers' time-limit fields (`rx_ptime`, `tx_ptime`) in microseconds.
    pub time_unit_us: Spanned<u64>,
    /// Limits for the RX done interrupt.
    pub rx: Spanned<ModerationLimits>,
    /// Limits for the TX done interrupt.
    pub tx: Spanned<ModerationLimits>,
}

/// One direction's moderation: the interrupt fires when either limit is reached (0: unused).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModerationLimits {
    /// Completions held before the interrupt fires (the `*_pint` field).
    pub packets: Spanned<u64>,
    /// Longest time the first held completion waits, in microseconds (a multiple of the unit).
    pub time_us: Spanned<u64>,
}

/// Where rings live: `dram`, or `{sram: OFFSET}` in the frame-engine space.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rings {
    /// Offset of on-chip SRAM for rings, in the frame-engine space.
    pub sram: Option<Spanned<u64>>,
    /// Rings in system memory.
    #[serde(default)]
    pub dram: bool,
}

/// The QDMA shaper: register, field names and a per-link-speed rate table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Shaper {
    /// Per-queue scheduler register (`space.block.register`).
    pub register: RegPath,
    /// Value written to every queue at init (min-rate only, no max-rate).
    pub base: Spanned<u64>,
    /// Rate table: max-rate settings per link speed.
    pub rates: Vec<Spanned<ShaperRate>>,
}

/// Max-rate setting for one link speed: rate = man * 10^exp kbit/s.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShaperRate {
    /// Link speed in Mbit/s.
    pub speed: u64,
    /// Mantissa.
    pub man: u64,
    /// Exponent.
    pub exp: u64,
    /// WFQ weight.
    pub weight: u64,
}

/// Per-MAC facts.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mac {
    /// `phy-mode` strings this MAC accepts.
    pub phy_modes: Vec<Spanned<String>>,
}
