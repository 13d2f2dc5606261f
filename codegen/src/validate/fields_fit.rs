//! Rule: every field lies inside its 32-bit register and has a width of at least one bit.

use crate::model::Map;
use crate::source::Diagnostic;

/// Reports fields that extend past bit 31.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for space in &map.spaces {
        for block in &space.blocks {
            for reg in &block.registers {
                for f in &reg.fields {
                    let b = f.bits.value;
                    if b.width == 0 || b.end() > 32 {
                        diags.push(
                            Diagnostic::error(
                                f.bits.span,
                                format!(
                                    "field `{}.{}.{}` (bits {}..={}) is outside the 32-bit register",
                                    block.name.value,
                                    reg.name.value,
                                    f.name.value,
                                    b.lsb,
                                    b.msb()
                                ),
                            )
                            .label("registers have bits 0..=31"),
                        );
                    }
                }
            }
        }
    }
}
