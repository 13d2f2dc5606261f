//! Rule: block bases, register offsets and strides are multiples of 4 (32-bit registers).

use crate::model::Map;
use crate::source::Diagnostic;

/// Reports every unaligned base, offset or register stride.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for space in &map.spaces {
        for block in &space.blocks {
            if block.base.value % 4 != 0 {
                diags.push(
                    Diagnostic::error(
                        block.base.span,
                        format!("block `{}` base {:#x} is not 4-byte aligned", block.name.value, block.base.value),
                    )
                    .label("registers are 32 bits wide"),
                );
            }
            for reg in &block.registers {
                if reg.offset.value % 4 != 0 {
                    diags.push(
                        Diagnostic::error(
                            reg.offset.span,
                            format!(
                                "register `{}.{}` offset {:#x} is not 4-byte aligned",
                                block.name.value, reg.name.value, reg.offset.value
                            ),
                        )
                        .label("registers are 32 bits wide"),
                    );
                }
                if let Some(a) = &reg.array
                    && a.stride.value % 4 != 0
                {
                    diags.push(Diagnostic::error(
                        a.stride.span,
                        format!(
                            "array stride {:#x} of `{}.{}` is not a multiple of 4",
                            a.stride.value, block.name.value, reg.name.value
                        ),
                    ));
                }
            }
        }
    }
}
