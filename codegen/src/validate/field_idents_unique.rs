//! Rule: the fields of one register, and of one descriptor, become distinct Rust method names.
//!
//! A field `x` becomes the methods `x`, `set_x`, `with_x` (and `clear_x`). A name that is a Rust
//! keyword gets `_` appended (`type` -> `type_`), so `type` and `type_` in one register would
//! define every accessor twice and the register crate would not compile.

use crate::codegen_model::snake;
use crate::model::Map;
use crate::source::{Diagnostic, Sp};

/// Reports the second of two sibling field names that give the same identifier.
fn check_siblings<'a>(what: &str, names: impl Iterator<Item = &'a Sp<String>>, diags: &mut Vec<Diagnostic>) {
    let mut seen: Vec<(String, &Sp<String>)> = Vec::new();
    for n in names {
        let id = snake(&n.value);
        match seen.iter().find(|(s, _)| *s == id) {
            Some((_, first)) => diags.push(
                Diagnostic::error(
                    n.span,
                    format!("fields `{}` and `{}` of {what} both become the Rust method `{id}`", first.value, n.value),
                )
                .label(format!("`{id}` in Rust"))
                .with(first.span, format!("`{id}` in Rust too"))
                .note("a name that is a Rust keyword gets `_` appended")
                .note("help: rename one of the fields"),
            ),
            None => seen.push((id, n)),
        }
    }
}

/// Reports register and descriptor fields whose generated methods would collide.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    for s in &map.spaces {
        for b in &s.blocks {
            for r in &b.registers {
                let what = format!("register `{}.{}`", b.name.value, r.name.value);
                check_siblings(&what, r.fields.iter().map(|f| &f.name), diags);
            }
        }
    }
    for d in &map.descriptors {
        check_siblings(&format!("descriptor `{}`", d.name.value), d.fields.iter().map(|f| &f.name), diags);
    }
}
