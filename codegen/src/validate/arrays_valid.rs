//! Rule: arrays have at least one element and a stride no smaller than one element.

use crate::model::{Array, Map};
use crate::source::Diagnostic;

/// Largest repeat count accepted (rings and queues are at most a few dozen).
const MAX_COUNT: u64 = 1024;

fn check_array(what: &str, a: &Array, element: u64, diags: &mut Vec<Diagnostic>) {
    if a.count.value == 0 || a.count.value > MAX_COUNT {
        diags.push(Diagnostic::error(
            a.count.span,
            format!("array of {what} has count {}; it must be 1..={MAX_COUNT}", a.count.value),
        ));
    }
    if a.count.value > 1 && a.stride.value < element {
        diags.push(
            Diagnostic::error(
                a.stride.span,
                format!(
                    "array stride {:#x} of {what} is smaller than one element ({element:#x} bytes)",
                    a.stride.value
                ),
            )
            .label("elements would overlap"),
        );
    }
}

/// Reports empty arrays and strides smaller than their element.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for space in &map.spaces {
        for block in &space.blocks {
            if let Some(a) = &block.array {
                let extent = block
                    .registers
                    .iter()
                    .map(|r| {
                        let span = r
                            .array
                            .as_ref()
                            .map_or(0, |ra| ra.stride.value.saturating_mul(ra.count.value.saturating_sub(1)));
                        r.offset.value.saturating_add(4).saturating_add(span)
                    })
                    .max()
                    .unwrap_or(4);
                check_array(&format!("block `{}`", block.name.value), a, extent, diags);
                for r in &block.registers {
                    if let Some(ra) = &r.array {
                        diags.push(
                            Diagnostic::error(
                                ra.span,
                                format!(
                                    "register `{}.{}` is an array inside the arrayed block `{}`",
                                    block.name.value, r.name.value, block.name.value
                                ),
                            )
                            .with(a.span, "the block is repeated here")
                            .note("arrays of arrays are not supported; give the block more registers or split it"),
                        );
                    }
                }
            }
            for r in &block.registers {
                if let Some(ra) = &r.array {
                    check_array(&format!("register `{}.{}`", block.name.value, r.name.value), ra, 4, diags);
                }
            }
        }
    }
}
