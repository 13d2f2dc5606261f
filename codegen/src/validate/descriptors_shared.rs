//! Rule: a descriptor layout name has one layout (size and fields) across all SoCs.
//!
//! The generator emits one type per layout name (`rx_v2` becomes `RxV2`) shared by every SoC
//! that names it; a map that changes an inherited layout in place would silently change it for
//! every other SoC too, so the changed layout must get a new name.

use crate::model::{Descriptor, Map};
use crate::source::{Diagnostic, Span};
use std::collections::HashMap;

/// Size and fields of a layout, independent of field order.
fn key(d: &Descriptor) -> String {
    let mut f: Vec<_> =
        d.fields.iter().map(|f| (f.word.value, f.bits.value.lsb, f.bits.value.width, &f.name.value)).collect();
    f.sort();
    format!("{};{f:?}", d.size.value)
}

/// Where map `m` changed the layout `d`, which it inherited, in place: the size or the first
/// field it gives (override or addition). `None` when `m` wrote the layout itself or did not
/// change it.
pub(crate) fn in_place_change(m: &Map, d: &Descriptor) -> Option<Span> {
    if d.name.span.file == m.file {
        return None;
    }
    let own = |s: Span| s.file == m.file;
    if own(d.size.span) {
        return Some(d.size.span);
    }
    d.fields
        .iter()
        .find(|f| own(f.word.span) || own(f.bits.span))
        .map(|f| if own(f.bits.span) { f.bits.span } else { f.word.span })
        .or_else(|| {
            // A field this map removed from the layout.
            let prefix = format!("descriptors.{}.", d.name.value);
            m.removed.iter().find(|p| p.value.starts_with(&prefix)).map(|p| p.span)
        })
}

/// One SoC's layout: (SoC, key, where its name is, where it changed an inherited one).
type Seen = (String, String, Span, Option<Span>);

/// Reports descriptor layouts whose size or fields differ between SoCs.
pub fn check(maps: &[Map], diags: &mut Vec<Diagnostic>) {
    let mut first: HashMap<String, Seen> = HashMap::new();
    for m in maps.iter().filter(|m| !m.is_abstract) {
        for d in &m.descriptors {
            let k = key(d);
            let here = in_place_change(m, d);
            let Some((soc, k0, span0, there)) = first.get(&d.name.value) else {
                first.insert(d.name.value.clone(), (m.name.value.clone(), k, d.name.span, here));
                continue;
            };
            if *k0 == k {
                continue;
            }
            let note = format!(
                "help: the register crate has one type per layout name; give the changed layout a new name (e.g. `{}_b`) and point `tx_descriptor`/`rx_descriptor` at it",
                d.name.value
            );
            let diag = match (here, there) {
                (Some(at), _) => Diagnostic::error(
                    at,
                    format!(
                        "`{}` changes the descriptor layout `{}` in place, but `{soc}` shares it",
                        m.name.value, d.name.value
                    ),
                )
                .label("changes the inherited layout")
                .with(*span0, format!("the layout `{soc}` uses")),
                (None, Some(at)) => Diagnostic::error(
                    *at,
                    format!(
                        "`{soc}` changes the descriptor layout `{}` in place, but `{}` shares it",
                        d.name.value, m.name.value
                    ),
                )
                .label("changes the inherited layout")
                .with(d.name.span, format!("the layout `{}` uses", m.name.value)),
                (None, None) => Diagnostic::error(
                    d.name.span,
                    format!("descriptor layout `{}` differs between `{}` and `{soc}`", d.name.value, m.name.value),
                )
                .with(*span0, format!("as defined for `{soc}`")),
            };
            diags.push(diag.note(note));
        }
    }
}
