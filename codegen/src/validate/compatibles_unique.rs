//! Rule: a compatible string selects at most one SoC.

use crate::model::Map;
use crate::source::Diagnostic;

/// Reports compatible strings claimed by two maps (or twice by one).
pub fn check(maps: &[Map], diags: &mut Vec<Diagnostic>) {
    let mut seen: Vec<(&str, &str, crate::source::Span)> = Vec::new();
    for m in maps.iter().filter(|m| !m.is_abstract) {
        for c in &m.compatible {
            if let Some((_, owner, span)) = seen.iter().find(|(s, _, _)| *s == c.value) {
                diags.push(
                    Diagnostic::error(
                        c.span,
                        format!("compatible \"{}\" is claimed by both `{owner}` and `{}`", c.value, m.name.value),
                    )
                    .with(*span, "first claimed here")
                    .note("a device tree must select exactly one SoC"),
                );
            } else {
                seen.push((&c.value, &m.name.value, c.span));
            }
        }
    }
}
