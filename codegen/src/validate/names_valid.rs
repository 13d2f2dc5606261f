//! Rule: every name becomes a Rust identifier, so it must be lower-case `[a-z][a-z0-9_]*`
//! (map names may also use `-`), and names must not shadow what the generator defines next to
//! them: methods of value and descriptor types, fields of `SocInfo`, a SoC module's `INFO`.

use crate::model::Map;
use crate::source::{Diagnostic, Sp};

fn ident_ok(s: &str, allow_dash: bool) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some('a'..='z'))
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || (allow_dash && c == '-'))
}

fn check_name(kind: &str, n: &Sp<String>, allow_dash: bool, diags: &mut Vec<Diagnostic>) {
    if !ident_ok(&n.value, allow_dash) {
        diags.push(
            Diagnostic::error(n.span, format!("{kind} name `{}` is not a valid name", n.value))
                .label(format!(
                    "use lower case letters, digits and `_`{}, starting with a letter",
                    if allow_dash { ", `-`" } else { "" }
                ))
                .note("names become Rust identifiers in the generated crate"),
        );
    }
}

/// Methods every value type has; a field of that name would collide.
const RESERVED_FIELDS: &[&str] = &["from_bits", "to_bits", "new", "words"];

/// Methods every descriptor type has besides `RESERVED_FIELDS`.
const RESERVED_DESCRIPTOR_FIELDS: &[&str] = &["to_le_bytes", "from_le_bytes"];

/// A SoC module has a constant per space (upper case) next to `INFO`. (`SocInfo` lists the
/// spaces in a table, so its field names do not constrain space names.)
const RESERVED_SPACES: &[&str] = &["info"];

/// Reports names that cannot become identifiers.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    check_name("map", &map.name, true, diags);
    for s in &map.spaces {
        check_name("space", &s.name, false, diags);
        if RESERVED_SPACES.contains(&s.name.value.as_str()) {
            diags.push(
                Diagnostic::error(s.name.span, format!("space name `{}` collides with a generated item", s.name.value))
                    .note(format!("reserved for spaces: {}", RESERVED_SPACES.join(", "))),
            );
        }
        for b in &s.blocks {
            check_name("block", &b.name, false, diags);
            for r in &b.registers {
                check_name("register", &r.name, false, diags);
                for f in &r.fields {
                    check_name("field", &f.name, false, diags);
                    let n = f.name.value.as_str();
                    if RESERVED_FIELDS.contains(&n) || ["set_", "with_", "clear_"].iter().any(|p| n.starts_with(p)) {
                        diags.push(
                            Diagnostic::error(f.name.span, format!("field name `{n}` collides with a generated method"))
                                .note("`from_bits`, `to_bits`, `new`, `words` and names starting with `set_`, `with_` or `clear_` are reserved"),
                        );
                    }
                    for (v, _) in &f.values {
                        check_name("enum value", v, false, diags);
                    }
                }
            }
        }
    }
    for d in &map.descriptors {
        check_name("descriptor", &d.name, false, diags);
        for f in &d.fields {
            check_name("descriptor field", &f.name, false, diags);
            let n = f.name.value.as_str();
            if RESERVED_FIELDS.contains(&n)
                || RESERVED_DESCRIPTOR_FIELDS.contains(&n)
                || ["set_", "with_"].iter().any(|p| n.starts_with(p))
            {
                diags.push(Diagnostic::error(
                    f.name.span,
                    format!("descriptor field name `{n}` collides with a generated method"),
                ));
            }
        }
    }
}
