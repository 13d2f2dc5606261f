//! Rule: a register that has fields has a reset value whose set bits all lie inside its fields.
//!
//! A reset bit outside every field describes hardware state the map has no name for, and the
//! generated value type could not reproduce it through its setters. Field-less registers hold
//! one value in the whole word and are exempt; a reset value wider than 32 bits is reported by
//! `values_fit`, so only bits 0..=31 are checked here.

use crate::model::Map;
use crate::source::Diagnostic;

/// Reports reset values with bits outside every field of their register.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for space in &map.spaces {
        for block in &space.blocks {
            for reg in &block.registers {
                if reg.fields.is_empty() {
                    continue;
                }
                let covered = reg.fields.iter().fold(0u64, |m, f| m | f.mask());
                let stray = reg.reset.value & 0xffff_ffff & !covered;
                if stray == 0 {
                    continue;
                }
                diags.push(
                    Diagnostic::error(
                        reg.reset.span,
                        format!(
                            "reset value {:#010x} of `{}.{}` sets bits {:#010x} that are in no field",
                            reg.reset.value, block.name.value, reg.name.value, stray
                        ),
                    )
                    .label(format!("fields cover only {:#010x}", covered & 0xffff_ffff))
                    .note("help: add a field for these bits, or clear them in `reset`"),
                );
            }
        }
    }
}
