//! Rule: no two names of an enumeration share a value.
//!
//! The generated enum decodes field bits with one `match` arm per name, so a repeated value
//! gives an unreachable arm and a value with no arm: for a one-bit field the `match` is not
//! exhaustive and the register crate does not compile; for a wider field whose names look
//! complete by count, the missing value silently decodes as the first name.

use crate::model::Map;
use crate::source::Diagnostic;

/// Reports every enum name whose value an earlier name of the same field already has.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for space in &map.spaces {
        for block in &space.blocks {
            for reg in &block.registers {
                for f in &reg.fields {
                    for (i, (name, v)) in f.values.iter().enumerate() {
                        if let Some((other, _)) = f.values[..i].iter().find(|(_, w)| w.value == v.value) {
                            diags.push(
                                Diagnostic::error(
                                    v.span,
                                    format!(
                                        "`{}` and `{}` of field `{}.{}.{}` both have the value {}",
                                        other.value,
                                        name.value,
                                        block.name.value,
                                        reg.name.value,
                                        f.name.value,
                                        v.value
                                    ),
                                )
                                .label(format!("`{}` is {} too", name.value, v.value))
                                .with(other.span, format!("`{}` is first", other.value))
                                .note("help: give each value one name"),
                            );
                        }
                    }
                }
            }
        }
    }
}
