//! `ddgen doc`: a static HTML register reference of the loaded maps.
//!
//! Pages: `index.html` (every map), one `<map>.html` per map (spaces, blocks, registers with
//! their bitfield diagrams and value tables, descriptor layouts word by word, capabilities) and
//! `diff.html` (what each map adds, overrides and removes over the map it extends). Every item
//! links to the YAML file and line it came from. Capabilities are rendered from the same JSON as
//! `ddgen dump --json`, so a new capability appears without this module changing. Plain HTML and
//! inline SVG with one stylesheet: no JavaScript, readable on a phone.

mod diff;
pub mod html;
pub mod svg;

use crate::Project;
use crate::model::{Block, Descriptor, Field, Map, Register, Space};
use crate::source::{FileId, Sources, Span};
use html::{esc, ident, num, page};
use std::fmt::Write;
use std::path::{Component, Path, PathBuf};

/// How source locations become links.
#[derive(Debug, Clone)]
pub struct Links {
    /// Per file: the link target without the line anchor.
    hrefs: Vec<String>,
    /// Per file: the path shown.
    shown: Vec<String>,
}

impl Links {
    /// Links relative to the output directory `out` (which must exist), so the pages open the
    /// YAML files next to them; with `base_url`, links are `base_url` + the path as loaded.
    pub fn new(sources: &Sources, out: &Path, base_url: Option<&str>) -> Links {
        let out_abs = std::fs::canonicalize(out).unwrap_or_else(|_| out.to_path_buf());
        let mut hrefs = Vec::new();
        let mut shown = Vec::new();
        for f in sources.files() {
            let p = f.path.to_string_lossy().replace('\\', "/");
            let href = match base_url {
                Some(b) => format!("{}/{}", b.trim_end_matches('/'), p.trim_start_matches("./")),
                None => match std::fs::canonicalize(&f.path) {
                    Ok(abs) => relative(&out_abs, &abs),
                    Err(_) => p.clone(),
                },
            };
            hrefs.push(href);
            shown.push(p);
        }
        Links { hrefs, shown }
    }

    /// `<a>` to `span`'s file and line, showing `path:line`.
    pub fn at(&self, span: Span) -> String {
        let f = span.file as usize;
        let (Some(h), Some(s)) = (self.hrefs.get(f), self.shown.get(f)) else { return String::new() };
        if span.line == 0 {
            return format!("<span class=\"src\"><a href=\"{}\">{}</a></span>", esc(h), esc(s));
        }
        format!("<span class=\"src\"><a href=\"{}#L{}\">{}:{}</a></span>", esc(h), span.line, esc(s), span.line)
    }
}

/// The path of `to` relative to directory `from` (both absolute), with `/` separators.
fn relative(from: &Path, to: &Path) -> String {
    let a: Vec<Component> = from.components().collect();
    let b: Vec<Component> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".to_string(); a.len().saturating_sub(common)];
    parts.extend(b[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned()));
    parts.join("/")
}

/// The file name of a map's page.
pub fn page_name(map: &str) -> String {
    format!("{}.html", ident(map))
}

/// Every page of the site as `(file name, HTML)`.
pub fn render(p: &Project, links: &Links) -> Vec<(String, String)> {
    let mut pages = vec![("index.html".to_string(), index(p, links))];
    for (i, m) in p.maps.iter().enumerate() {
        pages.push((page_name(&m.name.value), map_page(p, i, links)));
    }
    pages.push(("diff.html".to_string(), diff::page(p, links)));
    pages
}

/// Renders the site into `dir` (created if missing); returns the files written.
pub fn write(p: &Project, dir: &Path, base_url: Option<&str>) -> Result<Vec<PathBuf>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let links = Links::new(&p.sources, dir, base_url);
    let mut written = Vec::new();
    for (name, text) in render(p, &links) {
        let path = dir.join(&name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

fn reg_count(m: &Map) -> usize {
    m.spaces.iter().flat_map(|s| &s.blocks).map(|b| b.registers.len()).sum()
}

fn legend() -> String {
    let mut s = String::from("<p class=\"legend\">Diagram colours: ");
    for (a, what) in [
        ("rw", "read-write"),
        ("ro", "read-only"),
        ("wo", "write-only"),
        ("w1c", "write 1 to clear"),
        ("rc", "read to clear"),
    ] {
        let _ = write!(s, "<span style=\"background:{}\">{a}: {what}</span>", svg::fill(Some(a)));
    }
    let _ = write!(
        s,
        "<span style=\"background:{}\">descriptor field</span><span style=\"background:{}\">reserved</span></p>",
        svg::fill(None),
        svg::RESERVED_FILL
    );
    s
}

fn index(p: &Project, links: &Links) -> String {
    let mut b = String::from("<h1>Frame-engine register reference</h1>\n");
    b += "<p>Generated from the YAML register maps. Each map has a page with every address space, block, register, field and DMA descriptor layout; <a href=\"diff.html\">the SoC diff page</a> shows what each map adds, overrides and removes over the map it extends.</p>\n";
    b += "<div class=\"scroll\"><table><tr><th>map</th><th>kind</th><th>extends</th><th>compatible</th><th>registers</th><th>descriptors</th><th>description</th><th>source</th></tr>\n";
    for m in &p.maps {
        let ext = match m.ancestors.first() {
            Some(a) => format!("<a href=\"{}\">{}</a>", page_name(a), esc(a)),
            None => "—".into(),
        };
        let compat: Vec<String> = m.compatible.iter().map(|c| format!("<code>{}</code>", esc(&c.value))).collect();
        let _ = writeln!(
            b,
            "<tr><td><a href=\"{}\">{}</a></td><td>{}</td><td>{ext}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            page_name(&m.name.value),
            esc(&m.name.value),
            if m.is_abstract { "abstract base" } else { "SoC" },
            compat.join("<br/>"),
            reg_count(m),
            m.descriptors.len(),
            esc(&m.description),
            links.at(m.name.span)
        );
    }
    b += "</table></div>\n";
    b += &legend();
    page("Frame-engine register reference", &b)
}

/// Where a capability key is written: the `key:` line under `capabilities:` in the map's own
/// file, else in the nearest ancestor's that writes it.
fn cap_span(p: &Project, m: &Map, key: &str) -> Option<Span> {
    let chain = std::iter::once(m).chain(m.ancestors.iter().filter_map(|a| p.map(a)));
    chain.into_iter().find_map(|mm| yaml_key_line(&p.sources, mm.file, "capabilities", key))
}

/// Finds `key:` indented below a `section:` line in file `file` (a plain text scan: the loader's
/// typed model does not keep spans of keys it does not know).
#[allow(clippy::arithmetic_side_effects, reason = "positions within a text, bounded by its length")]
fn yaml_key_line(sources: &Sources, file: FileId, section: &str, key: &str) -> Option<Span> {
    let text = &sources.get(file).text;
    let mut in_section: Option<usize> = None;
    let mut offset = 0;
    for (i, line) in text.lines().enumerate() {
        let start = offset;
        offset += line.len() + 1;
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if let Some(si) = in_section {
            if indent <= si {
                in_section = None;
            } else if trimmed.strip_prefix(key).is_some_and(|r| r.starts_with(':')) {
                return Some(Span {
                    file,
                    start: start + indent,
                    end: start + line.len(),
                    line: i as u32 + 1,
                    col: indent as u32 + 1,
                });
            }
        }
        if trimmed.strip_prefix(section).is_some_and(|r| r.trim_end() == ":") {
            in_section = Some(indent);
        }
    }
    None
}

fn map_page(p: &Project, i: usize, links: &Links) -> String {
    let m = &p.maps[i];
    let name = &m.name.value;
    let mut b = format!(
        "<p><a href=\"index.html\">All maps</a> · <a href=\"diff.html#{}\">diff against its base</a></p>\n<h1>{} {}</h1>\n",
        ident(name),
        esc(name),
        if m.is_abstract { "(abstract base)" } else { "" }
    );
    let _ = writeln!(b, "<p>{} {}</p>", esc(&m.description), links.at(m.name.span));
    if !m.ancestors.is_empty() {
        let chain: Vec<String> =
            m.ancestors.iter().map(|a| format!("<a href=\"{}\">{}</a>", page_name(a), esc(a))).collect();
        let _ = writeln!(b, "<p>Extends: {}</p>", chain.join(" → "));
    }
    if !m.compatible.is_empty() {
        b += "<p>Compatible: ";
        for c in &m.compatible {
            let _ = write!(b, "<code>{}</code> {} ", esc(&c.value), links.at(c.span));
        }
        b += "</p>\n";
    }
    // Table of contents.
    b += "<nav><h2>Contents</h2><ul>";
    if p.caps[i].is_some() {
        b += "<li><a href=\"#capabilities\">Capabilities</a></li>";
    }
    for s in &m.spaces {
        let _ = write!(b, "<li><a href=\"#s-{}\">Space <code>{}</code></a><ul>", ident(&s.name), esc(&s.name));
        for bl in &s.blocks {
            let _ = write!(
                b,
                "<li><a href=\"#b-{}-{}\"><code>{}</code></a> ({} registers)</li>",
                ident(&s.name),
                ident(&bl.name),
                esc(&bl.name),
                bl.registers.len()
            );
        }
        b += "</ul></li>";
    }
    if !m.descriptors.is_empty() {
        b += "<li><a href=\"#descriptors\">DMA descriptors</a><ul>";
        for d in &m.descriptors {
            let _ = write!(b, "<li><a href=\"#d-{}\"><code>{}</code></a></li>", ident(&d.name), esc(&d.name));
        }
        b += "</ul></li>";
    }
    b += "</ul></nav>\n";
    b += &legend();
    if let Some(c) = &p.caps[i] {
        b += "<h2 id=\"capabilities\">Capabilities</h2>\n";
        if let Some(sp) = m.soc_span {
            let _ = writeln!(b, "<p>Section <code>soc:</code> {}</p>", links.at(sp));
        }
        let v = crate::dump::caps_json(c);
        b += "<div class=\"scroll\"><table><tr><th>capability</th><th>value</th><th>source</th></tr>\n";
        if let Some(o) = v.as_object() {
            for (k, x) in o {
                let src = cap_span(p, m, k).map(|s| links.at(s)).unwrap_or_default();
                let _ =
                    writeln!(b, "<tr><td><code>{}</code></td><td>{}</td><td>{src}</td></tr>", esc(k), html::json(x));
            }
        }
        b += "</table></div>\n";
    }
    // Anything else `ddgen dump --json` reports about the map (sections added to the model later)
    // is shown as it is, so the reference never silently lacks it.
    let dump = crate::dump::to_json(m, p.caps[i].as_ref());
    if let Some(o) = dump.as_object() {
        const SHOWN: [&str; 7] = ["soc", "abstract", "extends", "compatible", "capabilities", "spaces", "descriptors"];
        for (k, v) in o.iter().filter(|(k, v)| !SHOWN.contains(&k.as_str()) && !v.is_null()) {
            let _ = writeln!(b, "<h2 id=\"x-{}\">{}</h2>\n{}", ident(k), esc(k), html::json(v));
        }
    }
    for s in &m.spaces {
        space(&mut b, s, links);
    }
    if !m.descriptors.is_empty() {
        b += "<h2 id=\"descriptors\">DMA descriptors</h2>\n";
        for d in &m.descriptors {
            descriptor(&mut b, d, links);
        }
    }
    page(&format!("{name} registers"), &b)
}

fn array_text(a: &Option<crate::model::Array>) -> String {
    match a {
        None => String::new(),
        Some(a) => format!(" × {} (stride 0x{:x})", a.count.value, a.stride.value),
    }
}

fn space(b: &mut String, s: &Space, links: &Links) {
    let _ = writeln!(
        b,
        "<h2 id=\"s-{}\">Space <code>{}</code> {}</h2>",
        ident(&s.name),
        esc(&s.name),
        links.at(s.name.span)
    );
    if !s.description.is_empty() {
        let _ = writeln!(b, "<p>{}</p>", esc(&s.description));
    }
    for bl in &s.blocks {
        block(b, s, bl, links);
    }
}

fn block(b: &mut String, s: &Space, bl: &Block, links: &Links) {
    let _ = writeln!(
        b,
        "<h3 id=\"b-{}-{}\">Block <code>{}</code> at 0x{:04x}{} {}</h3>",
        ident(&s.name),
        ident(&bl.name),
        esc(&bl.name),
        bl.base.value,
        array_text(&bl.array),
        links.at(bl.name.span)
    );
    if !bl.description.is_empty() {
        let _ = writeln!(b, "<p>{}</p>", esc(&bl.description));
    }
    // Summary table, then one section per register.
    b.push_str("<div class=\"scroll\"><table><tr><th>offset</th><th>register</th><th>access</th><th>reset</th><th>description</th></tr>\n");
    let mut regs: Vec<&Register> = bl.registers.iter().collect();
    regs.sort_by_key(|r| r.offset.value);
    for r in &regs {
        let _ = writeln!(
            b,
            "<tr><td class=\"mono\">0x{:04x}</td><td><a href=\"#{}\"><code>{}</code></a>{}</td><td>{}</td><td class=\"mono\">0x{:08x}</td><td>{}</td></tr>",
            bl.base.value.saturating_add(r.offset.value),
            reg_id(s, bl, r),
            esc(&r.name),
            array_text(&r.array),
            r.access.value.keyword(),
            r.reset.value,
            esc(&r.description)
        );
    }
    b.push_str("</table></div>\n");
    for r in regs {
        register(b, s, bl, r, links);
    }
}

fn reg_id(s: &Space, bl: &Block, r: &Register) -> String {
    format!("r-{}-{}-{}", ident(&s.name), ident(&bl.name), ident(&r.name))
}

fn register(b: &mut String, s: &Space, bl: &Block, r: &Register, links: &Links) {
    let _ = writeln!(
        b,
        "<section class=\"reg\" id=\"{}\"><h4><code>{}.{}</code> at 0x{:04x}{}</h4>",
        reg_id(s, bl, r),
        esc(&bl.name),
        esc(&r.name),
        bl.base.value.saturating_add(r.offset.value),
        array_text(&r.array)
    );
    let _ = writeln!(
        b,
        "<p>Offset 0x{:x} in the block · access <code>{}</code> · reset <code>0x{:08x}</code> {}</p>",
        r.offset.value,
        r.access.value.keyword(),
        r.reset.value,
        links.at(r.name.span)
    );
    if !r.description.is_empty() {
        let _ = writeln!(b, "<p>{}</p>", esc(&r.description));
    }
    let mut fields = elements(r);
    fields.sort_by_key(|(_, bits, _)| std::cmp::Reverse(bits.lsb));
    let segs: Vec<svg::Seg> = fields
        .iter()
        .map(|(name, bits, f)| svg::Seg { name, lsb: bits.lsb, width: bits.width, access: Some(f.access(r).keyword()) })
        .collect();
    // Scrolls sideways on a phone rather than shrinking the labels out of legibility.
    let _ = write!(
        b,
        "<div class=\"scroll\">{}</div>",
        svg::word(&format!("{}.{} bit fields", bl.name.value, r.name.value), &segs)
    );
    if fields.is_empty() {
        b.push_str("<p>No fields: the register is one 32-bit value.</p></section>\n");
        return;
    }
    b.push_str("<div class=\"scroll\"><table><tr><th>bits</th><th>field</th><th>access</th><th>reset</th><th>description</th><th>source</th></tr>\n");
    for (name, bits, f) in &fields {
        let range = if bits.width == 1 { bits.lsb.to_string() } else { format!("{}:{}", bits.msb(), bits.lsb) };
        let reset = (r.reset.value & crate::model::mask(*bits)) >> bits.lsb.min(63);
        let mut desc = esc(&f.description);
        if !f.values.is_empty() {
            desc += "<table><tr><th>value</th><th>name</th></tr>";
            for (n, v) in &f.values {
                let _ =
                    write!(desc, "<tr><td class=\"mono\">{}</td><td><code>{}</code></td></tr>", v.value, esc(&n.value));
            }
            desc += "</table>";
        }
        let _ = writeln!(
            b,
            "<tr><td class=\"mono\">{range}</td><td><code>{}</code></td><td>{}</td><td class=\"mono\">{}</td><td>{desc}</td><td>{}</td></tr>",
            esc(name),
            f.access(r).keyword(),
            esc(&num(reset)),
            links.at(f.name.span)
        );
    }
    b.push_str("</table></div></section>\n");
}

fn descriptor(b: &mut String, d: &Descriptor, links: &Links) {
    let _ = writeln!(
        b,
        "<h3 id=\"d-{}\">Descriptor <code>{}</code> ({} bytes) {}</h3>",
        ident(&d.name),
        esc(&d.name),
        d.size.value,
        links.at(d.name.span)
    );
    if !d.description.is_empty() {
        let _ = writeln!(b, "<p>{}</p>", esc(&d.description));
    }
    let words = d.size.value.div_ceil(4);
    for w in 0..words {
        let mut fields: Vec<_> = d.fields.iter().filter(|f| f.word.value == w).collect();
        fields.sort_by_key(|f| std::cmp::Reverse(f.bits.value.lsb));
        let _ = writeln!(
            b,
            "<section class=\"reg\" id=\"d-{}-w{w}\"><h4>Word {w} (byte offset {})</h4>",
            ident(&d.name),
            w.saturating_mul(4)
        );
        let segs: Vec<svg::Seg> = fields
            .iter()
            .map(|f| svg::Seg { name: &f.name.value, lsb: f.bits.value.lsb, width: f.bits.value.width, access: None })
            .collect();
        let _ = write!(b, "<div class=\"scroll\">{}</div>", svg::word(&format!("{} word {w}", d.name.value), &segs));
        if fields.is_empty() {
            b.push_str("<p>No fields in this word (reserved or written whole).</p></section>\n");
            continue;
        }
        b.push_str(
            "<div class=\"scroll\"><table><tr><th>bits</th><th>field</th><th>description</th><th>source</th></tr>\n",
        );
        for f in fields {
            let bits = f.bits.value;
            let range = if bits.width == 1 { bits.lsb.to_string() } else { format!("{}:{}", bits.msb(), bits.lsb) };
            let _ = writeln!(
                b,
                "<tr><td class=\"mono\">{range}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                esc(&f.name),
                esc(&f.description),
                links.at(f.name.span)
            );
        }
        b.push_str("</table></div></section>\n");
    }
}

/// The fields of `r` as drawn: a field array element by element (`name[n]`).
fn elements(r: &Register) -> Vec<(String, crate::ast::Bits, &Field)> {
    r.fields
        .iter()
        .flat_map(|f| {
            (0..f.count()).map(move |n| match f.array {
                Some(_) => (format!("{}[{n}]", f.name.value), f.element(n), f),
                None => (f.name.value.clone(), f.bits.value, f),
            })
        })
        .collect()
}

/// A stand-alone SVG of one register's diagram (`space.block.register`), for README figures.
pub fn register_svg(m: &Map, path: &str) -> Option<String> {
    let (_, bl, r) = m.find_register(path)?;
    let fields = elements(r);
    let segs: Vec<svg::Seg> = fields
        .iter()
        .map(|(name, bits, f)| svg::Seg { name, lsb: bits.lsb, width: bits.width, access: Some(f.access(r).keyword()) })
        .collect();
    Some(svg::standalone(&format!("{} {}.{}", m.name.value, bl.name.value, r.name.value), &segs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_out_of_the_output_directory() {
        assert_eq!(relative(Path::new("/a/b/out"), Path::new("/a/regs/x.yaml")), "../../regs/x.yaml");
        assert_eq!(relative(Path::new("/a"), Path::new("/a/x.yaml")), "x.yaml");
    }

    #[test]
    fn capability_keys_are_found_under_their_section() {
        let mut s = Sources::default();
        let id = s.add(
            "x.yaml",
            "name: x\nirq: 1\nsoc:\n  capabilities:\n    tx_queues: 4\n    irq:\n      lines: 3\nother:\n  irq: 2\n"
                .into(),
        );
        assert_eq!(yaml_key_line(&s, id, "capabilities", "irq").map(|s| s.line), Some(6));
        assert_eq!(yaml_key_line(&s, id, "capabilities", "tx_queues").map(|s| s.line), Some(5));
        assert_eq!(yaml_key_line(&s, id, "capabilities", "rings"), None);
    }
}
