//! Rule: every register, array elements included, lies inside a 32-bit address space.

use crate::model::Map;
use crate::source::Diagnostic;

/// Size of an address space (offsets are `u32` in the generated crate).
const SPACE_SIZE: u64 = 1 << 32;

/// Reports registers whose last element ends past 4 GiB.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for space in &map.spaces {
        for block in &space.blocks {
            let bspan =
                block.array.as_ref().map_or(0, |a| a.stride.value.saturating_mul(a.count.value.saturating_sub(1)));
            for reg in &block.registers {
                let rspan =
                    reg.array.as_ref().map_or(0, |a| a.stride.value.saturating_mul(a.count.value.saturating_sub(1)));
                let end = block
                    .base
                    .value
                    .saturating_add(reg.offset.value)
                    .saturating_add(bspan)
                    .saturating_add(rspan)
                    .saturating_add(4);
                if end > SPACE_SIZE {
                    diags.push(
                        Diagnostic::error(
                            reg.offset.span,
                            format!(
                                "register `{}.{}` ends at {end:#x}, outside the 32-bit space `{}`",
                                block.name.value, reg.name.value, space.name.value
                            ),
                        )
                        .with(
                            block.base.span,
                            format!("block `{}` starts at {:#x}", block.name.value, block.base.value),
                        ),
                    );
                }
            }
        }
    }
}
