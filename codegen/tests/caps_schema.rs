//! The capability schema is the one definition of the runtime capability types: the emitted
//! declarations and every SoC's literal are parsed back with `syn` and compared with
//! `ddgen::caps_schema::TYPES`, so a declaration or literal that drifts from the schema fails here.

use ddgen::caps_schema::{FieldDef, Shape, TYPES, TypeDef};
use quote::ToTokens;
use std::collections::BTreeSet;
use std::path::Path;
use syn::{Expr, Fields, FnArg, ImplItem, Item, Member, Pat};

fn generated() -> ddgen::Generated {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../regs");
    let files = ddgen::yaml_files(&dir).expect("bundled maps");
    let p = ddgen::load(&files).unwrap_or_else(|r| panic!("bundled maps do not validate:\n{r}"));
    ddgen::generate(&p).expect("generates")
}

fn schema(name: &str) -> &'static TypeDef {
    TYPES.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("`{name}` is not a schema type"))
}

fn squash(t: impl ToTokens) -> String {
    t.to_token_stream().to_string().split_whitespace().collect()
}

fn doc_lines(attrs: &[syn::Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => s.value(),
                other => panic!("doc attribute is not a string: {}", squash(other)),
            },
            other => panic!("doc attribute is not `doc = ..`: {}", squash(other)),
        })
        .collect()
}

/// The named fields `fields` declare, checked against the schema's (names, order, types, docs).
fn check_fields(what: &str, fields: &Fields, want: &[FieldDef]) {
    let got: Vec<(String, String, Vec<String>)> = match fields {
        Fields::Named(n) => n
            .named
            .iter()
            .map(|f| (f.ident.as_ref().expect("named").to_string(), squash(&f.ty), doc_lines(&f.attrs)))
            .collect(),
        Fields::Unit => Vec::new(),
        Fields::Unnamed(_) => panic!("{what} has unnamed fields; the schema has only named ones"),
    };
    let want: Vec<(String, String, Vec<String>)> = want
        .iter()
        .map(|f| (f.name.to_string(), squash((f.ty)()), f.doc.iter().map(|d| d.to_string()).collect()))
        .collect();
    assert_eq!(got, want, "{what}: declared fields (name, type, docs) differ from the schema");
}

/// The generated `caps_types` module declares exactly the schema's types, in schema order, with
/// the schema's fields, docs and the derives the driver relies on.
#[test]
fn declarations_are_the_schema() {
    let shared: syn::File = syn::parse_str(&generated().shared).expect("shared code parses");
    let module = shared
        .items
        .iter()
        .find_map(|i| match i {
            Item::Mod(m) if m.ident == "caps_types" => m.content.as_ref().map(|c| &c.1),
            _ => None,
        })
        .expect("shared code has the `caps_types` module");
    let mut declared = Vec::new();
    for item in module {
        match item {
            Item::Struct(s) => {
                let t = schema(&s.ident.to_string());
                let Shape::Struct(fields) = t.shape else { panic!("`{}` is declared as a struct", t.name) };
                check_fields(t.name, &s.fields, fields);
                check_type(t, &s.attrs);
                declared.push(t.name);
            }
            Item::Enum(e) => {
                let t = schema(&e.ident.to_string());
                let Shape::Enum(variants) = t.shape else { panic!("`{}` is declared as an enum", t.name) };
                let got: Vec<String> = e.variants.iter().map(|v| v.ident.to_string()).collect();
                let want: Vec<&str> = variants.iter().map(|v| v.name).collect();
                assert_eq!(got, want, "variants of `{}`", t.name);
                for (v, w) in e.variants.iter().zip(variants) {
                    check_fields(&format!("{}::{}", t.name, w.name), &v.fields, w.fields);
                    assert_eq!(doc_lines(&v.attrs), w.doc, "docs of `{}::{}`", t.name, w.name);
                }
                check_type(t, &e.attrs);
                declared.push(t.name);
            }
            Item::Impl(i) => check_ctor(i),
            other => panic!("`caps_types` holds an item the schema does not declare: {}", squash(other)),
        }
    }
    assert_eq!(declared, TYPES.iter().map(|t| t.name).collect::<Vec<_>>(), "declared types, in order");
}

fn check_type(t: &TypeDef, attrs: &[syn::Attribute]) {
    assert_eq!(doc_lines(attrs), t.doc, "docs of `{}`", t.name);
    let derive = attrs.iter().find(|a| a.path().is_ident("derive")).expect("derives");
    assert_eq!(squash(derive), "#[derive(Copy,Clone,Debug,PartialEq,Eq)]", "derives of `{}`", t.name);
}

/// An `impl` in `caps_types` is a schema constructor: `new` taking every field, in order.
fn check_ctor(i: &syn::ItemImpl) {
    let name = squash(&i.self_ty);
    let t = schema(&name);
    let (Some(doc), Shape::Struct(fields)) = (t.ctor, t.shape) else { panic!("`{name}` has an impl but no ctor") };
    let [ImplItem::Fn(f)] = i.items.as_slice() else { panic!("`impl {name}` holds only `new`") };
    assert_eq!(f.sig.ident, "new");
    assert_eq!(doc_lines(&f.attrs), doc, "docs of `{name}::new`");
    let params: Vec<(String, String)> = f
        .sig
        .inputs
        .iter()
        .map(|a| match a {
            FnArg::Typed(p) => match &*p.pat {
                Pat::Ident(id) => (id.ident.to_string(), squash(&p.ty)),
                other => panic!("parameter pattern {}", squash(other)),
            },
            FnArg::Receiver(_) => panic!("`{name}::new` takes self"),
        })
        .collect();
    let want: Vec<(String, String)> = fields.iter().map(|f| (f.name.to_string(), squash((f.ty)()))).collect();
    assert_eq!(params, want, "parameters of `{name}::new` are the fields, in order");
}

/// `crate::caps::Name` or `crate::caps::Name::Variant` (or `crate::caps::Name::new`): the segments
/// after `caps`, when the path is into `crate::caps`.
fn caps_path(p: &syn::Path) -> Option<Vec<String>> {
    let segs: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
    match segs.as_slice() {
        [c, caps, rest @ ..] if c == "crate" && caps == "caps" => Some(rest.to_vec()),
        _ => None,
    }
}

/// Checks every capability literal in `e` against the schema; returns the schema types named.
fn check_literal(e: &Expr, seen: &mut BTreeSet<&'static str>) -> Result<(), String> {
    match e {
        Expr::Struct(s) => {
            let got: Vec<String> = s
                .fields
                .iter()
                .map(|f| match &f.member {
                    Member::Named(n) => n.to_string(),
                    Member::Unnamed(i) => i.index.to_string(),
                })
                .collect();
            if s.rest.is_some() {
                return Err(format!("`{}` literal uses `..`", squash(&s.path)));
            }
            if let Some(segs) = caps_path(&s.path) {
                let t =
                    TYPES.iter().find(|t| t.name == segs[0]).ok_or(format!("`{}` is not in the schema", segs[0]))?;
                seen.insert(t.name);
                let want: Vec<&str> = match (t.shape, segs.get(1)) {
                    (Shape::Struct(f), None) if t.ctor.is_none() => f.iter().map(|f| f.name).collect(),
                    (Shape::Enum(vs), Some(v)) => match vs.iter().find(|x| x.name == v) {
                        Some(x) => x.fields.iter().map(|f| f.name).collect(),
                        None => return Err(format!("`{}::{v}` is not a schema variant", t.name)),
                    },
                    _ => return Err(format!("`{}` literal does not match the schema's shape", squash(&s.path))),
                };
                if got != want {
                    return Err(format!("`{}` literal names {got:?}, the schema {want:?}", squash(&s.path)));
                }
            }
            s.fields.iter().try_for_each(|f| check_literal(&f.expr, seen))
        }
        Expr::Call(c) => {
            if let Expr::Path(p) = &*c.func
                && let Some(segs) = caps_path(&p.path)
            {
                let t =
                    TYPES.iter().find(|t| t.name == segs[0]).ok_or(format!("`{}` is not in the schema", segs[0]))?;
                seen.insert(t.name);
                match (t.shape, t.ctor, segs.get(1).map(String::as_str)) {
                    (Shape::Struct(f), Some(_), Some("new")) if f.len() == c.args.len() => {}
                    _ => return Err(format!("`{}` call does not match the schema", squash(e))),
                }
            }
            c.args.iter().try_for_each(|a| check_literal(a, seen))
        }
        Expr::Path(p) => {
            if let Some(segs) = caps_path(&p.path) {
                let t =
                    TYPES.iter().find(|t| t.name == segs[0]).ok_or(format!("`{}` is not in the schema", segs[0]))?;
                seen.insert(t.name);
                let unit = match (t.shape, segs.get(1)) {
                    (Shape::Enum(vs), Some(v)) => vs.iter().any(|x| x.name == v && x.fields.is_empty()),
                    _ => false,
                };
                if !unit {
                    return Err(format!("`{}` is not a unit variant of the schema", squash(e)));
                }
            }
            Ok(())
        }
        Expr::Reference(r) => check_literal(&r.expr, seen),
        Expr::Array(a) => a.elems.iter().try_for_each(|x| check_literal(x, seen)),
        Expr::Tuple(t) => t.elems.iter().try_for_each(|x| check_literal(x, seen)),
        Expr::Lit(_) => Ok(()),
        other => Err(format!("unexpected expression in a capability literal: {}", squash(other))),
    }
}

/// The `caps` expression of a SoC module's `INFO`.
fn caps_literal(file: &syn::File) -> &Expr {
    let [Item::Mod(m)] = file.items.as_slice() else { panic!("one module per SoC") };
    let info = m.content.as_ref().expect("inline module").1.iter().find_map(|i| match i {
        Item::Const(c) if c.ident == "INFO" => Some(c),
        _ => None,
    });
    let Expr::Struct(s) = &*info.expect("INFO").expr else { panic!("INFO is a struct literal") };
    let caps = s.fields.iter().find(|f| matches!(&f.member, Member::Named(n) if n == "caps"));
    &caps.expect("INFO.caps").expr
}

/// Every SoC literal names exactly the schema's fields of each capability type it builds, and
/// together the bundled SoCs build every schema type.
#[test]
fn every_soc_literal_names_exactly_the_schema_fields() {
    let g = generated();
    let mut seen = BTreeSet::new();
    for (soc, code) in &g.socs {
        let file: syn::File = syn::parse_str(code).expect("SoC module parses");
        let caps = caps_literal(&file);
        let Expr::Struct(s) = caps else { panic!("{soc}: caps is a struct literal") };
        assert_eq!(caps_path(&s.path), Some(vec!["Capabilities".to_string()]), "{soc}: caps literal type");
        if let Err(e) = check_literal(caps, &mut seen) {
            panic!("{soc}: {e}");
        }
    }
    let all: BTreeSet<&str> = TYPES.iter().map(|t| t.name).collect();
    assert_eq!(seen, all, "schema types no bundled SoC literal builds");
}

/// The checker is not vacuous: a literal with a field missing, an extra field, fields swapped, a
/// constructor with an argument missing, or a type outside the schema is rejected.
#[test]
fn a_drifted_literal_is_caught() {
    let bad = [
        "crate::caps::IrqNames { tx: \"a\" }",
        "crate::caps::IrqNames { tx: \"a\", rx: \"b\", extra: 1 }",
        "crate::caps::IrqNames { rx: \"b\", tx: \"a\" }",
        "crate::caps::FieldPos::new(1)",
        "crate::caps::RingPlacement::Sram",
        "crate::caps::IrqLayout::Shared { index: 0 }",
        "crate::caps::Unknown { a: 1 }",
        "&[crate::caps::MacCaps { phy_modes: &[], more: 1 }]",
    ];
    for text in bad {
        let e: Expr = syn::parse_str(text).expect("parses");
        assert!(check_literal(&e, &mut BTreeSet::new()).is_err(), "not caught: {text}");
    }
    let good: Expr = syn::parse_str("Some(crate::caps::IrqNames { tx: \"a\", rx: \"b\" })").expect("parses");
    assert_eq!(check_literal(&good, &mut BTreeSet::new()), Ok(()));
}
