//! Rule: no two fields of a register share a bit.

use crate::model::Map;
use crate::source::Diagnostic;

/// Reports every pair of overlapping fields.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for space in &map.spaces {
        for block in &space.blocks {
            for reg in &block.registers {
                for (i, a) in reg.fields.iter().enumerate() {
                    for b in &reg.fields[..i] {
                        if a.mask() & b.mask() & 0xffff_ffff != 0 {
                            diags.push(
                                Diagnostic::error(
                                    a.bits.span,
                                    format!(
                                        "fields `{}` and `{}` of `{}.{}` overlap (bits {:#010x})",
                                        b.name.value,
                                        a.name.value,
                                        block.name.value,
                                        reg.name.value,
                                        a.mask() & b.mask()
                                    ),
                                )
                                .label(format!("`{}` is here", a.name.value))
                                .with(b.bits.span, format!("`{}` is here", b.name.value)),
                            );
                        }
                    }
                }
            }
        }
    }
}
