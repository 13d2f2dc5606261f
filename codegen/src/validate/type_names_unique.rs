//! Rule: the Rust type names the generator derives (`BlockRegister`, `BlockMap`, `SpaceSpace`,
//! enum and descriptor types) are unique across all SoCs.

use crate::codegen_model::camel;
use crate::model::Map;
use crate::source::{Diagnostic, Span};
use std::collections::HashMap;

/// Reports two YAML items that would generate the same Rust type name.
pub fn check(maps: &[Map], diags: &mut Vec<Diagnostic>) {
    // type name -> (what it is, where first seen)
    let mut seen: HashMap<String, (String, Span)> = HashMap::new();
    let mut blocks_per_name: HashMap<&str, Vec<&str>> = HashMap::new();
    for m in maps.iter().filter(|m| !m.is_abstract) {
        for s in &m.spaces {
            for b in &s.blocks {
                let v = blocks_per_name.entry(&b.name.value).or_default();
                if !v.contains(&s.name.value.as_str()) {
                    v.push(&s.name.value);
                }
            }
        }
    }
    let mut claim = |name: String, what: String, span: Span, diags: &mut Vec<Diagnostic>| match seen.get(&name) {
        Some((w, first)) if *w != what => diags.push(
            Diagnostic::error(span, format!("{what} and {w} would both generate the Rust type `{name}`"))
                .with(*first, format!("{w} is here"))
                .note("rename one of them"),
        ),
        Some(_) => {}
        None => {
            seen.insert(name, (what, span));
        }
    };
    for m in maps.iter().filter(|m| !m.is_abstract) {
        for s in &m.spaces {
            claim(format!("{}Space", camel(&s.name.value)), format!("space `{}`", s.name.value), s.name.span, diags);
            for b in &s.blocks {
                let base = if blocks_per_name.get(b.name.value.as_str()).is_some_and(|v| v.len() > 1) {
                    format!("{}{}", camel(&s.name.value), camel(&b.name.value))
                } else {
                    camel(&b.name.value)
                };
                claim(format!("{base}Map"), format!("block `{}.{}`", s.name.value, b.name.value), b.name.span, diags);
                for r in &b.registers {
                    let rt = format!("{base}{}", camel(&r.name.value));
                    claim(rt.clone(), format!("register `{}.{}`", b.name.value, r.name.value), r.name.span, diags);
                    for f in r.fields.iter().filter(|f| !f.values.is_empty()) {
                        claim(
                            format!("{rt}{}", camel(&f.name.value)),
                            format!("enum of `{}.{}.{}`", b.name.value, r.name.value, f.name.value),
                            f.name.span,
                            diags,
                        );
                    }
                }
            }
        }
        for d in &m.descriptors {
            claim(camel(&d.name.value), format!("descriptor `{}`", d.name.value), d.name.span, diags);
        }
    }
    // Names the generated crate defines itself.
    for reserved in ["SocInfo", "Space", "DescriptorLayout", "FieldAccessor"] {
        if let Some((w, span)) = seen.get(reserved) {
            diags.push(Diagnostic::error(
                *span,
                format!("{w} would generate `{reserved}`, a name the register crate reserves"),
            ));
        }
    }
}
