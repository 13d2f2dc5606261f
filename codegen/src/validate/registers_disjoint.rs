//! Rule: no two registers of a space share an address, array elements included.

use crate::model::Map;
use crate::source::{Diagnostic, Span};

/// Reports every pair of registers (or array elements) at the same address.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for space in &map.spaces {
        // (address, printable name, span)
        let mut slots: Vec<(u64, String, Span)> = Vec::new();
        for block in &space.blocks {
            let bcount = block.array.as_ref().map_or(1, |a| a.count.value.min(1024));
            for bi in 0..bcount {
                for reg in &block.registers {
                    let rcount = reg.array.as_ref().map_or(1, |a| a.count.value.min(1024));
                    for ri in 0..rcount {
                        let addr = block.element_offset(bi, reg, ri);
                        slots.push((addr, block.element_name(bi, reg, ri), reg.name.span));
                    }
                }
            }
        }
        slots.sort_by_key(|s| s.0);
        let mut reported = std::collections::HashSet::new();
        for w in slots.windows(2) {
            let (a, b) = (&w[0], &w[1]);
            if b.0 < a.0.saturating_add(4) && reported.insert((a.2, b.2)) {
                diags.push(
                    Diagnostic::error(
                        b.2,
                        format!(
                            "registers `{}` and `{}` overlap at {:#x} in space `{}`",
                            a.1, b.1, b.0, space.name.value
                        ),
                    )
                    .label(format!("`{}` is here", b.1))
                    .with(a.2, format!("`{}` is here", a.1)),
                );
            }
        }
    }
}
