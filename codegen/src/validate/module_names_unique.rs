//! Rule: every SoC becomes its own Rust module, `fe_regs::<name>`.
//!
//! A map name may use `-`, which becomes `_` (`netsys-v1` -> `netsys_v1`), and a keyword gets
//! `_` appended, so `mt-7621` and `mt_7621` would define one module twice. A SoC named like a
//! module the register crate already has (`values`, `bus`, ...) would clash with it.

use crate::codegen_model::snake;
use crate::model::Map;
use crate::source::{Diagnostic, Sp};

/// Modules of the register crate (generated and hand-written) and the crates its paths name.
const RESERVED: &[&str] =
    &["values", "descriptors", "maps", "bus", "caps", "meta", "mmio", "generated", "core", "alloc", "std"];

/// Reports concrete maps whose module names collide with each other or with the crate's own.
pub fn check(maps: &[Map], diags: &mut Vec<Diagnostic>) {
    let mut seen: Vec<(String, &Sp<String>)> = Vec::new();
    for m in maps.iter().filter(|m| !m.is_abstract) {
        let module = snake(&m.name.value);
        if let Some((_, first)) = seen.iter().find(|(s, _)| *s == module) {
            diags.push(
                Diagnostic::error(
                    m.name.span,
                    format!("SoCs `{}` and `{}` both become the Rust module `{module}`", first.value, m.name.value),
                )
                .label(format!("`fe_regs::{module}` in Rust"))
                .with(first.span, format!("`fe_regs::{module}` in Rust too"))
                .note("`-` becomes `_`, and a name that is a Rust keyword gets `_` appended")
                .note("help: rename one of the maps"),
            );
        } else if RESERVED.contains(&module.as_str()) {
            diags.push(
                Diagnostic::error(
                    m.name.span,
                    format!(
                        "SoC `{}` becomes the Rust module `{module}`, a name the register crate uses",
                        m.name.value
                    ),
                )
                .label(format!("`fe_regs::{module}` is taken"))
                .note(format!("reserved: {}", RESERVED.join(", "))),
            );
        } else {
            seen.push((module, &m.name));
        }
    }
}
