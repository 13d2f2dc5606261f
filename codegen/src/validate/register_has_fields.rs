//! Warning: a register with neither fields nor a description.
//!
//! Many registers are legitimately field-less: ring addresses, counters, CPU/DMA indices and
//! thresholds hold one number in the whole word, and the generated value type gives them raw
//! `bits()` access. What makes such a register usable is the description saying what the number
//! is. A register with no fields *and* no description (possibly inherited from the base) tells the
//! reader nothing beyond its offset, which usually means it was added as a placeholder and never
//! finished, so that is the case this rule warns about.

use crate::model::Map;
use crate::source::Diagnostic;

/// Warns about registers that have no fields and no description.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for space in &map.spaces {
        for block in &space.blocks {
            for reg in &block.registers {
                if reg.fields.is_empty() && reg.description.is_empty() {
                    diags.push(
                        Diagnostic::warning(
                            reg.name.span,
                            format!(
                                "register `{}.{}` has no fields and no description",
                                block.name.value, reg.name.value
                            ),
                        )
                        .label("nothing says what this register holds")
                        .note(
                            "help: list its `fields:`, or, if it holds one value in the whole word, \
                             say what that value is in `description:`",
                        ),
                    );
                }
            }
        }
    }
}
