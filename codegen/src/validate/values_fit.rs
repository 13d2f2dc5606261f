//! Rule: enum values fit their field; reset values fit the register; enum names are unique.

use crate::model::Map;
use crate::source::Diagnostic;

/// Reports enum values wider than the field, duplicate enum names, and resets wider than 32 bits.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for space in &map.spaces {
        for block in &space.blocks {
            for reg in &block.registers {
                if reg.reset.value > u32::MAX as u64 {
                    diags.push(Diagnostic::error(
                        reg.reset.span,
                        format!(
                            "reset value {:#x} of `{}.{}` is wider than 32 bits",
                            reg.reset.value, block.name.value, reg.name.value
                        ),
                    ));
                }
                for f in &reg.fields {
                    let max = f.bits.value.max_value();
                    for (i, (name, v)) in f.values.iter().enumerate() {
                        if v.value > max {
                            diags.push(
                                Diagnostic::error(
                                    v.span,
                                    format!(
                                        "value {} of `{}` does not fit the {}-bit field `{}`",
                                        v.value, name.value, f.bits.value.width, f.name.value
                                    ),
                                )
                                .label(format!("largest value is {max}")),
                            );
                        }
                        if let Some((other, _)) = f.values[..i].iter().find(|(n, _)| n.value == name.value) {
                            diags.push(
                                Diagnostic::error(
                                    name.span,
                                    format!(
                                        "enum value name `{}` is used twice in field `{}`",
                                        name.value, f.name.value
                                    ),
                                )
                                .with(other.span, "first used here"),
                            );
                        }
                    }
                }
            }
        }
    }
}
