//! Rule: no two fields of a descriptor share a bit, and layout names in a map are unique.

use crate::model::{Map, mask};
use crate::source::Diagnostic;

/// Reports overlapping descriptor fields.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for d in &map.descriptors {
        for (i, a) in d.fields.iter().enumerate() {
            for b in &d.fields[..i] {
                if a.word.value == b.word.value && mask(a.bits.value) & mask(b.bits.value) & 0xffff_ffff != 0 {
                    diags.push(
                        Diagnostic::error(
                            a.bits.span,
                            format!(
                                "fields `{}` and `{}` of descriptor `{}` overlap in word {}",
                                b.name.value, a.name.value, d.name.value, a.word.value
                            ),
                        )
                        .with(b.bits.span, format!("`{}` is here", b.name.value)),
                    );
                }
            }
        }
    }
}
