//! The capability schema: the one definition of the runtime capability types.
//!
//! Every type the generated crate's `caps` module exposes to the driver (`Capabilities` and the
//! types of its fields) is listed once, below, in the `schema!` invocation: its name, docs,
//! fields, field kinds and field docs. From that one list come
//!
//! * the ddgen-side types of the same names (fields held as [`Kind::Value`]: `u64` for integers,
//!   `String` for text, `Vec` for lists), which [`crate::caps`] resolves the YAML into;
//! * the runtime declarations emitted into the generated crate ([`declarations`]), with the same
//!   docs, `Copy, Clone, Debug, PartialEq, Eq` and the runtime field types ([`Kind::ty`]);
//! * each SoC's literal ([`Kind::lit`]), so no emitter spells a capability field by hand;
//! * [`TYPES`], the schema as data, which the tests compare the emitted code against.
//!
//! Adding a capability field: add it here, to the YAML syntax in [`crate::ast`] and to the
//! resolution in [`crate::caps`]; the runtime type, every SoC literal and `regs/src/caps.rs`'s
//! re-export follow. Behaviour (methods) stays hand-written in `regs/src/caps.rs`.

use crate::codegen_model::camel;
use crate::emit::{hex, num};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::marker::PhantomData;

/// A field kind of the schema: how ddgen holds the value, its runtime type, and its literal.
pub trait Kind {
    /// The value as ddgen holds it (resolved, checked, and what `dump` prints).
    type Value;
    /// The runtime type, as written in the generated crate.
    fn ty() -> TokenStream;
    /// `v` as an expression of the runtime type.
    fn lit(v: &Self::Value) -> TokenStream;
}

macro_rules! int_kind {
    ($(#[doc = $d:literal] $k:ident: $t:ident, $fmt:ident;)*) => {$(
        #[doc = $d]
        #[derive(Debug)]
        pub enum $k {}
        impl Kind for $k {
            type Value = u64;
            fn ty() -> TokenStream {
                quote!($t)
            }
            fn lit(v: &u64) -> TokenStream {
                let l = $fmt(*v);
                quote!(#l)
            }
        }
    )*};
}

int_kind! {
    /// A `u8`, written in decimal.
    U8: u8, num;
    /// A `u16`, written in decimal.
    U16: u16, num;
    /// A `u32`, written in decimal.
    U32: u32, num;
    /// A `u32` offset, mask or register value, written in hexadecimal.
    X32: u32, hex;
}

/// Text: `&'static str` at run time.
#[derive(Debug)]
pub enum Text {}

impl Kind for Text {
    type Value = String;
    fn ty() -> TokenStream {
        quote!(&'static str)
    }
    fn lit(v: &String) -> TokenStream {
        quote!(#v)
    }
}

/// A space id: the space's name in ddgen, `crate::Space` at run time.
#[derive(Debug)]
pub enum SpaceId {}

impl Kind for SpaceId {
    type Value = String;
    fn ty() -> TokenStream {
        quote!(crate::Space)
    }
    fn lit(v: &String) -> TokenStream {
        let v = format_ident!("{}", camel(v));
        quote!(crate::Space::#v)
    }
}

/// A descriptor layout: its name in ddgen, `crate::descriptors::DescriptorLayout` at run time.
#[derive(Debug)]
pub enum Layout {}

impl Kind for Layout {
    type Value = String;
    fn ty() -> TokenStream {
        quote!(crate::descriptors::DescriptorLayout)
    }
    fn lit(v: &String) -> TokenStream {
        let v = format_ident!("{}", camel(v));
        quote!(crate::descriptors::DescriptorLayout::#v)
    }
}

/// A list: `Vec` in ddgen, `&'static [T]` at run time.
#[derive(Debug)]
pub struct List<K>(PhantomData<K>);

impl<K: Kind> Kind for List<K> {
    type Value = Vec<K::Value>;
    fn ty() -> TokenStream {
        let t = K::ty();
        quote!(&'static [#t])
    }
    fn lit(v: &Self::Value) -> TokenStream {
        let items = v.iter().map(K::lit);
        quote!(&[#(#items),*])
    }
}

/// An optional value: `Option<T>` on both sides.
#[derive(Debug)]
pub struct Opt<K>(PhantomData<K>);

impl<K: Kind> Kind for Opt<K> {
    type Value = Option<K::Value>;
    fn ty() -> TokenStream {
        let t = K::ty();
        quote!(Option<#t>)
    }
    fn lit(v: &Self::Value) -> TokenStream {
        match v {
            None => quote!(None),
            Some(x) => {
                let x = K::lit(x);
                quote!(Some(#x))
            }
        }
    }
}

/// A pair: a tuple on both sides.
#[derive(Debug)]
pub struct Pair<A, B>(PhantomData<(A, B)>);

impl<A: Kind, B: Kind> Kind for Pair<A, B> {
    type Value = (A::Value, B::Value);
    fn ty() -> TokenStream {
        let (a, b) = (A::ty(), B::ty());
        quote!((#a, #b))
    }
    fn lit(v: &Self::Value) -> TokenStream {
        let (a, b) = (A::lit(&v.0), B::lit(&v.1));
        quote!((#a, #b))
    }
}

/// One field of a schema type (of a struct, or of an enum variant).
#[derive(Debug, Clone, Copy)]
pub struct FieldDef {
    /// Field name.
    pub name: &'static str,
    /// Doc lines (each with its leading space, as `///` gives them).
    pub doc: &'static [&'static str],
    /// The runtime type ([`Kind::ty`] of the field's kind).
    pub ty: fn() -> TokenStream,
}

/// One variant of a schema enum.
#[derive(Debug, Clone, Copy)]
pub struct VariantDef {
    /// Variant name.
    pub name: &'static str,
    /// Doc lines.
    pub doc: &'static [&'static str],
    /// Named fields (none: a unit variant).
    pub fields: &'static [FieldDef],
}

/// What a schema type is.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// A struct with named fields.
    Struct(&'static [FieldDef]),
    /// An enum of unit and struct variants.
    Enum(&'static [VariantDef]),
}

/// One runtime capability type.
#[derive(Debug, Clone, Copy)]
pub struct TypeDef {
    /// Type name (the same in ddgen and at run time).
    pub name: &'static str,
    /// Doc lines.
    pub doc: &'static [&'static str],
    /// Fields or variants.
    pub shape: Shape,
    /// Doc lines of a generated `const fn new(fields in order)`, when SoC literals use it.
    pub ctor: Option<&'static [&'static str]>,
}

/// `crate::caps::Name { f: v, .. }`, or `crate::caps::Name::new(v, ..)` for a type with a ctor.
fn struct_lit(name: &str, ctor: bool, fields: &[(&str, TokenStream)]) -> TokenStream {
    let t = format_ident!("{name}");
    let vals = fields.iter().map(|(_, v)| v);
    if ctor {
        return quote!(crate::caps::#t::new(#(#vals),*));
    }
    let names = fields.iter().map(|(f, _)| format_ident!("{f}"));
    quote!(crate::caps::#t { #(#names: #vals),* })
}

/// `crate::caps::Name::Variant { f: v, .. }`, or without braces for a unit variant.
fn variant_lit(name: &str, variant: &str, fields: &[(&str, TokenStream)]) -> TokenStream {
    let (t, v) = (format_ident!("{name}"), format_ident!("{variant}"));
    if fields.is_empty() {
        return quote!(crate::caps::#t::#v);
    }
    let names = fields.iter().map(|(f, _)| format_ident!("{f}"));
    let vals = fields.iter().map(|(_, v)| v);
    quote!(crate::caps::#t::#v { #(#names: #vals),* })
}

macro_rules! ctor_doc {
    () => {
        None
    };
    ($($d:literal)+) => {
        Some(&[$($d),+])
    };
}

/// Declares the schema: each `struct` or `enum` becomes a ddgen type, its [`Kind`] impl and an
/// entry of [`TYPES`]. `struct Name new("doc") { .. }` gives the runtime type a `const fn new`
/// taking the fields in order, and SoC literals call it.
macro_rules! schema {
    (@acc [$($defs:expr,)*]) => {
        /// The schema as data, in declaration order.
        pub const TYPES: &[TypeDef] = &[$($defs,)*];
    };
    (@acc [$($defs:expr,)*]
        $(#[doc = $doc:literal])*
        struct $name:ident $(new($($cdoc:literal)+))? {
            $( $(#[doc = $fdoc:literal])* $f:ident: $k:ty ),* $(,)?
        }
        $($rest:tt)*
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct $name {
            $( $(#[doc = $fdoc])* pub $f: <$k as Kind>::Value, )*
        }
        impl Kind for $name {
            type Value = Self;
            fn ty() -> TokenStream {
                quote!($name)
            }
            fn lit(v: &Self) -> TokenStream {
                let ctor: Option<&[&str]> = ctor_doc!($($($cdoc)+)?);
                struct_lit(stringify!($name), ctor.is_some(), &[$( (stringify!($f), <$k as Kind>::lit(&v.$f)) ),*])
            }
        }
        schema!(@acc [$($defs,)* TypeDef {
            name: stringify!($name),
            doc: &[$($doc),*],
            shape: Shape::Struct(&[$( FieldDef { name: stringify!($f), doc: &[$($fdoc),*], ty: <$k as Kind>::ty } ),*]),
            ctor: ctor_doc!($($($cdoc)+)?),
        },] $($rest)*);
    };
    (@acc [$($defs:expr,)*]
        $(#[doc = $doc:literal])*
        enum $name:ident {
            $( $(#[doc = $vdoc:literal])* $v:ident $({ $( $(#[doc = $fdoc:literal])* $f:ident: $k:ty ),* $(,)? })? ),* $(,)?
        }
        $($rest:tt)*
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum $name {
            $( $(#[doc = $vdoc])* $v $({ $( $(#[doc = $fdoc])* $f: <$k as Kind>::Value ),* })?, )*
        }
        impl Kind for $name {
            type Value = Self;
            fn ty() -> TokenStream {
                quote!($name)
            }
            fn lit(v: &Self) -> TokenStream {
                match v {
                    $( $name::$v $({ $($f),* })? => variant_lit(
                        stringify!($name),
                        stringify!($v),
                        &[$($( (stringify!($f), <$k as Kind>::lit($f)) ),*)?],
                    ), )*
                }
            }
        }
        schema!(@acc [$($defs,)* TypeDef {
            name: stringify!($name),
            doc: &[$($doc),*],
            shape: Shape::Enum(&[$( VariantDef {
                name: stringify!($v),
                doc: &[$($vdoc),*],
                fields: &[$($( FieldDef { name: stringify!($f), doc: &[$($fdoc),*], ty: <$k as Kind>::ty } ),*)?],
            } ),*]),
            ctor: None,
        },] $($rest)*);
    };
    ($($t:tt)*) => {
        schema!(@acc [] $($t)*);
    };
}

schema! {
    /// A register named by a capability: offset of element 0, stride and count.
    struct RawReg new(" A register (array) in `space`.") {
        /// Address space.
        space: SpaceId,
        /// Byte offset of element 0.
        offset: X32,
        /// Bytes between elements (0 for a single register).
        stride: X32,
        /// Number of elements.
        count: U16,
    }

    /// Position of a field in a register.
    struct FieldPos new(" A field of `width` bits at `lsb`.") {
        /// Lowest bit.
        lsb: U8,
        /// Width in bits.
        width: U8,
    }

    /// Where RX checksum checking is switched: a per-MAC register and the ICS/TCS/UCS bits.
    struct RxChecksumCtl {
        /// The register (one element per MAC).
        reg: RawReg,
        /// The enable bits.
        mask: X32,
    }

    /// Hardware LRO parameters.
    struct HwLro {
        /// Number of LRO rings (after the normal rings).
        rings: U8,
        /// Descriptors per LRO ring.
        ring_size: U16,
        /// Buffer bytes per LRO descriptor.
        buffer_size: U32,
        /// Most segments per aggregate.
        max_segments: U8,
        /// Hardware timer unit in microseconds.
        timer_unit_us: U32,
        /// Age time in microseconds.
        age_time_us: U32,
        /// Longest aggregation in microseconds.
        max_agg_time_us: U32,
        /// Room in bytes that must remain in a buffer to add a segment.
        min_room: U32,
        /// Destination-IP rules per MAC.
        dip_rules_per_mac: U8,
    }

    /// How interrupts are wired.
    enum IrqLayout {
        /// One line for TX and RX.
        Shared {
            /// Index in the device tree's `interrupts`.
            line: U8,
        },
        /// Separate TX and RX lines.
        Split {
            /// Index of the TX line.
            tx: U8,
            /// Index of the RX line.
            rx: U8,
        },
    }

    /// Interrupt lines of the frame engine.
    struct Irq {
        /// Entries expected in the device tree's `interrupts`.
        lines: U8,
        /// Which lines the driver uses.
        layout: IrqLayout,
        /// Interrupt moderation the driver programs at open (`None`: every completion interrupts).
        moderation: Opt<IrqModeration>,
        /// `interrupt-names` looked up first, when the node has that property (else the indices).
        names: Opt<IrqNames>,
    }

    /// `interrupt-names` entries of the lines the driver uses (the shared line's name twice).
    struct IrqNames {
        /// Name of the TX line.
        tx: Text,
        /// Name of the RX line.
        rx: Text,
    }

    /// One read-modify-write of path setup on one register (element).
    struct PathWrite {
        /// Space of the register.
        space: SpaceId,
        /// `space.block.register` (with `[i]` for an array element), for reports.
        register: Text,
        /// Byte offset in the space.
        offset: X32,
        /// Bits written.
        mask: X32,
        /// Their value (inside `mask`).
        value: X32,
        /// Field names and values as the YAML writes them, for reports.
        fields: List<Pair<Text, X32>>,
    }

    /// MAC interface and path setup of one MAC for a class of phy modes.
    struct PathSetup {
        /// MAC id.
        mac: U8,
        /// The phy modes (interface class) this setup is for.
        modes: List<Text>,
        /// Writes, in order.
        writes: List<PathWrite>,
    }

    /// One direction's interrupt moderation: the delayed done interrupt fires when `packets`
    /// completions are held or the first has waited `time_us` (a limit of 0 is unused).
    struct ModerationLimits {
        /// Completions held before the interrupt fires (`*_pint`).
        packets: U8,
        /// Longest wait of the first held completion, in microseconds.
        time_us: U32,
    }

    /// Interrupt moderation through the delay-interrupt registers (`pdma.delay_irq`,
    /// `qdma.delay_irq`, same layout): limits per direction and the unit of the time fields.
    struct IrqModeration {
        /// Unit of the registers' `*_ptime` fields in microseconds.
        time_unit_us: U32,
        /// RX done limits.
        rx: ModerationLimits,
        /// TX done limits.
        tx: ModerationLimits,
    }

    /// Where the DMA rings live.
    enum RingPlacement {
        /// In system memory.
        Dram,
        /// In on-chip SRAM at this offset of the frame-engine space.
        Sram {
            /// Byte offset in the `fe` space.
            offset: X32,
        },
    }

    /// The cold reset: bits pulsed in the ETHSYS reset register.
    struct ColdReset {
        /// The reset-control register.
        reg: RawReg,
        /// Bits to assert and deassert.
        mask: X32,
    }

    /// Max-rate setting for one link speed: rate = `man` * 10^`exp` kbit/s.
    struct ShaperRate {
        /// Link speed in Mbit/s.
        speed_mbps: U32,
        /// Mantissa.
        man: U16,
        /// Exponent.
        exp: U8,
        /// WFQ weight.
        weight: U8,
    }

    /// The QDMA per-queue shaper and its encoding.
    struct Shaper {
        /// Per-queue scheduler register (one element per queue).
        reg: RawReg,
        /// Value written at init (min-rate only, no max-rate).
        base: X32,
        /// Max-rate enable bit.
        max_rate_en: FieldPos,
        /// Max-rate mantissa.
        max_rate_man: FieldPos,
        /// Max-rate exponent.
        max_rate_exp: FieldPos,
        /// Max-rate weight.
        max_rate_weight: FieldPos,
        /// Max-rate table per link speed.
        rates: List<ShaperRate>,
    }

    /// Facts about one MAC.
    struct MacCaps {
        /// `phy-mode` strings this MAC accepts.
        phy_modes: List<Text>,
    }

    /// Capabilities and quirks of one SoC.
    struct Capabilities {
        /// RX checksum control.
        rx_checksum: RxChecksumCtl,
        /// Number of QDMA TX queues.
        tx_queues: U8,
        /// Normal PDMA RX rings used.
        rx_rings: U8,
        /// Hardware LRO, if the SoC has it.
        hw_lro: Opt<HwLro>,
        /// Interrupt lines.
        irq: Irq,
        /// TX descriptor layout.
        tx_descriptor: Layout,
        /// RX descriptor layout.
        rx_descriptor: Layout,
        /// Where rings live.
        rings: RingPlacement,
        /// Cold reset.
        cold_reset: ColdReset,
        /// QDMA shaper.
        shaper: Shaper,
        /// Per-MAC facts, indexed by MAC id.
        macs: List<MacCaps>,
        /// Clock names the device tree must provide.
        clocks: List<Text>,
        /// MAC interface and path setup per MAC and phy-mode class.
        path_setup: List<PathSetup>,
    }
}

/// `#[doc]` attributes for doc lines as `///` gives them (each with its leading space), kept
/// verbatim: they are Rust docs already, not YAML text to escape.
fn doc_attrs(lines: &[&str]) -> TokenStream {
    quote!(#(#[doc = #lines])*)
}

fn fields_tokens(fields: &[FieldDef], public: bool) -> TokenStream {
    let vis = if public { quote!(pub) } else { TokenStream::new() };
    fields
        .iter()
        .map(|f| {
            let (d, n, t) = (doc_attrs(f.doc), format_ident!("{}", f.name), (f.ty)());
            quote!(#d #vis #n: #t,)
        })
        .collect()
}

/// The runtime declarations of every schema type, for the generated crate (in a module that
/// `regs/src/caps.rs` re-exports and adds the behaviour to).
pub fn declarations() -> TokenStream {
    let mut out = TokenStream::new();
    for t in TYPES {
        let (d, name) = (doc_attrs(t.doc), format_ident!("{}", t.name));
        let derive = quote!(#[derive(Copy, Clone, Debug, PartialEq, Eq)]);
        match t.shape {
            Shape::Struct(fields) => {
                let body = fields_tokens(fields, true);
                out.extend(quote!(#d #derive pub struct #name { #body }));
                if let Some(cdoc) = t.ctor {
                    let cd = doc_attrs(cdoc);
                    let params = fields.iter().map(|f| {
                        let (n, ty) = (format_ident!("{}", f.name), (f.ty)());
                        quote!(#n: #ty)
                    });
                    let names = fields.iter().map(|f| format_ident!("{}", f.name));
                    out.extend(quote! {
                        impl #name {
                            #cd
                            #[must_use]
                            pub const fn new(#(#params),*) -> Self {
                                #name { #(#names),* }
                            }
                        }
                    });
                }
            }
            Shape::Enum(variants) => {
                let vs = variants.iter().map(|v| {
                    let (vd, vn) = (doc_attrs(v.doc), format_ident!("{}", v.name));
                    if v.fields.is_empty() {
                        quote!(#vd #vn,)
                    } else {
                        let body = fields_tokens(v.fields, false);
                        quote!(#vd #vn { #body },)
                    }
                });
                out.extend(quote!(#d #derive pub enum #name { #(#vs)* }));
            }
        }
    }
    out
}
