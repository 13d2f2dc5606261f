//! Rule: every path-setup write names a register of the map, an element it has, and writable
//! fields of that register.

use crate::ast::Access;
use crate::caps::sub;
use crate::model::Map;
use crate::resolve::suggest;
use crate::source::Diagnostic;

/// Reports path-setup writes to unknown registers, elements or fields, or to read-only fields.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    let Some(ps) = map.caps.path_setup.as_ref() else { return };
    for e in &ps.value.value {
        let e = sub(ps, e);
        for w in &e.value.value.set {
            let w = sub(&e, w);
            let reg = &w.value.value.register;
            let path = reg.value.as_str();
            let Some((_, block, r)) = map.find_register(path) else {
                let all: Vec<String> = map
                    .spaces
                    .iter()
                    .flat_map(|s| {
                        s.blocks.iter().flat_map(move |b| {
                            b.registers
                                .iter()
                                .map(move |r| format!("{}.{}.{}", s.name.value, b.name.value, r.name.value))
                        })
                    })
                    .collect();
                let mut d = Diagnostic::error(
                    sub(&w, reg).span(),
                    format!("path setup writes register `{path}`, which `{}` does not have", map.name.value),
                )
                .label("expected `space.block.register`");
                if let Some(s) = suggest(path, all.iter().map(String::as_str)) {
                    d = d.note(format!("help: did you mean `{s}`?"));
                }
                diags.push(d);
                continue;
            };
            let count = match (&block.array, &r.array) {
                (Some(a), _) | (None, Some(a)) => a.count.value,
                (None, None) => 1,
            };
            if let Some(i) = &w.value.value.index
                && i.value >= count
            {
                diags.push(
                    Diagnostic::error(
                        sub(&w, i).span(),
                        format!("`{path}` has {count} element(s); index {} is out of range", i.value),
                    )
                    .label("leave `index` out to write every element"),
                );
            }
            if w.value.value.fields.0.is_empty() {
                diags.push(
                    Diagnostic::error(w.span(), format!("path-setup write to `{path}` sets no field"))
                        .label("name at least one field"),
                );
            }
            for (fname, _) in w.value.value.fields.iter() {
                let fspan = sub(&w, fname).span();
                match r.fields.iter().find(|f| f.name.value == fname.value) {
                    None => {
                        let mut d =
                            Diagnostic::error(fspan, format!("register `{path}` has no field `{}`", fname.value));
                        if let Some(s) = suggest(&fname.value, r.fields.iter().map(|f| f.name.value.as_str())) {
                            d = d.note(format!("help: did you mean `{s}`?"));
                        }
                        diags.push(d);
                    }
                    Some(f) if matches!(f.access(r), Access::Ro | Access::Rc) => diags.push(
                        Diagnostic::error(
                            fspan,
                            format!("field `{}` of `{path}` is read-only; path setup cannot set it", fname.value),
                        )
                        .label("path setup is a read-modify-write of writable fields"),
                    ),
                    Some(f) if f.array.is_some() => diags.push(
                        Diagnostic::error(
                            fspan,
                            format!("field `{}` of `{path}` is a field array; path setup cannot set it", fname.value),
                        )
                        .label("path setup sets whole fields; give each element a field of its own"),
                    ),
                    Some(_) => {}
                }
            }
        }
    }
}
