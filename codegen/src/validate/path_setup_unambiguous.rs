//! Rule: at most one path-setup entry covers each MAC and phy mode, so which fields a MAC's
//! interface sets is never a question of order.

use crate::caps::sub;
use crate::model::Map;
use crate::source::Diagnostic;

/// Reports a (MAC, phy mode) pair that two path-setup entries cover.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    let Some(ps) = map.caps.path_setup.as_ref() else { return };
    let mut seen: Vec<(u64, &str)> = Vec::new();
    for e in &ps.value.value {
        let e2 = sub(ps, e);
        for m in &e.value.macs {
            for mode in &e.value.modes {
                if seen.contains(&(m.value, mode.value.as_str())) {
                    diags.push(
                        Diagnostic::error(
                            sub(&e2, mode).span(),
                            format!("MAC {} in phy mode `{}` has a path-setup entry already", m.value, mode.value),
                        )
                        .label("one entry per MAC and phy mode"),
                    );
                } else {
                    seen.push((m.value, mode.value.as_str()));
                }
            }
        }
    }
}
