//! Rule: every value path setup writes fits its field: a number below 2^width, or one of the
//! field's enum names.

use crate::ast::FieldValue;
use crate::caps::sub;
use crate::model::Map;
use crate::resolve::suggest;
use crate::source::Diagnostic;

/// Reports path-setup values too wide for their field, and unknown enum names.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    let Some(ps) = map.caps.path_setup.as_ref() else { return };
    for e in &ps.value.value {
        let e = sub(ps, e);
        for w in &e.value.value.set {
            let w = sub(&e, w);
            let path = w.value.value.register.value.as_str();
            // Unknown registers and fields are `path_setup_targets`' to report.
            let Some((_, _, r)) = map.find_register(path) else { continue };
            for (fname, v) in w.value.value.fields.iter() {
                let Some(f) = r.fields.iter().find(|f| f.name.value == fname.value) else { continue };
                let span = sub(&w, v).span();
                match &v.value {
                    FieldValue::Num(n) => {
                        let width = f.bits.value.width;
                        if *n > f.bits.value.max_value() {
                            diags.push(
                                Diagnostic::error(
                                    span,
                                    format!(
                                        "value {n:#x} does not fit the {width}-bit field `{}` of `{path}`",
                                        fname.value
                                    ),
                                )
                                .label(format!("at most {:#x}", f.bits.value.max_value())),
                            );
                        }
                    }
                    FieldValue::Name(n) => {
                        if !f.values.iter().any(|(name, _)| name.value == *n) {
                            let mut d = Diagnostic::error(
                                span,
                                format!("field `{}` of `{path}` has no value named `{n}`", fname.value),
                            );
                            if f.values.is_empty() {
                                d = d.label("this field has no `enum:`; write a number");
                            } else if let Some(s) = suggest(n, f.values.iter().map(|(x, _)| x.value.as_str())) {
                                d = d.note(format!("help: did you mean `{s}`?"));
                            }
                            diags.push(d);
                        }
                    }
                }
            }
        }
    }
}
