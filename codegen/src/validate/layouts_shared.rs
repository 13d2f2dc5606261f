//! Rule: a register name has one field layout and one shape across all SoCs.
//!
//! The generator emits one value type per `block.register` shared by every SoC, and one map
//! struct per block; so a register that differs between SoCs must get its own name.

use crate::codegen_model::{RegShape, layout_key};
use crate::model::{Map, Register};
use crate::source::{Diagnostic, Span};
use std::collections::HashMap;

/// `(space, block, register)`.
type RegKey = (String, String, String);
/// The first SoC seen with a register: `(soc, layout key, shape, where, where it changed an
/// inherited register in place)`.
type FirstSeen = (String, String, RegShape, Span, Option<Span>);

/// Where map `m` changed register `reg`, which it inherited, in place: the first field it gives
/// (a new position, a new field, a new access), else the register's access. `None` when `m`
/// wrote the register itself.
fn in_place_change(m: &Map, space: &str, block: &str, reg: &Register) -> Option<Span> {
    if reg.name.span.file == m.file {
        return None;
    }
    let own = |s: Span| s.file == m.file;
    reg.fields
        .iter()
        .find_map(|f| {
            [Some(f.bits.span), Some(f.name.span), f.access_written.as_ref().map(|a| a.span)]
                .into_iter()
                .flatten()
                .find(|s| own(*s))
        })
        .or_else(|| own(reg.access.span).then_some(reg.access.span))
        .or_else(|| {
            // A field this map removed from the register.
            let prefix = format!("{space}.{block}.{}.", reg.name.value);
            m.removed.iter().find(|p| p.value.starts_with(&prefix)).map(|p| p.span)
        })
}

/// Reports registers whose fields or array shape differ between SoCs.
pub fn check(maps: &[Map], diags: &mut Vec<Diagnostic>) {
    let mut first: HashMap<RegKey, FirstSeen> = HashMap::new();
    let mut blocks: HashMap<(String, String), (String, bool, crate::source::Span)> = HashMap::new();
    for m in maps.iter().filter(|m| !m.is_abstract) {
        for space in &m.spaces {
            for block in &space.blocks {
                let bkey = (space.name.value.clone(), block.name.value.clone());
                let arrayed = block.array.is_some();
                match blocks.get(&bkey) {
                    Some((soc, a, span)) if *a != arrayed => diags.push(
                        Diagnostic::error(
                            block.name.span,
                            format!(
                                "block `{}` is {} on `{}` but {} on `{soc}`",
                                block.name.value,
                                if arrayed { "an array" } else { "not an array" },
                                m.name.value,
                                if *a { "an array" } else { "not an array" }
                            ),
                        )
                        .with(*span, format!("as defined for `{soc}`")),
                    ),
                    Some(_) => {}
                    None => {
                        blocks.insert(bkey, (m.name.value.clone(), arrayed, block.name.span));
                    }
                }
                for reg in &block.registers {
                    let key = (space.name.value.clone(), block.name.value.clone(), reg.name.value.clone());
                    let layout = layout_key(reg);
                    let shape = RegShape::of(reg);
                    let here = in_place_change(m, &space.name.value, &block.name.value, reg);
                    match first.get(&key) {
                        Some((soc, l, _, span0, there)) if *l != layout && (here.is_some() || there.is_some()) => {
                            let (at, changer, sharer, other) = match here {
                                Some(at) => (at, m.name.value.as_str(), soc.as_str(), *span0),
                                None => (there.unwrap_or(*span0), soc.as_str(), m.name.value.as_str(), reg.name.span),
                            };
                            diags.push(
                                Diagnostic::error(
                                    at,
                                    format!(
                                        "`{changer}` changes the layout of register `{}.{}` in place, but `{sharer}` shares it",
                                        block.name.value, reg.name.value
                                    ),
                                )
                                .label("changes the inherited layout")
                                .with(other, format!("the register `{sharer}` uses"))
                                .note(format!(
                                    "help: the register API has one value type per register name; give the changed layout a new register name (e.g. `{}_b`), and `remove` the inherited register if it no longer applies",
                                    reg.name.value
                                )),
                            );
                        }
                        Some((soc, l, s, span, _)) => {
                            if *l != layout {
                                diags.push(
                                    Diagnostic::error(reg.name.span, format!("register `{}.{}` has different fields on `{}` and `{soc}`", block.name.value, reg.name.value, m.name.value))
                                        .with(*span, format!("as defined for `{soc}`"))
                                        .note("the register API shares one value type per register name; give the differing layout its own register name"),
                                );
                            } else if *s != shape {
                                diags.push(
                                    Diagnostic::error(
                                        reg.name.span,
                                        format!(
                                            "register `{}.{}` is {} on `{}` but {} on `{soc}`",
                                            block.name.value,
                                            reg.name.value,
                                            shape.describe(),
                                            m.name.value,
                                            s.describe()
                                        ),
                                    )
                                    .with(*span, format!("as defined for `{soc}`")),
                                );
                            }
                        }
                        None => {
                            first.insert(key, (m.name.value.clone(), layout, shape, reg.name.span, here));
                        }
                    }
                }
            }
        }
    }
}
