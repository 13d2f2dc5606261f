//! Rule: descriptor sizes are whole words and every field lies inside its word and the descriptor.

use crate::model::Map;
use crate::source::Diagnostic;

/// Reports bad sizes and fields past the word or the descriptor.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for d in &map.descriptors {
        let size = d.size.value;
        if size == 0 || size % 4 != 0 || size > 256 {
            diags.push(Diagnostic::error(
                d.size.span,
                format!(
                    "descriptor `{}` size {size} must be a non-zero multiple of 4 bytes, at most 256",
                    d.name.value
                ),
            ));
        }
        for f in &d.fields {
            if f.word.value.saturating_mul(4).saturating_add(4) > size {
                diags.push(
                    Diagnostic::error(
                        f.word.span,
                        format!(
                            "field `{}.{}` is in word {}, past the end of the {size}-byte descriptor",
                            d.name.value, f.name.value, f.word.value
                        ),
                    )
                    .label(format!("words are 0..={}", (size / 4).saturating_sub(1))),
                );
            }
            let b = f.bits.value;
            if b.width == 0 || b.end() > 32 {
                diags.push(Diagnostic::error(
                    f.bits.span,
                    format!("field `{}.{}` is outside its 32-bit word", d.name.value, f.name.value),
                ));
            }
        }
    }
}
