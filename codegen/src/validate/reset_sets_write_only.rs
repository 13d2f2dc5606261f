//! Warning: a reset value that sets bits of a write-only field.
//!
//! A write-only field reads back nothing meaningful, so a reset value for it can never be
//! observed; it is usually a reset value meant for a neighbouring field, or a field whose access
//! is wrong. It is also a trap: writing `spec.reset()` back to restore the defaults would fire
//! the write-only action (a ring-index reset, a trigger).

use crate::ast::Access;
use crate::model::Map;
use crate::source::Diagnostic;

/// Warns about reset values with bits in write-only fields.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for space in &map.spaces {
        for block in &space.blocks {
            for reg in &block.registers {
                let reset = reg.reset.value & 0xffff_ffff;
                if reset == 0 {
                    continue;
                }
                for f in &reg.fields {
                    let hit = reset & f.mask();
                    if hit == 0 || f.access(reg) != Access::Wo {
                        continue;
                    }
                    let mut d = Diagnostic::warning(
                        reg.reset.span,
                        format!(
                            "reset value {:#010x} of `{}.{}` sets bits {:#010x} of the write-only field `{}`",
                            reg.reset.value, block.name.value, reg.name.value, hit, f.name.value
                        ),
                    )
                    .label("this reset value");
                    d = match &f.access_written {
                        Some(a) => d.with(a.span, format!("`{}` is write-only here", f.name.value)),
                        None => d
                            .with(f.bits.span, format!("`{}` is here", f.name.value))
                            .with(reg.access.span, "write-only from the register's access"),
                    };
                    diags.push(
                        d.note("a write-only field reads back nothing, so its value after reset cannot be observed")
                            .note("help: clear these bits in `reset`, or correct the field's `access`"),
                    );
                }
            }
        }
    }
}
