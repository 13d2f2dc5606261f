//! DMA descriptor value types: `[u32; N]` words with field accessors, and the layout enum.

use super::{doc, type_ident};
use crate::model::Map;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Emits one type per descriptor layout found in any SoC (layouts with one name are identical,
/// checked by the caller's validation), plus `DescriptorLayout`.
pub fn emit(maps: &[&Map]) -> TokenStream {
    let mut seen: Vec<&str> = Vec::new();
    let mut out = TokenStream::new();
    let mut variants = TokenStream::new();
    let mut sizes = TokenStream::new();
    let mut names = TokenStream::new();
    for m in maps {
        for d in &m.descriptors {
            if seen.contains(&d.name.value.as_str()) {
                continue;
            }
            seen.push(&d.name.value);
            let ty = type_ident(&d.name.value);
            let words = (d.size.value / 4) as usize;
            let size = proc_macro2::Literal::usize_unsuffixed(d.size.value as usize);
            let nwords = proc_macro2::Literal::usize_unsuffixed(words);
            let head = doc(&format!(
                "`{}`: {}",
                d.name.value,
                if d.description.is_empty() { "descriptor" } else { &d.description }
            ));
            let mut methods = TokenStream::new();
            let mut fields: Vec<_> = d.fields.iter().collect();
            fields.sort_by_key(|f| (f.word.value, f.bits.value.lsb));
            for f in fields {
                let (lsb, width) = (f.bits.value.lsb, f.bits.value.width);
                let w = proc_macro2::Literal::usize_unsuffixed(f.word.value as usize);
                let mask = super::hex(crate::model::mask(f.bits.value));
                let l = proc_macro2::Literal::u32_unsuffixed(lsb);
                let name = super::ident(&f.name.value);
                let setter = format_ident!("set_{}", name);
                let with = format_ident!("with_{}", name);
                let it = super::values::int_type(width);
                let bits = if width == 1 {
                    format!("word {}, bit {lsb}", f.word.value)
                } else {
                    format!("word {}, bits {}:{lsb}", f.word.value, f.bits.value.msb())
                };
                let d = if f.description.is_empty() { format!("`{}`", f.name.value) } else { f.description.clone() };
                let gdoc = doc(&format!("{d} ({bits})."));
                let sdoc = doc(&format!("Sets `{}` ({bits}): {d}", f.name.value));
                let wdoc = doc(&format!("Returns a copy with `{}` ({bits}) set to `value`.", f.name.value));
                let get = if width == 1 {
                    quote!((self.words[#w] >> #l) & 1 != 0)
                } else {
                    quote!(((self.words[#w] & #mask) >> #l) as #it)
                };
                methods.extend(quote! {
                    #gdoc
                    #[inline(always)]
                    #[must_use]
                    pub const fn #name(&self) -> #it { #get }
                    #sdoc
                    #[inline(always)]
                    pub const fn #setter(&mut self, value: #it) {
                        self.words[#w] = (self.words[#w] & !#mask) | (((value as u32) << #l) & #mask);
                    }
                    #wdoc
                    #[inline(always)]
                    #[must_use]
                    pub const fn #with(mut self, value: #it) -> Self {
                        self.#setter(value);
                        self
                    }
                });
            }
            out.extend(quote! {
                #head
                #[repr(C)]
                #[derive(Copy, Clone, PartialEq, Eq, Default, Hash, Debug)]
                pub struct #ty {
                    #[doc = " The descriptor's 32-bit words, in CPU byte order."]
                    pub words: [u32; #nwords],
                }
                impl #ty {
                    #[doc = " Size in bytes."]
                    pub const SIZE: usize = #size;
                    #[doc = " An all-zero descriptor."]
                    #[must_use]
                    pub const fn new() -> Self { Self { words: [0; #nwords] } }
                    #[doc = " The descriptor as it lies in DMA memory (little-endian words)."]
                    #[must_use]
                    pub fn to_le_bytes(&self) -> [u8; #size] {
                        let mut out = [0u8; #size];
                        for (chunk, w) in out.chunks_exact_mut(4).zip(self.words.iter()) {
                            chunk.copy_from_slice(&w.to_le_bytes());
                        }
                        out
                    }
                    #[doc = " Reads a descriptor from DMA memory (little-endian words)."]
                    #[must_use]
                    pub fn from_le_bytes(bytes: &[u8; #size]) -> Self {
                        let mut d = Self::new();
                        for (w, chunk) in d.words.iter_mut().zip(bytes.chunks_exact(4)) {
                            *w = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
                        }
                        d
                    }
                    #methods
                }
            });
            let vdoc = format!(" `{}` ({} bytes): see [`{}`].", d.name.value, d.size.value, ty);
            variants.extend(quote! { #[doc = #vdoc] #ty, });
            sizes.extend(quote! { Self::#ty => #ty::SIZE, });
            let n = d.name.value.as_str();
            names.extend(quote! { Self::#ty => #n, });
        }
    }
    quote! {
        #out
        #[doc = " A descriptor layout a SoC uses (named in its capabilities)."]
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum DescriptorLayout { #variants }
        impl DescriptorLayout {
            #[doc = " Size of one descriptor in bytes."]
            #[must_use]
            pub const fn size(self) -> usize { match self { #sizes } }
            #[doc = " The layout's name in the YAML."]
            #[must_use]
            pub const fn name(self) -> &'static str { match self { #names } }
        }
    }
}
