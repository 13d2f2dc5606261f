//! Register value types: a `u32` newtype per register name, with field getters and setters that
//! follow each field's access kind, and typed enums for enumerated fields.

use super::{doc, hex, ident, type_ident};
use crate::ast::Access;
use crate::codegen_model::{USpace, camel};
use crate::model::{Field, Register};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashMap;

/// Chooses type names: `BlockRegister`, prefixed with the space when a block name is in two spaces.
pub struct TypeNames {
    prefix_space: HashMap<String, bool>,
}

impl TypeNames {
    /// Computes which block names need their space as a prefix.
    pub fn new(spaces: &[USpace]) -> Self {
        let mut count: HashMap<String, usize> = HashMap::new();
        for s in spaces {
            for b in &s.blocks {
                let n = count.entry(b.name.to_string()).or_default();
                *n = n.saturating_add(1);
            }
        }
        TypeNames { prefix_space: count.into_iter().map(|(k, v)| (k, v > 1)).collect() }
    }

    fn base(&self, space: &str, block: &str) -> String {
        if self.prefix_space.get(block).copied().unwrap_or(false) {
            format!("{}{}", camel(space), camel(block))
        } else {
            camel(block)
        }
    }

    /// Value type of a register.
    pub fn value(&self, space: &str, block: &str, reg: &str) -> Ident {
        format_ident!("{}{}", self.base(space, block), camel(reg))
    }

    /// Map struct of a block.
    pub fn block_map(&self, space: &str, block: &str) -> Ident {
        format_ident!("{}Map", self.base(space, block))
    }

    /// Enum type of a field.
    pub fn field_enum(&self, space: &str, block: &str, reg: &str, field: &str) -> Ident {
        format_ident!("{}{}{}", self.base(space, block), camel(reg), camel(field))
    }
}

/// The Rust integer type that holds `width` bits.
pub(crate) fn int_type(width: u32) -> TokenStream {
    match width {
        1 => quote!(bool),
        2..=8 => quote!(u8),
        9..=16 => quote!(u16),
        _ => quote!(u32),
    }
}

/// Emits every value type of the union.
pub fn emit(spaces: &[USpace], names: &TypeNames) -> TokenStream {
    let mut out = TokenStream::new();
    let mut table = TokenStream::new();
    for s in spaces {
        for b in &s.blocks {
            for r in &b.registers {
                let ty = names.value(s.name, b.name, &r.reg.name.value);
                let enum_name = |f: &Field| names.field_enum(s.name, b.name, &r.reg.name.value, &f.name.value);
                out.extend(emit_value(&ty, &format!("{}.{}", b.name, r.reg.name.value), r.reg, &enum_name));
                table.extend(accessor_entries(&ty, r.reg, &enum_name));
            }
        }
    }
    quote! {
        #out
        #[doc = " One field of a value type with closures that call its generated accessors (for"]
        #[doc = " property tests and introspection; with the `field-table` feature)."]
        #[cfg(feature = "field-table")]
        #[derive(Copy, Clone, Debug)]
        pub struct FieldAccessor {
            #[doc = " Value type name."]
            pub value_type: &'static str,
            #[doc = " Field name."]
            pub field: &'static str,
            #[doc = " Lowest bit."]
            pub lsb: u8,
            #[doc = " Width in bits."]
            pub width: u8,
            #[doc = " Access kind keyword (`rw`, `ro`, ...)."]
            pub access: &'static str,
            #[doc = " Calls the getter on raw bits (when the field is readable)."]
            pub get: Option<fn(u32) -> u32>,
            #[doc = " Calls the setter on raw bits (when the field is writable)."]
            pub set: Option<fn(u32, u32) -> u32>,
            #[doc = " Calls `clear_*` on raw bits (write-1-to-clear fields)."]
            pub clear: Option<fn(u32) -> u32>,
        }
        #[doc = " Every field of every value type, with its accessors."]
        #[cfg(feature = "field-table")]
        pub static FIELD_ACCESSORS: &[FieldAccessor] = &[#table];
    }
}

fn accessor_entries(ty: &Ident, reg: &Register, enum_name: &dyn Fn(&Field) -> Ident) -> TokenStream {
    let mut out = TokenStream::new();
    let tyname = ty.to_string();
    for f in &reg.fields {
        for n in 0..f.count() {
            out.extend(accessor_entry(&tyname, ty, reg, f, f.array.as_ref().map(|_| n), enum_name));
        }
    }
    out
}

/// The `FIELD_ACCESSORS` entry of field `f` (of element `n` of a field array, as `name[n]`).
fn accessor_entry(
    tyname: &str,
    ty: &Ident,
    reg: &Register,
    f: &Field,
    element: Option<u64>,
    enum_name: &dyn Fn(&Field) -> Ident,
) -> TokenStream {
    {
        let access = f.access(reg);
        let name = ident(&f.name.value);
        let setter = format_ident!("set_{}", name);
        let clear = format_ident!("clear_{}", name);
        let bits = f.element(element.unwrap_or(0));
        let (lsb, width) = (bits.lsb as u8, bits.width as u8);
        let fname = match element {
            Some(n) => format!("{}[{n}]", f.name.value),
            None => f.name.value.clone(),
        };
        let kw = access.keyword();
        let raw = if width == 1 {
            quote!(v != 0)
        } else {
            let it = int_type(width as u32);
            quote!(v as #it)
        };
        let (to_u32, from_u32) = if f.values.is_empty() {
            (quote!(x as u32), raw)
        } else {
            let en = enum_name(f);
            (quote!(x.to_bits() as u32), quote!(#en::from_bits(#raw)))
        };
        let (get, set, clear) = match element {
            None => (
                quote!(Some(|b: u32| { let x = #ty(b).#name(); #to_u32 })),
                quote!(Some(|b: u32, v: u32| { let mut r = #ty(b); r.#setter(#from_u32); r.0 })),
                quote!(Some(|b: u32| { let mut r = #ty(b); r.#clear(); r.0 })),
            ),
            Some(n) => {
                let n = proc_macro2::Literal::usize_unsuffixed(n as usize);
                (
                    quote!(Some(|b: u32| match #ty(b).#name(#n) { Some(x) => #to_u32, None => 0 })),
                    quote!(Some(|b: u32, v: u32| { let mut r = #ty(b); let _ = r.#setter(#n, #from_u32); r.0 })),
                    quote!(Some(|b: u32| { let mut r = #ty(b); let _ = r.#clear(#n); r.0 })),
                )
            }
        };
        let get = if access.readable() { get } else { quote!(None) };
        let set = if matches!(access, Access::Rw | Access::Wo) { set } else { quote!(None) };
        let clear = if access == Access::W1c { clear } else { quote!(None) };
        quote! {
            FieldAccessor { value_type: #tyname, field: #fname, lsb: #lsb, width: #width, access: #kw, get: #get, set: #set, clear: #clear },
        }
    }
}

fn emit_value(ty: &Ident, path: &str, reg: &Register, enum_name: &dyn Fn(&Field) -> Ident) -> TokenStream {
    let mut fields: Vec<&Field> = reg.fields.iter().collect();
    fields.sort_by_key(|f| f.bits.value.lsb);
    let head = format!(
        " `{path}`: {}",
        if reg.description.is_empty() { "register value" } else { reg.description.lines().next().unwrap_or("") }
    );
    let mut methods = TokenStream::new();
    let mut enums = TokenStream::new();
    let mut debug_fields = TokenStream::new();
    let mut w1c_mask: u64 = 0;
    for f in &fields {
        if f.array.is_some() {
            let (m, e, d, w) = emit_field_array(reg, f, enum_name);
            methods.extend(m);
            enums.extend(e);
            debug_fields.extend(d);
            w1c_mask |= w;
            continue;
        }
        let access = f.access(reg);
        let (lsb, width) = (f.bits.value.lsb, f.bits.value.width);
        let mask = hex(crate::model::mask(f.bits.value));
        let lsb_lit = proc_macro2::Literal::u32_unsuffixed(lsb);
        let name = ident(&f.name.value);
        let setter = format_ident!("set_{}", name);
        let with = format_ident!("with_{}", name);
        let clear = format_ident!("clear_{}", name);
        let bits_desc = if width == 1 { format!("bit {lsb}") } else { format!("bits {}:{lsb}", f.bits.value.msb()) };
        let d = if f.description.is_empty() { format!("`{}`", f.name.value) } else { f.description.clone() };
        let getter_doc = doc(&format!("{d} ({bits_desc}, {}).", access.keyword()));
        let setter_doc = doc(&format!("Sets `{}` ({bits_desc}): {d}", f.name.value));
        let raw_int = int_type(width);
        // How to read the raw field and how to turn a value into raw bits.
        let raw_get = if width == 1 {
            quote!((self.0 >> #lsb_lit) & 1 != 0)
        } else {
            quote!(((self.0 & #mask) >> #lsb_lit) as #raw_int)
        };
        let (vty, get, put) = if f.values.is_empty() {
            (raw_int.clone(), raw_get.clone(), quote!(value as u32))
        } else {
            let en = enum_name(f);
            enums.extend(emit_enum(&en, f, width));
            (quote!(#en), quote!(#en::from_bits(#raw_get)), quote!(value.to_bits() as u32))
        };
        if access.readable() {
            methods.extend(quote! {
                #getter_doc
                #[inline(always)]
                #[must_use]
                pub const fn #name(&self) -> #vty { #get }
            });
            let fname = f.name.value.as_str();
            debug_fields.extend(quote! { .field(#fname, &self.#name()) });
        }
        match access {
            Access::Rw | Access::Wo => {
                let with_doc = doc(&format!("Returns a copy with `{}` ({bits_desc}) set to `value`.", f.name.value));
                methods.extend(quote! {
                    #setter_doc
                    #[inline(always)]
                    pub const fn #setter(&mut self, value: #vty) {
                        self.0 = (self.0 & !#mask) | (((#put) << #lsb_lit) & #mask);
                    }
                    #with_doc
                    #[inline(always)]
                    #[must_use]
                    pub const fn #with(mut self, value: #vty) -> Self {
                        self.#setter(value);
                        self
                    }
                });
            }
            Access::W1c => {
                w1c_mask |= crate::model::mask(f.bits.value);
                let clear_doc = doc(&format!(
                    "Clears `{}` ({bits_desc}) on the next write: sets its bits to 1 (write-1-to-clear). {d}",
                    f.name.value
                ));
                methods.extend(quote! {
                    #clear_doc
                    #[inline(always)]
                    pub const fn #clear(&mut self) {
                        self.0 |= #mask;
                    }
                });
            }
            Access::Ro | Access::Rc => {}
        }
    }
    if reg.access.value == Access::W1c {
        // Bits of a W1C register that no field names are status bits too.
        let named = fields.iter().fold(0u64, |m, f| m | f.mask());
        w1c_mask |= 0xffff_ffff & !named;
    }
    let w1c = hex(w1c_mask);
    let tyname = ty.to_string();
    quote! {
        #[doc = #head]
        #[repr(transparent)]
        #[derive(Copy, Clone, PartialEq, Eq, Default, Hash)]
        pub struct #ty(pub u32);
        impl #ty {
            #[doc = " Wraps raw register bits."]
            #[inline(always)]
            #[must_use]
            pub const fn from_bits(bits: u32) -> Self { Self(bits) }
            #[doc = " The raw register bits."]
            #[inline(always)]
            #[must_use]
            pub const fn to_bits(self) -> u32 { self.0 }
            #methods
        }
        impl crate::bus::Value for #ty {
            const W1C_MASK: u32 = #w1c;
            #[inline(always)]
            fn from_bits(bits: u32) -> Self { Self(bits) }
            #[inline(always)]
            fn to_bits(self) -> u32 { self.0 }
        }
        impl core::fmt::Debug for #ty {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(#tyname).field("bits", &format_args!("{:#010x}", self.0)) #debug_fields .finish()
            }
        }
        #enums
    }
}

/// Accessors of a field array (`array: {count, stride}` on a field): `name(n) -> Option<T>`,
/// `set_name(n, value) -> bool` and `clear_name(n) -> bool` as the access allows; an index out of
/// range reads `None` and writes nothing (`false`), never panics. Returns the methods, the
/// field's enum, its `Debug` entries and its write-1-to-clear bits.
fn emit_field_array(
    reg: &Register,
    f: &Field,
    enum_name: &dyn Fn(&Field) -> Ident,
) -> (TokenStream, TokenStream, TokenStream, u64) {
    let access = f.access(reg);
    let (lsb, width) = (f.bits.value.lsb, f.bits.value.width);
    let (count, stride) = (f.count(), f.array.as_ref().map_or(0, |a| a.stride.value));
    let last = f.element(count.saturating_sub(1)).lsb;
    let count_lit = proc_macro2::Literal::usize_unsuffixed(count as usize);
    let (lsb_lit, stride_lit) =
        (proc_macro2::Literal::u32_unsuffixed(lsb), proc_macro2::Literal::u32_unsuffixed(stride as u32));
    let wmask = hex(f.bits.value.max_value());
    let name = ident(&f.name.value);
    let setter = format_ident!("set_{}", name);
    let clear = format_ident!("clear_{}", name);
    let raw_int = int_type(width);
    let span = if width == 1 {
        format!("bits {lsb}, {}, ... {last}", lsb.saturating_add(stride as u32))
    } else {
        format!("{count} x {width} bits from bit {lsb}, {stride} apart")
    };
    let d = if f.description.is_empty() { format!("`{}`", f.name.value) } else { f.description.clone() };
    let raw_get =
        if width == 1 { quote!((self.0 >> lsb) & 1 != 0) } else { quote!(((self.0 >> lsb) & #wmask) as #raw_int) };
    let mut enums = TokenStream::new();
    let (vty, get, put) = if f.values.is_empty() {
        (raw_int.clone(), raw_get, quote!(value as u32))
    } else {
        let en = enum_name(f);
        enums.extend(emit_enum(&en, f, width));
        (quote!(#en), quote!(#en::from_bits(#raw_get)), quote!(value.to_bits() as u32))
    };
    let at = quote! {
        if n >= #count_lit { return None; }
        let lsb = #lsb_lit + #stride_lit * n as u32;
    };
    let mut methods = TokenStream::new();
    let count_const = format_ident!("{}_COUNT", f.name.value.to_uppercase());
    let cd = doc(&format!("Number of elements of the field array `{}`.", f.name.value));
    methods.extend(quote! { #cd pub const #count_const: usize = #count_lit; });
    let mut debug = TokenStream::new();
    if access.readable() {
        let gd =
            doc(&format!("{d} (element `n` of {count}: {span}, {}); `None` when `n >= {count}`.", access.keyword()));
        methods.extend(quote! {
            #gd
            #[inline(always)]
            #[must_use]
            pub const fn #name(&self, n: usize) -> Option<#vty> { #at Some(#get) }
        });
        for n in 0..count {
            let label = format!("{}[{n}]", f.name.value);
            let n = proc_macro2::Literal::usize_unsuffixed(n as usize);
            debug.extend(quote! { .field(#label, &self.#name(#n)) });
        }
    }
    let bool_at = quote! {
        if n >= #count_lit { return false; }
        let lsb = #lsb_lit + #stride_lit * n as u32;
    };
    let mut w1c = 0u64;
    match access {
        Access::Rw | Access::Wo => {
            let sd = doc(&format!(
                "Sets element `n` of `{}` ({span}) to `value`: {d} Returns `false`, writing nothing, when `n >= {count}`.",
                f.name.value
            ));
            methods.extend(quote! {
                #sd
                #[inline(always)]
                #[must_use = "`false`: the index is out of range and nothing was set"]
                pub const fn #setter(&mut self, n: usize, value: #vty) -> bool {
                    #bool_at
                    let mask = #wmask << lsb;
                    self.0 = (self.0 & !mask) | (((#put) << lsb) & mask);
                    true
                }
            });
        }
        Access::W1c => {
            w1c = f.mask();
            let cd = doc(&format!(
                "Clears element `n` of `{}` ({span}) on the next write (write-1-to-clear): {d} Returns `false`, writing nothing, when `n >= {count}`.",
                f.name.value
            ));
            methods.extend(quote! {
                #cd
                #[inline(always)]
                #[must_use = "`false`: the index is out of range and nothing was cleared"]
                pub const fn #clear(&mut self, n: usize) -> bool {
                    #bool_at
                    self.0 |= #wmask << lsb;
                    true
                }
            });
        }
        Access::Ro | Access::Rc => {}
    }
    (methods, enums, debug, w1c)
}

/// Emits a typed enum for an enumerated field; when the names do not cover every value of the
/// field, an `Other` variant keeps the undefined ones.
pub(crate) fn emit_enum(en: &Ident, f: &Field, width: u32) -> TokenStream {
    let raw = match int_type(width).to_string().as_str() {
        "bool" => quote!(bool),
        _ => int_type(width),
    };
    let is_bool = width == 1;
    let total = !crate::codegen_model::enum_has_other(f);
    let mut variants = TokenStream::new();
    let mut from = TokenStream::new();
    let mut to = TokenStream::new();
    for (n, v) in &f.values {
        let var = type_ident(&n.value);
        let d = format!(" `{}` = {}", n.value, v.value);
        variants.extend(quote! { #[doc = #d] #var, });
        let lit = if is_bool {
            if v.value != 0 { quote!(true) } else { quote!(false) }
        } else {
            let l = proc_macro2::Literal::u64_unsuffixed(v.value);
            quote!(#l)
        };
        from.extend(quote! { #lit => Self::#var, });
        to.extend(quote! { Self::#var => #lit, });
    }
    let d = format!(" Values of `{}`.", f.name.value);
    if total {
        // Every bit pattern is named: the match is exhaustive without a fallback, except for
        // integer types wider than the field, where the masked input still needs an arm.
        let fallback = if is_bool {
            quote!()
        } else {
            let first = type_ident(&f.values[0].0.value);
            quote!(_ => Self::#first,)
        };
        let masked = if is_bool {
            quote!(bits)
        } else {
            let m = proc_macro2::Literal::u64_unsuffixed(crate::ast::Bits { lsb: 0, width }.max_value());
            quote!(bits & #m)
        };
        quote! {
            #[doc = #d]
            #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
            pub enum #en { #variants }
            impl #en {
                #[doc = " Decodes raw field bits (masked to the field width; every value is named)."]
                #[inline(always)]
                #[must_use]
                pub const fn from_bits(bits: #raw) -> Self { match #masked { #from #fallback } }
                #[doc = " Raw field bits."]
                #[inline(always)]
                #[must_use]
                pub const fn to_bits(self) -> #raw { match self { #to } }
            }
        }
    } else {
        quote! {
            #[doc = #d]
            #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
            pub enum #en {
                #variants
                #[doc = " A value the register map does not name."]
                Other(#raw),
            }
            impl #en {
                #[doc = " Decodes raw field bits; unnamed values become `Other`."]
                #[inline(always)]
                #[must_use]
                pub const fn from_bits(bits: #raw) -> Self { match bits { #from other => Self::Other(other) } }
                #[doc = " Raw field bits."]
                #[inline(always)]
                #[must_use]
                pub const fn to_bits(self) -> #raw { match self { #to Self::Other(other) => other } }
            }
        }
    }
}
