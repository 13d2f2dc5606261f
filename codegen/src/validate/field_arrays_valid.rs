//! Rule: a field array (`array: {count, stride}` on a field, stride in bits) has 2..=32
//! elements, a stride no smaller than one element, and every element inside the 32-bit
//! register. (An element that overlaps another field is `fields_disjoint`'s: a field array's
//! mask is every element's.)

use crate::model::{MAX_FIELD_ELEMENTS, Map};
use crate::source::Diagnostic;

/// Reports field arrays that are empty, overlap themselves or run past bit 31.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for space in &map.spaces {
        for block in &space.blocks {
            for reg in &block.registers {
                for f in &reg.fields {
                    let Some(a) = &f.array else { continue };
                    let path = format!("{}.{}.{}", block.name.value, reg.name.value, f.name.value);
                    let (count, stride, width) = (a.count.value, a.stride.value, f.bits.value.width as u64);
                    if !(2..=MAX_FIELD_ELEMENTS).contains(&count) {
                        diags.push(
                            Diagnostic::error(
                                a.count.span,
                                format!("field array `{path}` has count {count}; it must be 2..={MAX_FIELD_ELEMENTS}"),
                            )
                            .label("a field of one element needs no `array`"),
                        );
                        continue;
                    }
                    if stride < width {
                        diags.push(
                            Diagnostic::error(
                                a.stride.span,
                                format!(
                                    "field array `{path}` has stride {stride}, less than its width of {width} bits"
                                ),
                            )
                            .label("elements would overlap"),
                        );
                        continue;
                    }
                    // Checked: stride and count come straight from the YAML and may be near u64::MAX.
                    let last = stride
                        .checked_mul(count.saturating_sub(1))
                        .and_then(|span| span.checked_add(u64::from(f.bits.value.lsb)))
                        .and_then(|end| end.checked_add(width.saturating_sub(1)));
                    let past = last.is_none_or(|last| last > 31);
                    if past {
                        let ends = last.map_or_else(|| "beyond bit 2^64".to_string(), |l| format!("at bit {l}"));
                        diags.push(
                            Diagnostic::error(
                                a.span,
                                format!(
                                    "field array `{path}` runs past the register: element {} ends {ends}",
                                    count.saturating_sub(1)
                                ),
                            )
                            .label(format!(
                                "{count} elements of {width} bit(s), {stride} bits apart, from bit {}",
                                f.bits.value.lsb
                            ))
                            .note("registers have bits 0..=31"),
                        );
                    }
                }
            }
        }
    }
}
