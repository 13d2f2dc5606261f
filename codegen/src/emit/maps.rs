//! Block and space map structs: each register's typed location, as data filled per SoC.

use super::values::TypeNames;
use super::{doc, ident};
use crate::ast::Access;
use crate::codegen_model::{USpace, camel};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The access marker type for a register access kind.
pub(crate) fn access_marker(a: Access) -> TokenStream {
    match a {
        Access::Ro => quote!(crate::bus::Ro),
        Access::Wo => quote!(crate::bus::Wo),
        Access::Rw => quote!(crate::bus::Rw),
        Access::W1c => quote!(crate::bus::W1c),
        Access::Rc => quote!(crate::bus::Rc),
    }
}

/// Space map type name: `fe` -> `FeSpace`.
pub(crate) fn space_map(space: &str) -> proc_macro2::Ident {
    format_ident!("{}Space", camel(space))
}

/// Emits one struct per block and per space.
pub fn emit(spaces: &[USpace], names: &TypeNames) -> TokenStream {
    let mut out = TokenStream::new();
    for s in spaces {
        let mut space_fields = TokenStream::new();
        let mut space_absent = TokenStream::new();
        let mut space_accessors = TokenStream::new();
        for b in &s.blocks {
            let bty = names.block_map(s.name, b.name);
            let mut fields = TokenStream::new();
            let mut reloc = TokenStream::new();
            let mut absent = TokenStream::new();
            let mut accessors = TokenStream::new();
            for r in &b.registers {
                let reg = r.reg;
                let vty = names.value(s.name, b.name, &reg.name.value);
                let acc = access_marker(reg.access.value);
                let mut ty = if reg.array.is_some() {
                    quote!(crate::bus::RegArray<crate::values::#vty, #acc>)
                } else {
                    quote!(crate::bus::RegSpec<crate::values::#vty, #acc>)
                };
                let name = ident(&reg.name.value);
                absent.extend(if !r.everywhere {
                    quote! { #name: None, }
                } else if reg.array.is_some() {
                    quote! { #name: crate::bus::RegArray::new(crate::bus::RegSpec::new(0, crate::values::#vty(0)), 0, 0), }
                } else {
                    quote! { #name: crate::bus::RegSpec::new(0, crate::values::#vty(0)), }
                });
                if !r.everywhere {
                    ty = quote!(Option<#ty>);
                }
                let d = doc(&format!(
                    "`{}.{}` ({}{}){}{}",
                    b.name,
                    reg.name.value,
                    reg.access.value.keyword(),
                    if reg.array.is_some() { ", array" } else { "" },
                    if reg.description.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", reg.description.lines().next().unwrap_or(""))
                    },
                    if r.everywhere { "" } else { "\n\n`None` on SoCs that do not have it." }
                ));
                fields.extend(quote! { #d pub #name: #ty, });
                let handle = if reg.array.is_some() {
                    quote!(crate::bus::ArrayOn<B, crate::values::#vty, #acc>)
                } else {
                    quote!(crate::bus::Reg<B, crate::values::#vty, #acc>)
                };
                let get = if reg.array.is_some() { quote!(view_array) } else { quote!(view_reg) };
                let ad = doc(&format!(
                    "`{}.{}` on this view's bus{}.",
                    b.name,
                    reg.name.value,
                    if r.everywhere { "" } else { " (`None` on SoCs that do not have it)" }
                ));
                accessors.extend(if r.everywhere {
                    quote! { #ad #[inline(always)] #[must_use] pub fn #name(&self) -> #handle { crate::bus::#get(self, self.map.#name) } }
                } else {
                    quote! {
                        #ad #[inline(always)] #[must_use]
                        pub fn #name(&self) -> Option<#handle> { self.map.#name.map(|r| crate::bus::#get(self, r)) }
                    }
                });
                reloc.extend(quote! { #name: crate::bus::Relocate::relocate(self.#name, delta, inside), });
            }
            let bdoc = doc(&format!(
                "Registers of block `{}`{}",
                b.name,
                if b.description.is_empty() { ".".to_string() } else { format!(": {}", b.description) }
            ));
            out.extend(quote! {
                #bdoc
                #[derive(Copy, Clone, Debug)]
                pub struct #bty { #fields }
                impl crate::bus::Relocate for #bty {
                    fn relocate(self, delta: u32, inside: crate::bus::Inside) -> Self { Self { #reloc } }
                }
                impl<'a, B: crate::bus::Bus + Copy> crate::bus::View<'a, #bty, B> { #accessors }
                impl #bty {
                    #[doc = " This block on `bus` (a copyable bus, or `&bus`): its registers as handles."]
                    #[inline(always)]
                    pub fn bind<B: crate::bus::Bus + Copy>(&self, bus: B) -> crate::bus::View<'_, Self, B> {
                        crate::bus::view(self, bus, 0)
                    }
                    #[doc = " The base of every SoC's literal (`..ABSENT`): `None` for the registers a SoC"]
                    #[doc = " lacks, so a SoC's module names only its own; the placeholders of the other"]
                    #[doc = " fields are always overridden."]
                    pub(crate) const ABSENT: Self = Self { #absent };
                }
            });
            let mut fty = if b.arrayed { quote!(crate::bus::BlockArray<#bty>) } else { quote!(#bty) };
            if !b.everywhere {
                fty = quote!(Option<#fty>);
            }
            let fname = ident(b.name);
            let (vty, get) = if b.arrayed {
                (quote!(crate::bus::BlocksOn<'a, #bty, B>), quote!(view_blocks))
            } else {
                (quote!(crate::bus::View<'a, #bty, B>), quote!(view_block))
            };
            let ad = doc(&format!(
                "Block `{}` on this space's bus{}{}.",
                b.name,
                if b.arrayed { " (one per instance; index with `at`)" } else { "" },
                if b.everywhere { "" } else { "; `None` on SoCs that do not have it" }
            ));
            space_accessors.extend(if b.everywhere {
                quote! { #ad #[inline(always)] #[must_use] pub fn #fname(&self) -> #vty { crate::bus::#get(self, &self.map.#fname) } }
            } else {
                quote! {
                    #ad #[inline(always)] #[must_use]
                    pub fn #fname(&self) -> Option<#vty> { self.map.#fname.as_ref().map(|b| crate::bus::#get(self, b)) }
                }
            });
            space_absent.extend(if !b.everywhere {
                quote! { #fname: None, }
            } else if b.arrayed {
                quote! { #fname: crate::bus::BlockArray::new(#bty::ABSENT, 0, 0), }
            } else {
                quote! { #fname: #bty::ABSENT, }
            });
            let fdoc = doc(&format!(
                "Block `{}`{}{}",
                b.name,
                if b.arrayed { " (one per instance; index with `at`)" } else { "" },
                if b.everywhere { "." } else { "; `None` on SoCs that do not have it." }
            ));
            space_fields.extend(quote! { #fdoc pub #fname: #fty, });
        }
        let sty = space_map(s.name);
        let sdoc = doc(&format!(
            "Registers of space `{}`{}",
            s.name,
            if s.description.is_empty() { ".".to_string() } else { format!(": {}", s.description) }
        ));
        out.extend(quote! {
            #sdoc
            #[derive(Copy, Clone, Debug)]
            pub struct #sty { #space_fields }
            impl<'a, B: crate::bus::Bus + Copy> crate::bus::View<'a, #sty, B> { #space_accessors }
            impl #sty {
                #[doc = " This space on `bus` (`&bus`, or a bus that is `Copy`): its blocks and registers as"]
                #[doc = " handles (`info.fe.bind(&bus).pdma().glo_cfg().read()`)."]
                #[inline(always)]
                pub fn bind<B: crate::bus::Bus + Copy>(&self, bus: B) -> crate::bus::View<'_, Self, B> {
                    crate::bus::view(self, bus, 0)
                }
                #[doc = " The base of every SoC's literal (`..ABSENT`): `None` for the blocks a SoC lacks."]
                pub(crate) const ABSENT: Self = Self { #space_absent };
            }
        });
    }
    out
}
