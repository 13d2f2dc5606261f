//! The SoC diff page: for every map that extends another, what it adds, overrides and removes,
//! with the base's and the map's version side by side.

use super::html::{self, esc, ident, json};
use super::{Links, cap_span, page_name, yaml_key_line};
use crate::Project;
use crate::model::Map;
use crate::source::Span;
use std::collections::BTreeMap;
use std::fmt::Write;

/// One comparable item of a map: its summary and where it is written.
struct Item {
    /// What the item is (`register`, `field`, ...).
    kind: &'static str,
    /// Text compared between base and derived map (HTML).
    summary: String,
    /// Where it is written.
    span: Span,
}

fn bits_text(lsb: u32, width: u32) -> String {
    if width == 1 { format!("[{lsb}]") } else { format!("[{}:{lsb}]", crate::ast::Bits { lsb, width }.msb()) }
}

fn arr(a: &Option<crate::model::Array>) -> String {
    a.as_ref().map(|a| format!(" × {} stride 0x{:x}", a.count.value, a.stride.value)).unwrap_or_default()
}

fn describe(d: &str) -> String {
    if d.is_empty() { String::new() } else { format!("<br/>{}", esc(d)) }
}

/// Every item of `m` by its dotted path (parents before children).
fn items(m: &Map) -> BTreeMap<String, Item> {
    let mut out = BTreeMap::new();
    for s in &m.spaces {
        let sp = s.name.value.clone();
        out.insert(sp.clone(), Item { kind: "space", summary: describe(&s.description), span: s.name.span });
        for b in &s.blocks {
            let bp = format!("{sp}.{}", b.name.value);
            let summary = format!("base 0x{:04x}{}{}", b.base.value, arr(&b.array), describe(&b.description));
            out.insert(bp.clone(), Item { kind: "block", summary, span: b.name.span });
            for r in &b.registers {
                let rp = format!("{bp}.{}", r.name.value);
                let summary = format!(
                    "offset 0x{:x}{} · <code>{}</code> · reset 0x{:08x}{}",
                    r.offset.value,
                    arr(&r.array),
                    r.access.value.keyword(),
                    r.reset.value,
                    describe(&r.description)
                );
                out.insert(rp.clone(), Item { kind: "register", summary, span: r.name.span });
                for f in &r.fields {
                    let mut summary = format!(
                        "{} <code>{}</code>",
                        bits_text(f.bits.value.lsb, f.bits.value.width),
                        f.access(r).keyword()
                    );
                    if !f.values.is_empty() {
                        let v: Vec<String> =
                            f.values.iter().map(|(n, v)| format!("{}={}", esc(&n.value), v.value)).collect();
                        let _ = write!(summary, " · values {}", v.join(", "));
                    }
                    summary += &describe(&f.description);
                    out.insert(format!("{rp}.{}", f.name.value), Item { kind: "field", summary, span: f.name.span });
                }
            }
        }
    }
    for d in &m.descriptors {
        let dp = format!("descriptors.{}", d.name.value);
        out.insert(
            dp.clone(),
            Item {
                kind: "descriptor",
                summary: format!("{} bytes{}", d.size.value, describe(&d.description)),
                span: d.name.span,
            },
        );
        for f in &d.fields {
            let summary = format!(
                "word {} {}{}",
                f.word.value,
                bits_text(f.bits.value.lsb, f.bits.value.width),
                describe(&f.description)
            );
            out.insert(format!("{dp}.{}", f.name.value), Item { kind: "descriptor field", summary, span: f.name.span });
        }
    }
    out
}

/// The parent path of a dotted path (`a.b.c` -> `a.b`).
fn parent(path: &str) -> Option<&str> {
    path.rsplit_once('.').map(|(p, _)| p)
}

/// One change row.
struct Row {
    class: &'static str,
    kind: &'static str,
    path: String,
    base: String,
    this: String,
    src: String,
}

fn compare(p: &Project, base: &Map, m: &Map, links: &Links) -> Vec<Row> {
    let (bi, mi) = (items(base), items(m));
    let mut rows = Vec::new();
    for (path, it) in &mi {
        match bi.get(path) {
            // Children of an added item are part of it.
            None if parent(path).is_some_and(|pp| !bi.contains_key(pp) && mi.contains_key(pp)) => {}
            None => rows.push(Row {
                class: "added",
                kind: it.kind,
                path: path.clone(),
                base: "—".into(),
                this: it.summary.clone(),
                src: links.at(it.span),
            }),
            Some(b) if b.summary != it.summary => rows.push(Row {
                class: "overridden",
                kind: it.kind,
                path: path.clone(),
                base: b.summary.clone(),
                this: it.summary.clone(),
                src: links.at(it.span),
            }),
            Some(_) => {}
        }
    }
    for (path, it) in &bi {
        if mi.contains_key(path) || parent(path).is_some_and(|pp| bi.contains_key(pp) && !mi.contains_key(pp)) {
            continue;
        }
        let src = m
            .removed
            .iter()
            .find(|r| r.value == *path || path.ends_with(&format!(".{}", r.value)))
            .map(|r| links.at(r.span))
            .unwrap_or_default();
        rows.push(Row {
            class: "removed",
            kind: it.kind,
            path: path.clone(),
            base: it.summary.clone(),
            this: "—".into(),
            src,
        });
    }
    // Capabilities, from the same JSON as `ddgen dump --json`.
    let caps = |x: &Map| {
        p.maps
            .iter()
            .position(|y| y.name.value == x.name.value)
            .and_then(|i| p.caps[i].as_ref())
            .map(crate::dump::caps_json)
    };
    let (bc, mc) = (caps(base), caps(m));
    let keys: Vec<String> = [&bc, &mc]
        .iter()
        .filter_map(|c| c.as_ref().and_then(|v| v.as_object()).map(|o| o.keys().cloned().collect::<Vec<_>>()))
        .flatten()
        .fold(Vec::new(), |mut v, k| {
            if !v.contains(&k) {
                v.push(k);
            }
            v
        });
    for k in keys {
        let bv = bc.as_ref().and_then(|v| v.get(&k));
        let mv = mc.as_ref().and_then(|v| v.get(&k));
        let own = yaml_key_line(&p.sources, m.file, "capabilities", &k);
        let path = format!("capabilities.{k}");
        let src = own.or_else(|| cap_span(p, m, &k)).map(|s| links.at(s)).unwrap_or_default();
        let (class, bs) = match (bv, mv) {
            (Some(b), Some(x)) if b != x => ("overridden", json(b)),
            (Some(_), Some(_)) => continue,
            (Some(b), None) => ("removed", json(b)),
            // The base is abstract (its capabilities are not checked alone): show what this map
            // writes itself, and where the base writes the same key.
            (None, Some(_)) if base.is_abstract => match (own, cap_span(p, base, &k)) {
                (None, _) => continue,
                (Some(_), Some(bs)) => ("overridden", format!("written at {}", links.at(bs))),
                (Some(_), None) => ("added", "—".into()),
            },
            (None, Some(_)) => ("added", "—".into()),
            (None, None) => continue,
        };
        let this = mv.map(json).unwrap_or_else(|| "—".into());
        rows.push(Row { class, kind: "capability", path, base: bs, this, src });
    }
    // Any other top-level section of the dump JSON, compared as a whole.
    let dump = |x: &Map| {
        let i = p.maps.iter().position(|y| y.name.value == x.name.value);
        crate::dump::to_json(x, i.and_then(|i| p.caps[i].as_ref()))
    };
    let (bd, md) = (dump(base), dump(m));
    const COMPARED: [&str; 7] = ["soc", "abstract", "extends", "compatible", "capabilities", "spaces", "descriptors"];
    let mut extra: Vec<&String> = bd.as_object().into_iter().chain(md.as_object()).flat_map(|o| o.keys()).collect();
    extra.sort();
    extra.dedup();
    for k in extra.into_iter().filter(|k| !COMPARED.contains(&k.as_str())) {
        let (bv, mv) = (bd.get(k).filter(|v| !v.is_null()), md.get(k).filter(|v| !v.is_null()));
        let class = match (bv, mv) {
            (Some(b), Some(x)) if b != x => "overridden",
            (None, Some(_)) => "added",
            (Some(_), None) => "removed",
            _ => continue,
        };
        let show = |v: Option<&serde_json::Value>| v.map(json).unwrap_or_else(|| "—".into());
        rows.push(Row { class, kind: "section", path: k.clone(), base: show(bv), this: show(mv), src: String::new() });
    }
    rows
}

/// The diff page.
pub fn page(p: &Project, links: &Links) -> String {
    let mut b = String::from(
        "<p><a href=\"index.html\">All maps</a></p>\n<h1>SoC differences</h1>\n<p>For every map that extends another: what it adds, overrides (changes) and removes, the base's version beside its own. Children of an added or removed block, register or descriptor are not listed again.</p>\n<p class=\"legend\"><span class=\"added\">added</span><span class=\"overridden\">overridden</span><span class=\"removed\">removed</span></p>\n",
    );
    let derived: Vec<&Map> = p.maps.iter().filter(|m| !m.ancestors.is_empty()).collect();
    if derived.is_empty() {
        b += "<p>No map extends another.</p>\n";
    } else {
        b += "<ul>";
        for m in &derived {
            let _ = write!(
                b,
                "<li><a href=\"#{}\">{} over {}</a></li>",
                ident(&m.name),
                esc(&m.name),
                esc(&m.ancestors[0])
            );
        }
        b += "</ul>\n";
    }
    for m in &p.maps {
        let Some(base_name) = m.ancestors.first() else {
            let _ = writeln!(
                b,
                "<h2 id=\"{}\"><a href=\"{}\">{}</a></h2><p>Extends nothing: every item is its own.</p>",
                ident(&m.name),
                page_name(&m.name),
                esc(&m.name)
            );
            continue;
        };
        let Some(base) = p.map(base_name) else { continue };
        let rows = compare(p, base, m, links);
        let count = |c: &str| rows.iter().filter(|r| r.class == c).count();
        let _ = writeln!(
            b,
            "<h2 id=\"{}\"><a href=\"{}\">{}</a> over <a href=\"{}\">{}</a></h2>\n<p>{} added, {} overridden, {} removed. {}</p>",
            ident(&m.name),
            page_name(&m.name),
            esc(&m.name),
            page_name(base_name),
            esc(base_name),
            count("added"),
            count("overridden"),
            count("removed"),
            links.at(m.name.span)
        );
        if rows.is_empty() {
            b += "<p>No differences.</p>\n";
            continue;
        }
        let _ = writeln!(
            b,
            "<div class=\"scroll\"><table><tr><th>change</th><th>item</th><th>in {}</th><th>in {}</th><th>source</th></tr>",
            esc(base_name),
            esc(&m.name)
        );
        for class in ["added", "overridden", "removed"] {
            for r in rows.iter().filter(|r| r.class == class) {
                let _ = writeln!(
                    b,
                    "<tr class=\"{class}\"><td>{class}</td><td>{} <code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    r.kind,
                    esc(&r.path),
                    r.base,
                    r.this,
                    r.src
                );
            }
        }
        b += "</table></div>\n";
    }
    html::page("SoC differences", &b)
}
