//! Rule: a register name has one field layout and one shape across all SoCs.
//!
//! The generator emits one value type per `block.register` shared by every SoC, and one map
//! struct per block; so a register that differs between SoCs must get its own name.

use crate::codegen_model::{RegShape, layout_key};
use crate::model::Map;
use crate::source::Diagnostic;
use std::collections::HashMap;

/// `(space, block, register)`.
type RegKey = (String, String, String);
/// The first SoC seen with a register: `(soc, layout key, shape, where)`.
type FirstSeen = (String, String, RegShape, crate::source::Span);

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
                    match first.get(&key) {
                        Some((soc, l, s, span)) => {
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
                            first.insert(key, (m.name.value.clone(), layout, shape, reg.name.span));
                        }
                    }
                }
            }
        }
    }
}
