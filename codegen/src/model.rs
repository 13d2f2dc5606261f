//! The resolved register model: one [`Map`] per YAML file after `extends` is applied.

use crate::ast::{self, Access, Bits};
use crate::source::{FileId, Sp, Span};
use serde_saphyr::Spanned;

/// A YAML value tagged with the file it came from.
#[derive(Debug, Clone)]
pub struct In<T> {
    /// File that wrote the value.
    pub file: FileId,
    /// The value with its location.
    pub value: Spanned<T>,
}

impl<T> In<T> {
    /// The span of the value.
    pub fn span(&self) -> Span {
        Span::from_location(self.file, &self.value.referenced)
    }
}

/// A resolved register map (a SoC, or an abstract base).
#[derive(Debug, Clone)]
pub struct Map {
    /// Name (`mt7621`).
    pub name: Sp<String>,
    /// The file that defined this map.
    pub file: FileId,
    /// An abstract base: no SoC is generated for it.
    pub is_abstract: bool,
    /// The chain of maps this one derives from, nearest first.
    pub ancestors: Vec<String>,
    /// Human description.
    pub description: String,
    /// Address spaces.
    pub spaces: Vec<Space>,
    /// Descriptor layouts.
    pub descriptors: Vec<Descriptor>,
    /// Compatible strings (never inherited).
    pub compatible: Vec<Sp<String>>,
    /// Where the `soc:` section is (for "missing ..." errors), if any.
    pub soc_span: Option<Span>,
    /// Capabilities, each from the file that last set it.
    pub caps: Caps,
    /// The `remove:` paths of this map's own file that took effect (not inherited).
    pub removed: Vec<Sp<String>>,
}

/// Capabilities as merged over the `extends` chain.
#[derive(Debug, Clone, Default)]
pub struct Caps {
    /// See [`ast::Capabilities::rx_checksum`].
    pub rx_checksum: Option<In<ast::RegBits>>,
    /// See [`ast::Capabilities::tx_queues`].
    pub tx_queues: Option<In<u64>>,
    /// See [`ast::Capabilities::rx_rings`].
    pub rx_rings: Option<In<u64>>,
    /// See [`ast::Capabilities::hw_lro`].
    pub hw_lro: Option<In<ast::HwLroSpec>>,
    /// See [`ast::Capabilities::irq`].
    pub irq: Option<In<ast::Irq>>,
    /// See [`ast::Capabilities::tx_descriptor`].
    pub tx_descriptor: Option<In<String>>,
    /// See [`ast::Capabilities::rx_descriptor`].
    pub rx_descriptor: Option<In<String>>,
    /// See [`ast::Capabilities::rings`].
    pub rings: Option<In<ast::Rings>>,
    /// See [`ast::Capabilities::cold_reset`].
    pub cold_reset: Option<In<ast::RegMask>>,
    /// See [`ast::Capabilities::shaper`].
    pub shaper: Option<In<ast::Shaper>>,
    /// See [`ast::Capabilities::macs`].
    pub macs: Option<In<Vec<ast::Mac>>>,
    /// See [`ast::Capabilities::clocks`].
    pub clocks: Option<In<Vec<Spanned<String>>>>,
    /// See [`ast::Capabilities::path_setup`].
    pub path_setup: Option<In<Vec<Spanned<ast::PathEntry>>>>,
}

/// An address space.
#[derive(Debug, Clone)]
pub struct Space {
    /// Name (`fe`, `ethsys`).
    pub name: Sp<String>,
    /// Human description.
    pub description: String,
    /// Where the device tree locates the space, from the file that last set it.
    pub dt: Option<In<ast::SpaceDt>>,
    /// Blocks in source order.
    pub blocks: Vec<Block>,
}

/// Repetition of a block or register.
#[derive(Debug, Clone)]
pub struct Array {
    /// Number of elements.
    pub count: Sp<u64>,
    /// Bytes between elements.
    pub stride: Sp<u64>,
    /// The `array:` entry.
    pub span: Span,
}

/// A block of registers.
#[derive(Debug, Clone)]
pub struct Block {
    /// Name (`pdma`).
    pub name: Sp<String>,
    /// Offset in the space.
    pub base: Sp<u64>,
    /// Repetition, if any.
    pub array: Option<Array>,
    /// Human description.
    pub description: String,
    /// Registers in source order.
    pub registers: Vec<Register>,
}

impl Block {
    /// Offset of element `ri` of register `reg` in element `bi` of this block, from the space's
    /// start (saturating: validation bounds it, but a dump or a diagnostic must not panic on any
    /// map it is given).
    pub fn element_offset(&self, bi: u64, reg: &Register, ri: u64) -> u64 {
        let bstride = self.array.as_ref().map_or(0, |a| a.stride.value);
        let rstride = reg.array.as_ref().map_or(0, |a| a.stride.value);
        self.base
            .value
            .saturating_add(bi.saturating_mul(bstride))
            .saturating_add(reg.offset.value)
            .saturating_add(ri.saturating_mul(rstride))
    }

    /// `block[bi].register[ri]`, the indices only where block or register is an array.
    pub fn element_name(&self, bi: u64, reg: &Register, ri: u64) -> String {
        let mut name = self.name.value.clone();
        if self.array.is_some() {
            name += &format!("[{bi}]");
        }
        name += &format!(".{}", reg.name.value);
        if reg.array.is_some() {
            name += &format!("[{ri}]");
        }
        name
    }
}

/// A 32-bit register.
#[derive(Debug, Clone)]
pub struct Register {
    /// Name (`glo_cfg`).
    pub name: Sp<String>,
    /// Offset in the block.
    pub offset: Sp<u64>,
    /// Access kind.
    pub access: Sp<Access>,
    /// Value after reset.
    pub reset: Sp<u64>,
    /// Repetition, if any.
    pub array: Option<Array>,
    /// Human description.
    pub description: String,
    /// Fields in source order.
    pub fields: Vec<Field>,
}

/// A register field.
#[derive(Debug, Clone)]
pub struct Field {
    /// Name (`rx_dma_en`).
    pub name: Sp<String>,
    /// Bit range.
    pub bits: Sp<Bits>,
    /// Access written on the field, if any.
    pub access_written: Option<Sp<Access>>,
    /// Human description.
    pub description: String,
    /// Named values.
    pub values: Vec<(Sp<String>, Sp<u64>)>,
    /// Repetition in the register (`stride` in bits): element `n` is `bits` moved up by
    /// `n * stride`. `None`: one field.
    pub array: Option<Array>,
}

/// Most elements of a field array that any register can hold (one per bit).
pub const MAX_FIELD_ELEMENTS: u64 = 32;

impl Field {
    /// Number of elements (1 for a plain field; at most [`MAX_FIELD_ELEMENTS`] are looked at).
    pub fn count(&self) -> u64 {
        self.array.as_ref().map_or(1, |a| a.count.value.min(MAX_FIELD_ELEMENTS))
    }
    /// Bits of element `n` (element 0 is `bits`).
    pub fn element(&self, n: u64) -> Bits {
        let stride = self.array.as_ref().map_or(0, |a| a.stride.value);
        let lsb = (self.bits.value.lsb as u64).saturating_add(stride.saturating_mul(n)).min(u32::MAX as u64) as u32;
        Bits { lsb, width: self.bits.value.width }
    }
    /// The field's access: its own, else its register's.
    pub fn access(&self, reg: &Register) -> Access {
        self.access_written.as_ref().map(|a| a.value).unwrap_or(reg.access.value)
    }
    /// Mask of the field's bits in the register (every element's, for a field array).
    pub fn mask(&self) -> u64 {
        (0..self.count()).fold(0, |m, n| m | mask(self.element(n)))
    }
}

/// The mask of a bit range (in a u64, so widths up to 63 are safe).
pub fn mask(bits: Bits) -> u64 {
    Bits { lsb: bits.lsb, width: bits.width.min(63) }.max_value().checked_shl(bits.lsb).unwrap_or(0)
}

/// A DMA descriptor layout.
#[derive(Debug, Clone)]
pub struct Descriptor {
    /// Name (`tx_v1`).
    pub name: Sp<String>,
    /// Size in bytes.
    pub size: Sp<u64>,
    /// Human description.
    pub description: String,
    /// Fields in source order.
    pub fields: Vec<DescField>,
}

/// A descriptor field.
#[derive(Debug, Clone)]
pub struct DescField {
    /// Name (`plen0`).
    pub name: Sp<String>,
    /// Word index.
    pub word: Sp<u64>,
    /// Bits in the word.
    pub bits: Sp<Bits>,
    /// Human description.
    pub description: String,
}

impl Map {
    /// Finds a register by `space.block.register`.
    pub fn find_register(&self, path: &str) -> Option<(&Space, &Block, &Register)> {
        let mut it = path.split('.');
        let (s, b, r) = (it.next()?, it.next()?, it.next()?);
        if it.next().is_some() {
            return None;
        }
        let space = self.spaces.iter().find(|x| *x.name == s)?;
        let block = space.blocks.iter().find(|x| *x.name == b)?;
        let reg = block.registers.iter().find(|x| *x.name == r)?;
        Some((space, block, reg))
    }

    /// Finds a descriptor layout by name.
    pub fn find_descriptor(&self, name: &str) -> Option<&Descriptor> {
        self.descriptors.iter().find(|d| *d.name == name)
    }
}
