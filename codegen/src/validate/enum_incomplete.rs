//! Warning: an enumeration that leaves values of its field unnamed.
//!
//! When the names cover every bit pattern the generated enum is exhaustive; otherwise it gets an
//! `Other(raw)` variant and every reader has to handle values the map does not explain. That is
//! legal (hardware often reserves encodings) but is worth a look, so the rule is strict: every
//! enumerated field must name all `2^width` values. Values that are reserved by the hardware can
//! be named as such (`reserved2: 2`).

use crate::model::Map;
use crate::source::Diagnostic;

/// At most this many unnamed values are listed in the note.
const LIST: usize = 8;

/// Warns about enumerated fields whose names do not cover every value of the field.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for space in &map.spaces {
        for block in &space.blocks {
            for reg in &block.registers {
                for f in &reg.fields {
                    if f.values.is_empty() {
                        continue;
                    }
                    let width = f.bits.value.width;
                    if width == 0 || width > 32 {
                        continue; // fields_fit reports it
                    }
                    let total = 1u64 << width;
                    if f.values.iter().any(|(_, v)| v.value >= total) {
                        continue; // values_fit reports the value that does not fit
                    }
                    if f.values
                        .iter()
                        .enumerate()
                        .any(|(i, (_, v))| f.values[..i].iter().any(|(_, w)| w.value == v.value))
                    {
                        continue; // enum_values_unique reports the repeated value
                    }
                    let mut named: Vec<u64> = f.values.iter().map(|(_, v)| v.value).collect();
                    named.sort_unstable();
                    named.dedup();
                    let count = named.len() as u64;
                    if count == total {
                        continue;
                    }
                    let missing: Vec<String> = (0..total)
                        .filter(|v| named.binary_search(v).is_err())
                        .take(LIST + 1)
                        .map(|v| v.to_string())
                        .collect();
                    let listed = if missing.len() > LIST {
                        format!("{}, ...", missing[..LIST].join(", "))
                    } else {
                        missing.join(", ")
                    };
                    diags.push(
                        Diagnostic::warning(
                            f.name.span,
                            format!(
                                "enumeration of `{}.{}.{}` names {} of the {} values of its {}-bit field",
                                block.name.value, reg.name.value, f.name.value, count, total, width
                            ),
                        )
                        .label(format!("{} value(s) have no name", total.saturating_sub(count)))
                        .with(f.values[0].0.span, "the enumeration starts here")
                        .note(format!("unnamed values: {listed}"))
                        .note("unnamed values decode as `Other(raw)` in the generated enum")
                        .note("help: name the remaining values (reserved encodings too), or drop `enum` for a plain number"),
                    );
                }
            }
        }
    }
}
