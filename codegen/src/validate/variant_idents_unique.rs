//! Rule: the names of one enumeration become distinct Rust variant names.
//!
//! An enum value's name is turned into CamelCase, dropping `_` (`dw_4` -> `Dw4`), so `a__b` and
//! `a_b` both become `AB`; and an enumeration that leaves values unnamed gets the variant
//! `Other(raw)` for them, which a value named `other` would duplicate. Either way the register
//! crate would not compile.

use crate::codegen_model::{OTHER_VARIANT, camel, enum_has_other};
use crate::model::Map;
use crate::source::{Diagnostic, Sp};

/// Reports enum values whose generated variants would collide.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for s in &map.spaces {
        for b in &s.blocks {
            for r in &b.registers {
                for f in &r.fields {
                    let path = format!("{}.{}.{}", b.name.value, r.name.value, f.name.value);
                    let mut seen: Vec<(String, &Sp<String>)> = Vec::new();
                    for (n, _) in &f.values {
                        let id = camel(&n.value);
                        if let Some((_, first)) = seen.iter().find(|(s, _)| *s == id) {
                            diags.push(
                                Diagnostic::error(
                                    n.span,
                                    format!(
                                        "values `{}` and `{}` of field `{path}` both become the Rust variant `{id}`",
                                        first.value, n.value
                                    ),
                                )
                                .label(format!("`{id}` in Rust"))
                                .with(first.span, format!("`{id}` in Rust too"))
                                .note("a value's name becomes CamelCase, without `_`")
                                .note("help: rename one of the values"),
                            );
                            continue;
                        }
                        if id == OTHER_VARIANT && enum_has_other(f) {
                            diags.push(
                                Diagnostic::error(
                                    n.span,
                                    format!(
                                        "value `{}` of field `{path}` becomes the Rust variant `{id}`, which the generated enum keeps for the values it does not name",
                                        n.value
                                    ),
                                )
                                .label(format!("`{id}` in Rust"))
                                .note("help: rename the value, or name every value of the field"),
                            );
                        }
                        seen.push((id, n));
                    }
                }
            }
        }
    }
}
