//! Rule: the device tree can locate every space of a concrete SoC: `fe` is the Ethernet node's
//! own `reg` (and every SoC has it), every other space names a phandle property
//! (`mediatek,ethsys`), and no two spaces name the same phandle.

use crate::caps::sub;
use crate::model::Map;
use crate::source::Diagnostic;

/// The property that stands for the Ethernet node's own `reg`.
pub const OWN_REG: &str = "reg";

/// Reports spaces without `dt:`, a misplaced `reg`, and two spaces on one phandle.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    if map.is_abstract {
        return;
    }
    if !map.spaces.iter().any(|s| s.name.value == "fe") {
        diags.push(
            Diagnostic::error(
                map.soc_span.unwrap_or(map.name.span),
                format!("SoC `{}` has no space `fe`", map.name.value),
            )
            .label("every SoC has the frame engine's space `fe` (the Ethernet node's `reg`)")
            .note("add `spaces: {fe: {dt: {property: reg}, blocks: ...}}` here or in a base"),
        );
    }
    let mut seen: Vec<(String, u64, &str)> = Vec::new();
    for s in &map.spaces {
        let name = s.name.value.as_str();
        let Some(dt) = &s.dt else {
            diags.push(
                Diagnostic::error(
                    s.name.span,
                    format!("space `{name}` of `{}` does not say where the device tree puts it", map.name.value),
                )
                .label("add `dt: {property: ...}` to this space (here or in a base)")
                .note("`fe` is `dt: {property: reg}`; a syscon is `dt: {property: \"vendor,name\"}`"),
            );
            continue;
        };
        let prop = &dt.value.value.property;
        let p = prop.value.as_str();
        let index = dt.value.value.index.as_ref().map_or(0, |i| i.value);
        let own = p == OWN_REG;
        if own != (name == "fe") {
            let d = if own {
                Diagnostic::error(
                    sub(dt, prop).span(),
                    format!("space `{name}` cannot be the Ethernet node's own `reg`"),
                )
                .label("only space `fe` is the node's `reg`; name the phandle property of the syscon")
            } else {
                Diagnostic::error(
                    sub(dt, prop).span(),
                    format!("space `fe` must be the Ethernet node's own `reg`, not `{p}`"),
                )
                .label("write `dt: {property: reg}`")
            };
            diags.push(d);
            continue;
        }
        if !own && (!p.contains(',') || p.chars().any(|c| c.is_whitespace())) {
            diags.push(
                Diagnostic::error(sub(dt, prop).span(), format!("`{p}` is not a vendor phandle property"))
                    .label("expected `vendor,name`, as the binding spells it (`mediatek,ethsys`)"),
            );
            continue;
        }
        if own && index != 0 {
            diags.push(Diagnostic::error(dt.span(), "space `fe` takes no `index`: the node has one `reg`"));
        }
        if let Some((_, _, other)) = seen.iter().find(|(q, i, _)| q == p && *i == index) {
            diags.push(
                Diagnostic::error(
                    sub(dt, prop).span(),
                    format!("spaces `{other}` and `{name}` both sit at phandle {index} of `{p}`"),
                )
                .label("give each space its own property or `index`"),
            );
        }
        seen.push((p.to_string(), index, name));
    }
}
