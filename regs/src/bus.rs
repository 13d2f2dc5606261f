//! The bus abstraction and typed register handles shared by every generated map.
//!
//! A [`Bus`] reads and writes 32-bit words at byte offsets of one address space. A register is
//! described by a [`RegSpec`] (offset, reset value, value type, access kind) that the generated
//! maps hold as data; `spec.on(bus)` gives a [`Reg`] handle that does the access.

use core::marker::PhantomData;

/// 32-bit access to one address space, at byte offsets from its base.
pub trait Bus {
    /// Reads the word at `offset`.
    fn read32(&self, offset: usize) -> u32;
    /// Writes the word at `offset`.
    fn write32(&self, offset: usize, value: u32);
    /// Replaces the bits `mask` of the word at `offset` with those of `value`, atomically against
    /// every other `modify32` of the same space: a register that contexts running concurrently
    /// update (interrupt masks) is changed only through this. A kernel maps it to a spinlock
    /// around the read and the write, or to `regmap_update_bits`. The default is a plain read
    /// and write, which is right only where one context at a time drives the bus.
    #[inline(always)]
    fn modify32(&self, offset: usize, mask: u32, value: u32) {
        let v = self.read32(offset);
        self.write32(offset, (v & !mask) | (value & mask));
    }
}

impl<B: Bus + ?Sized> Bus for &B {
    #[inline(always)]
    fn read32(&self, offset: usize) -> u32 {
        (**self).read32(offset)
    }
    #[inline(always)]
    fn write32(&self, offset: usize, value: u32) {
        (**self).write32(offset, value)
    }
    #[inline(always)]
    fn modify32(&self, offset: usize, mask: u32, value: u32) {
        (**self).modify32(offset, mask, value)
    }
}

/// A register value type (generated): raw bits plus the mask of its write-1-to-clear bits.
pub trait Value: Copy {
    /// Bits that clear when written as 1; `modify` writes them back as 0.
    const W1C_MASK: u32;
    /// Wraps raw bits.
    fn from_bits(bits: u32) -> Self;
    /// The raw bits.
    fn to_bits(self) -> u32;
}

/// The access kinds are this crate's alone: no other crate can declare a read-only register's
/// marker `Writable` (or make a marker of its own) and so get a writable handle to it.
mod sealed {
    /// Implemented by the access markers of this module only.
    pub trait Sealed {}
}

/// Proof of being inside this crate: [`Relocate::relocate`] takes one, so only the generated
/// maps move a register (outside, a move could point a writable handle at a read-only
/// register). Nothing outside this crate can make one.
#[derive(Clone, Copy, Debug)]
pub struct Inside(());

/// The proof [`Relocate::relocate`] takes (for the generated maps).
pub(crate) const INSIDE: Inside = Inside(());

/// Access kinds of registers, as marker types (sealed: only [`Ro`], [`Wo`], [`Rw`], [`W1c`]
/// and [`Rc`]).
pub trait Access: Copy + sealed::Sealed {}
/// Registers whose value can be read.
pub trait Readable: Access {}
/// Registers that accept writes.
pub trait Writable: Access {}

macro_rules! access {
    ($($(#[$m:meta])* $name:ident: $($tr:ident),*;)*) => {$(
        $(#[$m])*
        #[derive(Copy, Clone, Debug)]
        pub struct $name;
        impl sealed::Sealed for $name {}
        impl Access for $name {}
        $(impl $tr for $name {})*
    )*};
}

access! {
    /// Read-only register.
    Ro: Readable;
    /// Write-only register.
    Wo: Writable;
    /// Read-write register.
    Rw: Readable, Writable;
    /// Register of write-1-to-clear status bits.
    W1c: Readable, Writable;
    /// Read-to-clear register (counters).
    Rc: Readable;
}

/// Where a register is and what it holds: offset in its space, reset value, value and access types.
#[derive(Debug)]
pub struct RegSpec<T, A> {
    offset: u32,
    reset: T,
    _access: PhantomData<A>,
}

impl<T: Copy, A> Clone for RegSpec<T, A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Copy, A> Copy for RegSpec<T, A> {}

impl<T: Copy, A> RegSpec<T, A> {
    /// A register at `offset` whose value after reset is `reset`: made by the generated maps
    /// only, so that safe code outside this crate cannot give an offset an access kind the
    /// YAML does not (a writable handle to a read-only register).
    #[must_use]
    pub(crate) const fn new(offset: u32, reset: T) -> Self {
        RegSpec { offset, reset, _access: PhantomData }
    }
    /// Byte offset in its space.
    #[must_use]
    pub const fn offset(&self) -> u32 {
        self.offset
    }
    /// The value after reset.
    #[must_use]
    pub const fn reset(&self) -> T {
        self.reset
    }
    /// A handle that accesses this register through `bus`.
    #[inline(always)]
    pub const fn on<B: Bus>(self, bus: B) -> Reg<B, T, A> {
        Reg { bus, offset: self.offset as usize, _t: PhantomData }
    }
}

/// A register array (rings, queues): element `i` is at `first + i * stride`.
#[derive(Debug)]
pub struct RegArray<T, A> {
    first: RegSpec<T, A>,
    stride: u32,
    len: u16,
}

impl<T: Copy, A> Clone for RegArray<T, A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Copy, A> Copy for RegArray<T, A> {}

impl<T: Copy, A> RegArray<T, A> {
    /// `len` registers starting at `first`, `stride` bytes apart (made by the generated maps
    /// only, as [`RegSpec`]s are).
    #[must_use]
    pub(crate) const fn new(first: RegSpec<T, A>, stride: u32, len: u16) -> Self {
        RegArray { first, stride, len }
    }
    /// Number of elements.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether the array has no elements (never true for a generated map).
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bytes between elements.
    #[must_use]
    pub const fn stride(&self) -> u32 {
        self.stride
    }
    /// Element `i`, or `None` when `i` is out of range.
    #[inline(always)]
    #[must_use]
    pub const fn at(&self, i: usize) -> Option<RegSpec<T, A>> {
        if i < self.len as usize {
            Some(RegSpec::new(self.first.offset + self.stride * i as u32, self.first.reset))
        } else {
            None
        }
    }
}

/// Moves a map by a byte distance (used to reach element `i` of an arrayed block); callable
/// inside this crate only (it takes a proof of that).
pub trait Relocate: Copy {
    /// The same map, `delta` bytes further.
    fn relocate(self, delta: u32, inside: Inside) -> Self;
}

impl<T: Copy, A> Relocate for RegSpec<T, A> {
    #[inline(always)]
    fn relocate(self, delta: u32, _: Inside) -> Self {
        RegSpec::new(self.offset + delta, self.reset)
    }
}

impl<T: Copy, A> Relocate for RegArray<T, A> {
    #[inline(always)]
    fn relocate(self, delta: u32, inside: Inside) -> Self {
        RegArray { first: self.first.relocate(delta, inside), ..self }
    }
}

impl<M: Relocate> Relocate for Option<M> {
    #[inline(always)]
    fn relocate(self, delta: u32, inside: Inside) -> Self {
        self.map(|m| m.relocate(delta, inside))
    }
}

/// An arrayed block (per-MAC GDMA, MAC, MIB): element `i` is the first block moved by `i * stride`.
#[derive(Copy, Clone, Debug)]
pub struct BlockArray<M> {
    first: M,
    stride: u32,
    len: u16,
}

impl<M: Relocate> BlockArray<M> {
    /// `len` blocks, the first at `first`, `stride` bytes apart (made by the generated maps
    /// only, as [`RegSpec`]s are).
    #[must_use]
    pub(crate) const fn new(first: M, stride: u32, len: u16) -> Self {
        BlockArray { first, stride, len }
    }
    /// Number of blocks.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether there are no blocks (never true for a generated map).
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bytes between blocks.
    #[must_use]
    pub const fn stride(&self) -> u32 {
        self.stride
    }
    /// Block `i`, or `None` when `i` is out of range.
    #[inline(always)]
    #[must_use]
    pub fn at(&self, i: usize) -> Option<M> {
        (i < self.len as usize).then(|| self.first.relocate(self.stride * i as u32, INSIDE))
    }
    /// One register (or register array) of block `i`, picked by `reg` from the block's map,
    /// without relocating the whole block (a MIB block has dozens of registers); `None` when
    /// `i` is out of range. `mib.pick(1, |m| m.rx_packets)` is `mib.at(1).map(|m| m.rx_packets)`.
    #[inline(always)]
    #[must_use]
    pub fn pick<R: Relocate>(&self, i: usize, reg: impl FnOnce(&M) -> R) -> Option<R> {
        (i < self.len as usize).then(|| reg(&self.first).relocate(self.stride * i as u32, INSIDE))
    }
}

/// A register reached through a bus: `read`, `write`, `modify` as its access kind allows.
#[derive(Debug)]
pub struct Reg<B, T, A> {
    bus: B,
    offset: usize,
    _t: PhantomData<(T, A)>,
}

impl<B: Copy, T, A> Clone for Reg<B, T, A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Copy, T, A> Copy for Reg<B, T, A> {}

impl<B: Bus, T: Value, A> Reg<B, T, A> {
    /// Byte offset in its space.
    #[must_use]
    pub fn offset(&self) -> usize {
        self.offset
    }
}

impl<B: Bus, T: Value, A: Readable> Reg<B, T, A> {
    /// Reads the register.
    #[inline(always)]
    #[must_use]
    pub fn read(&self) -> T {
        T::from_bits(self.bus.read32(self.offset))
    }
}

impl<B: Bus, T: Value, A: Writable> Reg<B, T, A> {
    /// Writes `value`.
    #[inline(always)]
    pub fn write_value(&self, value: T) {
        self.bus.write32(self.offset, value.to_bits())
    }
    /// Writes the value that `f` builds from all-zero bits.
    #[inline(always)]
    pub fn write<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut v = T::from_bits(0);
        let r = f(&mut v);
        self.write_value(v);
        r
    }
}

impl<B: Bus, T: Value, A: Readable + Writable> Reg<B, T, A> {
    /// Read-modify-write. Pending write-1-to-clear bits read as 1 are written back as 0, so
    /// only the ones `f` clears explicitly (`clear_*`) are cleared.
    #[inline(always)]
    pub fn modify<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        let mut v = T::from_bits(self.bus.read32(self.offset) & !T::W1C_MASK);
        let r = f(&mut v);
        self.write_value(v);
        r
    }

    /// Replaces the bits set in `mask` with those of `value` through [`Bus::modify32`], atomic
    /// against other updates of the space: for registers that concurrent contexts change (an
    /// interrupt mask). Not for registers with write-1-to-clear bits, which a read-modify-write
    /// would clear.
    #[inline(always)]
    pub fn update(&self, mask: T, value: T) {
        debug_assert_eq!(T::W1C_MASK, 0, "update on a register with write-1-to-clear bits");
        self.bus.modify32(self.offset, mask.to_bits(), value.to_bits());
    }
}

/// A register map (a space or a block) bound to the bus of its space: the generated accessor
/// methods (`fe.pdma().glo_cfg()`) give [`Reg`] handles, so code does not write `.on(bus)` for
/// every access. Made by the generated `bind` of every map type: `info.fe.bind(&bus)` (or
/// `bind(bus)` for a bus that is `Copy`). The accessors copy the bus into every view and handle
/// they give, so bind a reference: then the view itself is only registers (a `&B`, the map's
/// address, a displacement), which the compiler keeps out of memory, and a register access
/// costs what `spec.on(&bus)` does. Blocks of an arrayed block ([`BlocksOn::at`]) are the
/// first block's map moved by `delta`.
#[derive(Debug)]
pub struct View<'a, M, B> {
    pub(crate) map: &'a M,
    pub(crate) bus: B,
    pub(crate) delta: u32,
}

impl<M, B: Copy> Clone for View<'_, M, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M, B: Copy> Copy for View<'_, M, B> {}

// The helpers the generated accessors use are free functions, not methods of `View`: a
// method would collide with a register or block of the same name.

/// `map` on `bus`, moved by `delta` bytes (the generated `bind`).
#[inline(always)]
pub(crate) const fn view<M, B>(map: &M, bus: B, delta: u32) -> View<'_, M, B> {
    View { map, bus, delta }
}

/// Register `spec` of `v`'s map, moved with it, on its bus (generated accessors).
#[inline(always)]
pub(crate) fn view_reg<M, B: Copy, T: Copy, A>(v: &View<'_, M, B>, spec: RegSpec<T, A>) -> Reg<B, T, A> {
    Reg { bus: v.bus, offset: (spec.offset + v.delta) as usize, _t: PhantomData }
}

/// Register array `array` of `v`'s map on its bus (generated accessors).
#[inline(always)]
pub(crate) fn view_array<M, B: Copy, T: Copy, A>(v: &View<'_, M, B>, array: RegArray<T, A>) -> ArrayOn<B, T, A> {
    ArrayOn { first: v.delta + array.first.offset, stride: array.stride, len: array.len, bus: v.bus, _t: PhantomData }
}

/// Block `block` of space view `v`, on the same bus (generated accessors).
#[inline(always)]
pub(crate) fn view_block<'a, M, N, B: Copy>(v: &View<'a, M, B>, block: &'a N) -> View<'a, N, B> {
    View { map: block, bus: v.bus, delta: v.delta }
}

/// Arrayed block `blocks` of space view `v`, on the same bus (generated accessors).
#[inline(always)]
pub(crate) fn view_blocks<'a, M, N, B: Copy>(v: &View<'a, M, B>, blocks: &'a BlockArray<N>) -> BlocksOn<'a, N, B> {
    BlocksOn { blocks, bus: v.bus, delta: v.delta }
}

/// A register array on a bus: element `i` is a [`Reg`] handle ([`ArrayOn::at`]).
#[derive(Debug)]
pub struct ArrayOn<B, T, A> {
    first: u32,
    stride: u32,
    len: u16,
    bus: B,
    _t: PhantomData<(T, A)>,
}

impl<B: Copy, T, A> Clone for ArrayOn<B, T, A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Copy, T, A> Copy for ArrayOn<B, T, A> {}

impl<B: Copy, T, A> ArrayOn<B, T, A> {
    /// Number of elements.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether the array has no elements (never true for a generated map).
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Element `i`, or `None` when `i` is out of range.
    #[inline(always)]
    #[must_use]
    pub fn at(&self, i: usize) -> Option<Reg<B, T, A>> {
        (i < self.len as usize).then(|| Reg {
            bus: self.bus,
            offset: (self.first + self.stride * i as u32) as usize,
            _t: PhantomData,
        })
    }
}

/// An arrayed block on a bus: element `i` is a [`View`] of the block ([`BlocksOn::at`]).
#[derive(Debug)]
pub struct BlocksOn<'a, M, B> {
    blocks: &'a BlockArray<M>,
    bus: B,
    delta: u32,
}

impl<M, B: Copy> Clone for BlocksOn<'_, M, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<M, B: Copy> Copy for BlocksOn<'_, M, B> {}

impl<'a, M, B: Copy> BlocksOn<'a, M, B> {
    /// Number of blocks.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.blocks.len as usize
    }
    /// Whether there are no blocks (never true for a generated map).
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.blocks.len == 0
    }
    /// Block `i`, or `None` when `i` is out of range.
    #[inline(always)]
    #[must_use]
    pub fn at(&self, i: usize) -> Option<View<'a, M, B>> {
        (i < self.blocks.len as usize).then(|| View {
            map: &self.blocks.first,
            bus: self.bus,
            delta: self.delta + self.blocks.stride * i as u32,
        })
    }
}

#[cfg(feature = "alloc")]
mod mem;
pub use crate::mmio::Mmio;
#[cfg(feature = "alloc")]
pub use mem::MemBus;
