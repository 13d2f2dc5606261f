//! Rule: a concrete SoC has compatible strings and every capability.

use crate::model::Map;
use crate::source::{Diagnostic, Span};

/// Reports a SoC without compatible strings or with a capability missing.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    if map.is_abstract {
        return;
    }
    let at = map.soc_span.unwrap_or(map.name.span);
    if map.compatible.is_empty() {
        diags.push(
            Diagnostic::error(at, format!("SoC `{}` has no compatible string", map.name.value))
                .label("add `compatible: [\"vendor,chip-eth\"]` under `soc:`")
                .note("compatible strings are not inherited through `extends`; mark a base `abstract: true`"),
        );
    }
    let c = &map.caps;
    let missing: Vec<&str> = [
        ("rx_checksum", c.rx_checksum.is_none()),
        ("tx_queues", c.tx_queues.is_none()),
        ("rx_rings", c.rx_rings.is_none()),
        ("hw_lro", c.hw_lro.is_none()),
        ("irq", c.irq.is_none()),
        ("tx_descriptor", c.tx_descriptor.is_none()),
        ("rx_descriptor", c.rx_descriptor.is_none()),
        ("rings", c.rings.is_none()),
        ("cold_reset", c.cold_reset.is_none()),
        ("shaper", c.shaper.is_none()),
        ("macs", c.macs.is_none()),
        ("clocks", c.clocks.is_none()),
        ("path_setup", c.path_setup.is_none()),
    ]
    .into_iter()
    .filter_map(|(n, m)| m.then_some(n))
    .collect();
    if !missing.is_empty() {
        let span: Span = at;
        diags.push(
            Diagnostic::error(span, format!("SoC `{}` lacks capabilities: {}", map.name.value, missing.join(", ")))
                .label("in this `soc:` section or a base it extends")
                .note("see regs/README.md, section Capabilities"),
        );
    }
}
