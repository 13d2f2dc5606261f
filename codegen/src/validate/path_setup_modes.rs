//! Rule: every path-setup entry is for MACs the SoC has (`macs`), in phy modes those MACs accept.

use crate::caps::{PHY_MODES, sub};
use crate::model::Map;
use crate::source::Diagnostic;

/// Reports path-setup entries for MACs out of range, for no MAC or mode, or for a phy mode a MAC
/// does not accept.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    let (Some(ps), Some(macs)) = (map.caps.path_setup.as_ref(), map.caps.macs.as_ref()) else { return };
    let n = macs.value.value.len() as u64;
    for e in &ps.value.value {
        let e = sub(ps, e);
        let entry = &e.value.value;
        if entry.macs.is_empty() || entry.modes.is_empty() {
            diags.push(Diagnostic::error(
                e.span(),
                "path-setup entry needs at least one MAC in `macs` and one phy mode in `modes`",
            ));
            continue;
        }
        for m in &entry.macs {
            let Some(mac) = macs.value.value.get(m.value as usize).filter(|_| m.value < n) else {
                diags.push(
                    Diagnostic::error(
                        sub(&e, m).span(),
                        format!("MAC {} is out of range: `macs` lists {n} MAC(s)", m.value),
                    )
                    .label("a MAC id is its index in `macs`"),
                );
                continue;
            };
            if mac.phy_modes.iter().any(|p| !PHY_MODES.contains(&p.value.as_str())) {
                continue; // the MAC's list is wrong already (reported by the capability check)
            }
            for mode in &entry.modes {
                if !mac.phy_modes.iter().any(|p| p.value == mode.value) {
                    let accepted: Vec<&str> = mac.phy_modes.iter().map(|p| p.value.as_str()).collect();
                    diags.push(
                        Diagnostic::error(
                            sub(&e, mode).span(),
                            format!("MAC {} does not accept phy mode `{}`", m.value, mode.value),
                        )
                        .label("path setup for a mode the MAC refuses can never run")
                        .note(format!("MAC {} accepts: {}", m.value, accepted.join(", "))),
                    );
                }
            }
        }
    }
}
