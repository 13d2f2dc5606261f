//! Rule: a concrete SoC's path setup covers every phy mode each MAC accepts (an entry with
//! `set: []` says that mode needs nothing), so no accepted interface is left without its path.

use crate::caps::PHY_MODES;
use crate::model::Map;
use crate::source::Diagnostic;

/// Reports a MAC and accepted phy mode without a path-setup entry.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    if map.is_abstract {
        return;
    }
    let (Some(ps), Some(macs)) = (map.caps.path_setup.as_ref(), map.caps.macs.as_ref()) else { return };
    for (id, mac) in macs.value.value.iter().enumerate() {
        if mac.phy_modes.iter().any(|p| !PHY_MODES.contains(&p.value.as_str())) {
            continue; // the MAC's list is wrong already (reported by the capability check)
        }
        let missing: Vec<&str> = mac
            .phy_modes
            .iter()
            .map(|p| p.value.as_str())
            .filter(|p| {
                !ps.value.value.iter().any(|e| {
                    e.value.macs.iter().any(|m| m.value == id as u64) && e.value.modes.iter().any(|x| x.value == *p)
                })
            })
            .collect();
        if !missing.is_empty() {
            diags.push(
                Diagnostic::error(
                    ps.span(),
                    format!(
                        "path setup of `{}` says nothing for MAC {id} in {}",
                        map.name.value,
                        missing.iter().map(|m| format!("`{m}`")).collect::<Vec<_>>().join(", ")
                    ),
                )
                .label("add an entry (`set: []` when the mode needs no register)")
                .note("a MAC whose path is not set up carries no frames"),
            );
        }
    }
}
