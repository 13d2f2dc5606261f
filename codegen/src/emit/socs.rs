//! Per-SoC modules (constant maps, capabilities, a register table in the docs) and the
//! compatible-string table.

use super::maps::space_map;
use super::values::TypeNames;
use super::{doc, hex, ident, num, type_ident};
use crate::caps::SocCaps;
use crate::codegen_model::{USpace, snake};
use crate::model::{Block, Map};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Emits `Space`, `SpaceMap`, `SpaceInfo`, `SocInfo`, `SOCS` and `by_compatible`.
///
/// A SoC's spaces are a table (`SocInfo::spaces`) that lists only the spaces the SoC has, so a
/// space that a new SoC brings changes the shared items but no other SoC's module; only `fe`,
/// which every SoC has (`spaces_located`), is also a direct field, for the hot path.
pub fn emit_table(spaces: &[USpace], socs: &[(&Map, &SocCaps)]) -> TokenStream {
    let mut space_variants = TokenStream::new();
    let mut map_variants = TokenStream::new();
    let mut map_of = TokenStream::new();
    let mut fe_field = TokenStream::new();
    for s in spaces {
        let v = type_ident(s.name);
        let d = doc(&format!(
            "Space `{}`{}",
            s.name,
            if s.description.is_empty() { String::new() } else { format!(": {}", s.description) }
        ));
        space_variants.extend(quote! { #d #v, });
        let ty = space_map(s.name);
        let md = doc(&format!("The register map of space `{}`.", s.name));
        map_variants.extend(quote! { #md #v(&'static maps::#ty), });
        map_of.extend(quote! {
            impl SpaceMapOf for maps::#ty {
                const SPACE: Space = Space::#v;
                fn of(map: SpaceMap) -> Option<&'static Self> {
                    match map {
                        SpaceMap::#v(m) => Some(m),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            }
        });
        if s.name == FE && s.everywhere {
            fe_field = quote! {
                #[doc = " Register map of the frame engine (space `fe`, which every SoC has): the"]
                #[doc = " hot path's direct field; [`SocInfo::spaces`] lists it too."]
                pub fe: maps::#ty,
            };
        }
    }
    let space_names: Vec<&str> = spaces.iter().map(|s| s.name).collect();
    let space_idents: Vec<proc_macro2::Ident> = spaces.iter().map(|s| type_ident(s.name)).collect();
    let nspaces = proc_macro2::Literal::usize_unsuffixed(spaces.len());
    let refs: Vec<TokenStream> = socs
        .iter()
        .map(|(m, _)| {
            let md = format_ident!("{}", snake(&m.name.value));
            quote!(&#md::INFO)
        })
        .collect();
    let n = proc_macro2::Literal::usize_unsuffixed(refs.len());
    quote! {
        #[doc = " An address space a register lives in: the generated space id. New spaces come with"]
        #[doc = " new SoC maps, so code outside this crate cannot match on every space (it asks the"]
        #[doc = " platform for the bus of a space id instead)."]
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Space { #space_variants }

        impl Space {
            #[doc = " Every space of every SoC, in index order."]
            pub const ALL: [Space; #nspaces] = [#(Space::#space_idents),*];
            #[doc = " The space's name in the YAML maps (`fe`, `ethsys`)."]
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self { #(Space::#space_idents => #space_names),* }
            }
            #[doc = " The space's position in [`Space::ALL`] (a dense index for per-space tables)."]
            #[must_use]
            pub const fn index(self) -> usize {
                self as usize
            }
        }

        #[doc = " The register map of one space of one SoC, tagged by its space."]
        #[derive(Copy, Clone, Debug)]
        #[non_exhaustive]
        pub enum SpaceMap { #map_variants }

        #[doc = " A space map type ([`maps`]`::*Space`) and the space it maps: what [`SocInfo::map`] looks up."]
        pub trait SpaceMapOf: Sized + 'static {
            #[doc = " The space this map type describes."]
            const SPACE: Space;
            #[doc = " The map inside `map`, when `map` is of this type."]
            fn of(map: SpaceMap) -> Option<&'static Self>;
        }

        #map_of

        #[doc = " One space of a SoC: its id, where the device tree puts it, and its register map."]
        #[derive(Copy, Clone, Debug)]
        pub struct SpaceInfo {
            #[doc = " The space id."]
            pub space: Space,
            #[doc = " `reg` (the Ethernet node's own window) or the phandle property naming the syscon node."]
            pub property: &'static str,
            #[doc = " Which phandle of the property."]
            pub index: u8,
            #[doc = " The space's registers on this SoC."]
            pub map: SpaceMap,
        }

        impl SpaceInfo {
            #[doc = " The space is the Ethernet node's own `reg`, not a syscon."]
            #[must_use]
            pub fn is_own_reg(&self) -> bool {
                self.property.as_bytes() == b"reg"
            }
        }

        #[doc = " Everything the driver core needs to know about one SoC: its register maps and capabilities."]
        #[derive(Copy, Clone, Debug)]
        pub struct SocInfo {
            #[doc = " Map name (`mt7621`)."]
            pub name: &'static str,
            #[doc = " Human description."]
            pub description: &'static str,
            #[doc = " Device-tree compatible strings that select this SoC."]
            pub compatible: &'static [&'static str],
            #[doc = " Capabilities and quirks."]
            pub caps: crate::caps::Capabilities,
            #[doc = " Every register with its offset, access kind, reset value and bit masks, as data."]
            pub registers: &'static [crate::meta::RegMeta],
            #fe_field
            #[doc = " The SoC's spaces (only those it has), in map order: id, device-tree location, map."]
            pub spaces: &'static [SpaceInfo],
        }

        impl SocInfo {
            #[doc = " Space `space` of this SoC, if it has it."]
            #[must_use]
            pub fn space(&self, space: Space) -> Option<&'static SpaceInfo> {
                self.spaces.iter().find(|s| s.space == space)
            }
            #[doc = " The register map of type `M` (`info.map::<maps::EthsysSpace>()`), if this SoC has its space."]
            #[must_use]
            pub fn map<M: SpaceMapOf>(&self) -> Option<&'static M> {
                M::of(self.space(M::SPACE)?.map)
            }
        }

        #[doc = " Every SoC generated from `regs/*.yaml`, in file-name order."]
        pub static SOCS: [&SocInfo; #n] = [#(#refs),*];

        #[doc = " The SoC a device-tree compatible string selects, if any."]
        #[must_use]
        pub fn by_compatible(compatible: &str) -> Option<&'static SocInfo> {
            SOCS.iter().copied().find(|s| s.compatible.contains(&compatible))
        }
    }
}

/// The frame engine's space: the one every SoC has and the direct field `SocInfo::fe`.
const FE: &str = "fe";

/// The SoC's `Capabilities` literal: its runtime capabilities printed from the schema.
fn caps_tokens(c: &SocCaps) -> TokenStream {
    <crate::caps::Capabilities as crate::caps_schema::Kind>::lit(&c.runtime())
}

/// A block's literal: the SoC's own registers in its own order, the rest from `..ABSENT`, so
/// registers that only other SoCs have do not appear in it.
fn block_value(space: &str, ub: &crate::codegen_model::UBlock, b: &Block, base: u64, names: &TypeNames) -> TokenStream {
    let bty = names.block_map(space, ub.name);
    let mut fields = TokenStream::new();
    for r in &b.registers {
        let Some(ur) = ub.registers.iter().find(|ur| ur.reg.name.value == r.name.value) else { continue };
        let name = ident(&r.name.value);
        let vty = names.value(space, ub.name, &r.name.value);
        let off = hex(base.saturating_add(r.offset.value));
        let reset = hex(r.reset.value);
        let spec = quote!(crate::bus::RegSpec::new(#off, crate::values::#vty(#reset)));
        let v = match &r.array {
            None => spec,
            Some(a) => {
                let (s, c) = (hex(a.stride.value), num(a.count.value));
                quote!(crate::bus::RegArray::new(#spec, #s, #c))
            }
        };
        let v = if ur.everywhere { v } else { quote!(Some(#v)) };
        fields.extend(quote! { #name: #v, });
    }
    quote!(crate::maps::#bty { #fields ..crate::maps::#bty::ABSENT })
}

fn register_table(m: &Map) -> String {
    let mut rows = Vec::new();
    for s in &m.spaces {
        for b in &s.blocks {
            for r in &b.registers {
                let abs = b.base.value.saturating_add(r.offset.value);
                let rep = match (&b.array, &r.array) {
                    (Some(a), _) => format!("{} x {:#x} (block)", a.count.value, a.stride.value),
                    (_, Some(a)) => format!("{} x {:#x}", a.count.value, a.stride.value),
                    _ => String::new(),
                };
                let desc = r.description.lines().next().unwrap_or("").replace('|', "\\|");
                rows.push((
                    s.name.value.clone(),
                    abs,
                    format!(
                        "| `{}` | `{}.{}` | `{:#07x}` | {} | {} | `{:#010x}` | {} |",
                        s.name.value,
                        b.name.value,
                        r.name.value,
                        abs,
                        rep,
                        r.access.value.keyword(),
                        r.reset.value,
                        desc
                    ),
                ));
            }
        }
    }
    rows.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let mut t = String::from(
        "| space | register | offset | repeat | access | reset | description |\n|---|---|---|---|---|---|---|\n",
    );
    for (_, _, row) in rows {
        t += &row;
        t.push('\n');
    }
    t
}

fn register_metas(m: &Map) -> TokenStream {
    use crate::ast::Access;
    let mut out = TokenStream::new();
    for s in &m.spaces {
        let space = type_ident(&s.name.value);
        for b in &s.blocks {
            for r in &b.registers {
                let (stride, count) = match (&b.array, &r.array) {
                    (Some(a), _) | (None, Some(a)) => (a.stride.value, a.count.value),
                    (None, None) => (0, 1),
                };
                let all: u64 = 0xffff_ffff;
                let named = r.fields.iter().fold(0u64, |acc, f| acc | f.mask());
                let mask_of = |want: &[Access]| {
                    r.fields.iter().filter(|f| want.contains(&f.access(r))).fold(0u64, |acc, f| acc | f.mask())
                };
                let unnamed_if = |want: &[Access]| if want.contains(&r.access.value) { all & !named } else { 0 };
                let ro = mask_of(&[Access::Ro, Access::Rc]) | unnamed_if(&[Access::Ro, Access::Rc]);
                let w1c = mask_of(&[Access::W1c]) | unnamed_if(&[Access::W1c]);
                let wo = mask_of(&[Access::Wo]) | unnamed_if(&[Access::Wo]);
                let access = match r.access.value {
                    Access::Ro => quote!(Ro),
                    Access::Wo => quote!(Wo),
                    Access::Rw => quote!(Rw),
                    Access::W1c => quote!(W1c),
                    Access::Rc => quote!(Rc),
                };
                let name = format!("{}.{}", b.name.value, r.name.value);
                let (off, st, c, reset) =
                    (hex(b.base.value.saturating_add(r.offset.value)), hex(stride), num(count), hex(r.reset.value));
                let (ro, w1c, wo) = (hex(ro), hex(w1c), hex(wo));
                out.extend(quote! {
                    crate::meta::RegMeta {
                        space: crate::Space::#space, name: #name, offset: #off, stride: #st, count: #c,
                        access: crate::meta::AccessKind::#access, reset: #reset, ro_mask: #ro, w1c_mask: #w1c, wo_mask: #wo,
                    },
                });
            }
        }
    }
    out
}

/// Emits `pub mod <soc>` with constant maps, `INFO`, and a register table in its docs.
pub fn emit_soc(m: &Map, caps: &SocCaps, spaces: &[USpace], names: &TypeNames) -> TokenStream {
    let md = format_ident!("{}", snake(&m.name.value));
    let mut consts = TokenStream::new();
    let mut fe_field = TokenStream::new();
    let mut table = Vec::new();
    // In the map's own space order, so the table does not depend on other SoCs.
    for space in &m.spaces {
        let Some(us) = spaces.iter().find(|us| us.name == space.name.value) else { continue };
        let mut fields = TokenStream::new();
        // The SoC's own blocks in its own order; the others come from `..ABSENT`.
        for b in &space.blocks {
            let Some(ub) = us.blocks.iter().find(|ub| ub.name == b.name.value) else { continue };
            let bname = ident(ub.name);
            let first = block_value(us.name, ub, b, b.base.value, names);
            let v = match &b.array {
                None => first,
                Some(a) => {
                    let (s, c) = (hex(a.stride.value), num(a.count.value));
                    quote!(crate::bus::BlockArray::new(#first, #s, #c))
                }
            };
            let v = if ub.everywhere { v } else { quote!(Some(#v)) };
            fields.extend(quote! { #bname: #v, });
        }
        let cname = format_ident!("{}", snake(us.name).to_uppercase());
        let sty = space_map(us.name);
        let cd = doc(&format!("Register map of space `{}` on {}, with constant offsets.", us.name, m.name.value));
        consts.extend(quote! {
            #cd pub const #cname: crate::maps::#sty = crate::maps::#sty { #fields ..crate::maps::#sty::ABSENT };
        });
        if us.name == FE && us.everywhere {
            fe_field = quote! { fe: #cname, };
        }
        let v = type_ident(us.name);
        let loc = caps.spaces.iter().find(|l| l.name == us.name);
        let prop = loc.map_or("", |l| l.property.as_str());
        let index = num(loc.map_or(0, |l| l.index));
        table.push(quote! {
            crate::SpaceInfo { space: crate::Space::#v, property: #prop, index: #index, map: crate::SpaceMap::#v(&#cname) }
        });
    }
    let name = m.name.value.as_str();
    let description = m.description.as_str();
    let compat: Vec<&str> = m.compatible.iter().map(|c| c.value.as_str()).collect();
    let caps = caps_tokens(caps);
    let metas = register_metas(m);
    let module_doc = doc(&format!(
        "{}{}\n\nCompatible: {}.{}\n\n{}",
        m.name.value,
        if m.description.is_empty() { String::new() } else { format!(": {}", m.description) },
        compat.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", "),
        if m.ancestors.is_empty() { String::new() } else { format!(" Extends `{}`.", m.ancestors.join("` -> `")) },
        register_table(m)
    ));
    quote! {
        #module_doc
        pub mod #md {
            #consts
            #[doc = " Everything about this SoC; also reachable through [`crate::by_compatible`]."]
            pub const INFO: crate::SocInfo = crate::SocInfo {
                name: #name,
                description: #description,
                compatible: &[#(#compat),*],
                caps: #caps,
                registers: &[#metas],
                #fe_field
                spaces: &[#(#table),*],
            };
        }
    }
}
