//! Rule: interrupt names (`irq.names`) give one non-empty name per role the layout uses
//! (`shared`, or `tx` and `rx`), and distinct names.

use crate::caps::sub;
use crate::model::Map;
use crate::source::Diagnostic;

/// Reports names for roles the layout does not have, missing or empty names, and one name twice.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    let Some(irq) = map.caps.irq.as_ref() else { return };
    let Some(names) = irq.value.value.names.as_ref() else { return };
    let names = sub(irq, names);
    let n = &names.value.value;
    let i = &irq.value.value;
    let roles = [("shared", &i.shared, &n.shared), ("tx", &i.tx, &n.tx), ("rx", &i.rx, &n.rx)];
    let mut given: Vec<&str> = Vec::new();
    for (role, index, name) in roles {
        match (index, name) {
            (None, Some(nm)) => diags.push(
                Diagnostic::error(
                    sub(&names, nm).span(),
                    format!("`irq.names.{role}` names a line the layout does not have"),
                )
                .label(format!("there is no `irq.{role}` index")),
            ),
            (Some(_), None) => diags.push(
                Diagnostic::error(names.span(), format!("`irq.names` lacks `{role}`"))
                    .label("name every line the layout uses, or leave `names` out"),
            ),
            (Some(_), Some(nm)) if nm.value.trim().is_empty() => {
                diags.push(Diagnostic::error(sub(&names, nm).span(), format!("`irq.names.{role}` is empty")));
            }
            (Some(_), Some(nm)) => {
                if given.contains(&nm.value.as_str()) {
                    diags.push(Diagnostic::error(
                        sub(&names, nm).span(),
                        format!("interrupt name `{}` is given to two roles", nm.value),
                    ));
                }
                given.push(nm.value.as_str());
            }
            (None, None) => {}
        }
    }
}
