//! Rule: no name becomes a Rust keyword that cannot be escaped.
//!
//! Names used as fields, methods and modules are turned into snake_case, and one that is a
//! keyword gets `_` appended (`type` -> `type_`). Enum values, descriptors and spaces are
//! turned into CamelCase type and variant names instead, and there `self` becomes `Self`: a
//! keyword that cannot be a name even as a raw identifier (`r#Self` is refused, like `r#self`,
//! `r#super`, `r#crate` and `_`). The generated file would not parse.

use crate::codegen_model::camel;
use crate::model::Map;
use crate::source::{Diagnostic, Sp};

/// Keywords that are not accepted as raw identifiers either.
const UNESCAPABLE: &[&str] = &["self", "Self", "super", "crate", "_"];

fn check_name(kind: &str, n: &Sp<String>, diags: &mut Vec<Diagnostic>) {
    let id = camel(&n.value);
    if UNESCAPABLE.contains(&id.as_str()) {
        diags.push(
            Diagnostic::error(n.span, format!("{kind} `{}` becomes the Rust keyword `{id}`", n.value))
                .label(format!("`{id}` cannot be a name in Rust, not even as `r#{id}`"))
                .note("help: choose another name"),
        );
    }
}

/// Reports enum values, descriptors and spaces whose CamelCase name is a keyword.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for s in &map.spaces {
        check_name("space", &s.name, diags);
        for b in &s.blocks {
            for r in &b.registers {
                for f in &r.fields {
                    for (v, _) in &f.values {
                        check_name("enum value", v, diags);
                    }
                }
            }
        }
    }
    for d in &map.descriptors {
        check_name("descriptor", &d.name, diags);
    }
}
