//! Resolving `extends`: each file becomes a complete [`Map`] by overlaying it on its base.
//!
//! Rules: an item whose name exists in the base is an override (what it gives replaces, what it
//! omits is kept, children merge by name); a new item must be complete (a block needs `base`, a
//! register `offset`, a field `bits`, a layout `size`, a descriptor field `word` and `bits`), so an
//! incomplete item that matches nothing is reported as an override of something that does not
//! exist. Compatible strings and `abstract` are never inherited.

use crate::ast::{self, Access, Named};
use crate::load::{CAPABILITY_NAMES, edit_distance};
use crate::model::{self, Array, Block, Caps, DescField, Descriptor, Field, In, Map, Register, Space};
use crate::source::{Diagnostic, FileId, Sp, Span};
use serde_saphyr::Spanned;
use std::collections::HashMap;

fn sp<T: Clone>(file: FileId, s: &Spanned<T>) -> Sp<T> {
    Sp::new(s.value.clone(), Span::from_location(file, &s.referenced))
}

fn inn<T: Clone>(file: FileId, s: &Spanned<T>) -> In<T> {
    In { file, value: s.clone() }
}

fn desc(d: &Option<String>) -> String {
    d.as_deref().unwrap_or("").trim().to_string()
}

/// Resolves every parsed file; returns the maps that resolved and the diagnostics of those that did not.
pub fn resolve_all(files: &[(FileId, ast::File)], some_failed_to_parse: bool) -> (Vec<Map>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    for (i, (fid, f)) in files.iter().enumerate() {
        if let Some(&j) = by_name.get(f.name.value.as_str()) {
            let (ofid, of) = &files[j];
            diags.push(
                Diagnostic::error(sp(*fid, &f.name).span, format!("a map named `{}` is already defined", f.name.value))
                    .label("second definition")
                    .with(sp(*ofid, &of.name).span, "first defined here"),
            );
        } else {
            by_name.insert(&f.name.value, i);
        }
    }
    let mut done: HashMap<usize, Option<Map>> = HashMap::new();
    let mut out = Vec::new();
    for i in 0..files.len() {
        if by_name.get(files[i].1.name.value.as_str()) != Some(&i) {
            continue;
        }
        if let Some(m) = resolve_one(i, files, &by_name, some_failed_to_parse, &mut done, &mut diags) {
            out.push(m);
        }
    }
    (out, diags)
}

/// How many `extends` levels a map may sit below the map its chain starts from. The bundled maps
/// use one; the limit keeps a long chain (each level copies its base) from costing quadratic
/// memory, and names the map where a chain gets too long instead of failing somewhere deep.
pub const MAX_EXTENDS_DEPTH: usize = 32;

/// Resolves map `i` and every map its `extends` chain passes through, without recursion: the
/// chain is walked down to a map already resolved (or one without `extends`), then overlaid from
/// the bottom up, so a chain of any length costs no stack.
fn resolve_one(
    i: usize,
    files: &[(FileId, ast::File)],
    by_name: &HashMap<&str, usize>,
    some_failed_to_parse: bool,
    done: &mut HashMap<usize, Option<Map>>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Map> {
    // The maps still to resolve, `i` first; each extends the next.
    let mut chain: Vec<usize> = Vec::new();
    let mut on_chain: HashMap<usize, usize> = HashMap::new();
    let mut cur = i;
    // The resolved base of the last map on the chain (`None`: it extends nothing); `Err` when
    // the chain cannot resolve (already reported).
    let bottom: Result<Option<Map>, ()> = loop {
        if let Some(m) = done.get(&cur) {
            // `cur` was resolved earlier: it is the base of the chain (or its failure).
            break m.clone().map(Some).ok_or(());
        }
        on_chain.insert(cur, chain.len());
        chain.push(cur);
        let (fid, file) = &files[cur];
        let Some(ext) = &file.extends else { break Ok(None) };
        match by_name.get(ext.value.as_str()) {
            None => {
                let mut d = Diagnostic::error(
                    sp(*fid, ext).span,
                    format!("`{}` extends unknown map `{}`", file.name.value, ext.value),
                )
                .label("no map of this name was loaded");
                let names: Vec<&str> = by_name.keys().copied().collect();
                if let Some(s) = suggest(&ext.value, names.iter().copied()) {
                    d = d.note(format!("help: did you mean `{s}`?"));
                }
                d = if some_failed_to_parse {
                    d.note("a file above failed to parse; it may define this map")
                } else {
                    d.note("every map that is extended must be passed in the same run")
                };
                diags.push(d);
                break Err(());
            }
            Some(&j) => {
                if let Some(&pos) = on_chain.get(&j) {
                    let names: Vec<&str> = chain[pos..]
                        .iter()
                        .map(|&k| files[k].1.name.value.as_str())
                        .chain([ext.value.as_str()])
                        .collect();
                    diags.push(
                        Diagnostic::error(sp(*fid, ext).span, format!("cyclic `extends`: {}", names.join(" -> ")))
                            .label("this closes the cycle"),
                    );
                    break Err(());
                }
                cur = j;
            }
        }
    };
    // Overlay from the bottom of the chain up; a failure fails every map above it, silently
    // (the reason was reported once, where it is).
    let mut base = bottom;
    for &k in chain.iter().rev() {
        let (fid, file) = &files[k];
        let result = match base {
            Err(()) => None,
            Ok(b) => {
                let depth = b.as_ref().map_or(0, |b| b.ancestors.len().saturating_add(1));
                match (&file.extends, b) {
                    (Some(ext), Some(b)) if depth > MAX_EXTENDS_DEPTH => {
                        let root = b.ancestors.last().unwrap_or(&b.name.value);
                        diags.push(
                            Diagnostic::error(
                                sp(*fid, ext).span,
                                format!(
                                    "`extends` chain too deep: `{}` would be {depth} levels below `{root}`, more than the {MAX_EXTENDS_DEPTH} allowed",
                                    file.name.value
                                ),
                            )
                            .label(format!("level {depth}"))
                            .note("help: let this map extend one nearer the root of the chain"),
                        );
                        None
                    }
                    (_, b) => {
                        let before = diags.len();
                        let map = overlay(*fid, file, b, diags);
                        (diags.len() == before).then_some(map)
                    }
                }
            }
        };
        done.insert(k, result.clone());
        base = result.map(Some).ok_or(());
    }
    base.ok().flatten()
}

/// Suggests the closest of `names` to `wanted`, if close enough.
pub fn suggest<'a>(wanted: &str, names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    names
        .map(|n| (edit_distance(wanted, n), n))
        .filter(|(d, n)| *d <= 2.max(wanted.len() / 3) && *d < n.len().max(wanted.len()))
        .min()
        .map(|(_, n)| n)
}

fn missing_override(
    kind: &str,
    name: &Sp<String>,
    parent: &str,
    base: &str,
    siblings: Vec<&str>,
    needs: &str,
) -> Diagnostic {
    let mut d = Diagnostic::error(
        name.span,
        format!("{kind} `{}` overrides nothing: {parent} has no {kind} of that name in `{base}`", name.value),
    )
    .label(format!("a new {kind} needs `{needs}`"));
    if let Some(s) = suggest(&name.value, siblings.into_iter()) {
        d = d.note(format!("help: did you mean `{s}`?"));
    }
    d
}

fn overlay(fid: FileId, file: &ast::File, base: Option<Map>, diags: &mut Vec<Diagnostic>) -> Map {
    let base_name = base.as_ref().map(|b| b.name.value.clone()).unwrap_or_default();
    let mut map = match base {
        Some(b) => {
            let mut ancestors = vec![b.name.value.clone()];
            ancestors.extend(b.ancestors.iter().cloned());
            Map {
                name: sp(fid, &file.name),
                file: fid,
                is_abstract: file.is_abstract,
                ancestors,
                description: b.description,
                spaces: b.spaces,
                descriptors: b.descriptors,
                compatible: Vec::new(),
                soc_span: None,
                caps: b.caps,
                removed: Vec::new(),
            }
        }
        None => Map {
            name: sp(fid, &file.name),
            file: fid,
            is_abstract: file.is_abstract,
            ancestors: Vec::new(),
            description: String::new(),
            spaces: Vec::new(),
            descriptors: Vec::new(),
            compatible: Vec::new(),
            soc_span: None,
            caps: Caps::default(),
            removed: Vec::new(),
        },
    };
    if file.description.is_some() {
        map.description = desc(&file.description);
    }
    let base_label = if base_name.is_empty() { map.name.value.clone() } else { base_name };
    apply_removals(fid, file, &mut map, &base_label, diags);
    for (name, s) in file.spaces.iter() {
        let name = sp(fid, name);
        let space = match map.spaces.iter_mut().find(|x| x.name.value == name.value) {
            Some(x) => x,
            None => {
                map.spaces.push(Space { name: name.clone(), description: String::new(), dt: None, blocks: Vec::new() });
                map.spaces.last_mut().expect("just pushed")
            }
        };
        if s.description.is_some() {
            space.description = desc(&s.description);
        }
        if let Some(dt) = &s.dt {
            space.dt = Some(inn(fid, dt));
        }
        overlay_blocks(fid, &s.blocks, space, &base_label, diags);
    }
    overlay_descriptors(fid, &file.descriptors, &mut map.descriptors, &base_label, diags);
    if let Some(soc) = &file.soc {
        map.soc_span = Some(Span::from_location(fid, &soc.referenced));
        if let Some(c) = &soc.value.compatible {
            map.compatible = c.iter().map(|s| sp(fid, s)).collect();
        }
        overlay_caps(fid, &soc.value.capabilities, &mut map.caps);
    }
    map
}

/// Drops the inherited items `file.remove` names from `map` (the resolved base so far). A path
/// that names nothing in the base, or has the wrong shape, is an error at the path.
fn apply_removals(fid: FileId, file: &ast::File, map: &mut Map, base: &str, diags: &mut Vec<Diagnostic>) {
    if file.remove.is_empty() {
        return;
    }
    if file.extends.is_none() {
        let at = sp(fid, &file.remove[0]).span;
        diags.push(
            Diagnostic::error(at, format!("`{}` removes items but extends no map", file.name.value))
                .label("nothing is inherited, so nothing can be removed")
                .note("help: add `extends: BASE`, or leave the items out of this file"),
        );
        return;
    }
    for path in &file.remove {
        let path = sp(fid, path);
        match remove_one(map, &path, base) {
            Ok(()) => map.removed.push(path),
            Err(d) => diags.push(d),
        }
    }
}

/// "`what` removes nothing: `parent` has no `kind` `name` in `base`", with a suggestion.
fn removes_nothing(
    path: &Sp<String>,
    kind: &str,
    name: &str,
    parent: &str,
    base: &str,
    siblings: Vec<&str>,
) -> Diagnostic {
    let mut d = Diagnostic::error(
        path.span,
        format!("`remove: {}` removes nothing: {parent} has no {kind} `{name}` in `{base}`", path.value),
    )
    .label(format!("no such {kind} is inherited"));
    if let Some(s) = suggest(name, siblings.into_iter()) {
        d = d.note(format!("help: did you mean `{s}`?"));
    }
    d
}

fn remove_one(map: &mut Map, path: &Sp<String>, base: &str) -> Result<(), Diagnostic> {
    let parts: Vec<&str> = path.value.split('.').collect();
    let shape = || {
        Diagnostic::error(path.span, format!("`remove: {}` is not a path this language removes", path.value))
            .label("expected `space.block`, `space.block.register`, `space.block.register.field`, `descriptors.layout`, `descriptors.layout.field` or `capabilities.name`")
    };
    match parts.as_slice() {
        ["capabilities", name] => {
            let Some(i) = CAPABILITY_NAMES.iter().position(|c| c == name) else {
                let mut d =
                    Diagnostic::error(path.span, format!("`remove: {}`: there is no capability `{name}`", path.value))
                        .label("not a capability name");
                if let Some(s) = suggest(name, CAPABILITY_NAMES.iter().copied()) {
                    d = d.note(format!("help: did you mean `{s}`?"));
                }
                return Err(d);
            };
            let c = &mut map.caps;
            let had = match i {
                0 => c.rx_checksum.take().is_some(),
                1 => c.tx_queues.take().is_some(),
                2 => c.rx_rings.take().is_some(),
                3 => c.hw_lro.take().is_some(),
                4 => c.irq.take().is_some(),
                5 => c.tx_descriptor.take().is_some(),
                6 => c.rx_descriptor.take().is_some(),
                7 => c.rings.take().is_some(),
                8 => c.cold_reset.take().is_some(),
                9 => c.shaper.take().is_some(),
                10 => c.macs.take().is_some(),
                11 => c.clocks.take().is_some(),
                _ => c.path_setup.take().is_some(),
            };
            if had { Ok(()) } else { Err(removes_nothing(path, "capability", name, "the map", base, Vec::new())) }
        }
        ["descriptors", layout, rest @ ..] if rest.len() <= 1 => {
            let names = map.descriptors.iter().map(|d| d.name.value.as_str()).collect();
            let Some(i) = map.descriptors.iter().position(|d| d.name.value == *layout) else {
                return Err(removes_nothing(path, "descriptor layout", layout, "the map", base, names));
            };
            match rest {
                [] => {
                    map.descriptors.remove(i);
                    Ok(())
                }
                [field] => {
                    let d = &mut map.descriptors[i];
                    match d.fields.iter().position(|f| f.name.value == *field) {
                        Some(j) => {
                            d.fields.remove(j);
                            Ok(())
                        }
                        None => {
                            let sib = d.fields.iter().map(|f| f.name.value.as_str()).collect();
                            Err(removes_nothing(path, "field", field, &format!("layout `{layout}`"), base, sib))
                        }
                    }
                }
                _ => Err(shape()),
            }
        }
        [space, block, rest @ ..] if rest.len() <= 2 && !space.is_empty() => {
            let Some(si) = map.spaces.iter().position(|s| s.name.value == *space) else {
                let spaces = map.spaces.iter().map(|s| s.name.value.as_str()).collect();
                return Err(removes_nothing(path, "space", space, "the map", base, spaces));
            };
            let s = &mut map.spaces[si];
            let blocks = s.blocks.iter().map(|b| b.name.value.as_str()).collect();
            let Some(bi) = s.blocks.iter().position(|b| b.name.value == *block) else {
                return Err(removes_nothing(path, "block", block, &format!("space `{space}`"), base, blocks));
            };
            let Some(reg) = rest.first() else {
                s.blocks.remove(bi);
                return Ok(());
            };
            let b = &mut s.blocks[bi];
            let regs = b.registers.iter().map(|r| r.name.value.as_str()).collect();
            let Some(ri) = b.registers.iter().position(|r| r.name.value == *reg) else {
                return Err(removes_nothing(path, "register", reg, &format!("block `{block}`"), base, regs));
            };
            let Some(field) = rest.get(1) else {
                b.registers.remove(ri);
                return Ok(());
            };
            let r = &mut b.registers[ri];
            let fields = r.fields.iter().map(|f| f.name.value.as_str()).collect();
            let Some(fi) = r.fields.iter().position(|f| f.name.value == *field) else {
                return Err(removes_nothing(path, "field", field, &format!("register `{block}.{reg}`"), base, fields));
            };
            r.fields.remove(fi);
            Ok(())
        }
        _ => Err(shape()),
    }
}

fn overlay_blocks(fid: FileId, blocks: &Named<ast::Block>, space: &mut Space, base: &str, diags: &mut Vec<Diagnostic>) {
    for (name, b) in blocks.iter() {
        let name = sp(fid, name);
        let idx = space.blocks.iter().position(|x| x.name.value == name.value);
        let block = match idx {
            Some(i) => &mut space.blocks[i],
            None => match &b.base {
                Some(bs) => {
                    space.blocks.push(Block {
                        name: name.clone(),
                        base: sp(fid, bs),
                        array: None,
                        description: String::new(),
                        registers: Vec::new(),
                    });
                    space.blocks.last_mut().expect("just pushed")
                }
                None => {
                    let siblings = space.blocks.iter().map(|x| x.name.value.as_str()).collect();
                    diags.push(missing_override(
                        "block",
                        &name,
                        &format!("space `{}`", space.name.value),
                        base,
                        siblings,
                        "base",
                    ));
                    continue;
                }
            },
        };
        if let Some(bs) = &b.base {
            block.base = sp(fid, bs);
        }
        if let Some(a) = &b.array {
            block.array = Some(array(fid, a));
        }
        if b.description.is_some() {
            block.description = desc(&b.description);
        }
        overlay_registers(fid, &b.registers, block, base, diags);
    }
}

fn array(fid: FileId, a: &Spanned<ast::Array>) -> Array {
    Array {
        count: sp(fid, &a.value.count),
        stride: sp(fid, &a.value.stride),
        span: Span::from_location(fid, &a.referenced),
    }
}

fn overlay_registers(
    fid: FileId,
    regs: &Named<ast::Register>,
    block: &mut Block,
    base: &str,
    diags: &mut Vec<Diagnostic>,
) {
    for (name, r) in regs.iter() {
        let name = sp(fid, name);
        let idx = block.registers.iter().position(|x| x.name.value == name.value);
        let reg = match idx {
            Some(i) => &mut block.registers[i],
            None => match &r.offset {
                Some(off) => {
                    block.registers.push(Register {
                        name: name.clone(),
                        offset: sp(fid, off),
                        access: Sp::new(Access::Rw, name.span),
                        reset: Sp::new(0, name.span),
                        array: None,
                        description: String::new(),
                        fields: Vec::new(),
                    });
                    block.registers.last_mut().expect("just pushed")
                }
                None => {
                    let siblings = block.registers.iter().map(|x| x.name.value.as_str()).collect();
                    diags.push(missing_override(
                        "register",
                        &name,
                        &format!("block `{}`", block.name.value),
                        base,
                        siblings,
                        "offset",
                    ));
                    continue;
                }
            },
        };
        if let Some(o) = &r.offset {
            reg.offset = sp(fid, o);
        }
        if let Some(a) = &r.access {
            reg.access = sp(fid, a);
        }
        if let Some(v) = &r.reset {
            reg.reset = sp(fid, v);
        }
        if let Some(a) = &r.array {
            reg.array = Some(array(fid, a));
        }
        if r.description.is_some() {
            reg.description = desc(&r.description);
        }
        for (fname, f) in r.fields.iter() {
            let fname = sp(fid, fname);
            let fidx = reg.fields.iter().position(|x| x.name.value == fname.value);
            let field = match fidx {
                Some(i) => &mut reg.fields[i],
                None => match &f.bits {
                    Some(bits) => {
                        reg.fields.push(Field {
                            name: fname.clone(),
                            bits: sp(fid, bits),
                            access_written: None,
                            description: String::new(),
                            values: Vec::new(),
                            array: None,
                        });
                        reg.fields.last_mut().expect("just pushed")
                    }
                    None => {
                        let siblings = reg.fields.iter().map(|x| x.name.value.as_str()).collect();
                        diags.push(missing_override(
                            "field",
                            &fname,
                            &format!("register `{}`", reg.name.value),
                            base,
                            siblings,
                            "bits",
                        ));
                        continue;
                    }
                },
            };
            if let Some(b) = &f.bits {
                field.bits = sp(fid, b);
            }
            if let Some(a) = &f.access {
                field.access_written = Some(sp(fid, a));
            }
            if let Some(a) = &f.array {
                field.array = Some(array(fid, a));
            }
            if f.description.is_some() {
                field.description = desc(&f.description);
            }
            if let Some(vals) = &f.values {
                field.values = vals.iter().map(|(k, v)| (sp(fid, k), sp(fid, v))).collect();
            }
        }
    }
}

fn overlay_descriptors(
    fid: FileId,
    descs: &Named<ast::Descriptor>,
    out: &mut Vec<Descriptor>,
    base: &str,
    diags: &mut Vec<Diagnostic>,
) {
    for (name, d) in descs.iter() {
        let name = sp(fid, name);
        let idx = out.iter().position(|x| x.name.value == name.value);
        let layout = match idx {
            Some(i) => &mut out[i],
            None => match &d.size {
                Some(size) => {
                    out.push(Descriptor {
                        name: name.clone(),
                        size: sp(fid, size),
                        description: String::new(),
                        fields: Vec::new(),
                    });
                    out.last_mut().expect("just pushed")
                }
                None => {
                    let siblings = out.iter().map(|x| x.name.value.as_str()).collect();
                    diags.push(missing_override("descriptor", &name, "the map", base, siblings, "size"));
                    continue;
                }
            },
        };
        if let Some(s) = &d.size {
            layout.size = sp(fid, s);
        }
        if d.description.is_some() {
            layout.description = desc(&d.description);
        }
        for (fname, f) in d.fields.iter() {
            let fname = sp(fid, fname);
            let fidx = layout.fields.iter().position(|x| x.name.value == fname.value);
            match (fidx, &f.word, &f.bits) {
                (Some(i), _, _) => {
                    let field = &mut layout.fields[i];
                    if let Some(w) = &f.word {
                        field.word = sp(fid, w);
                    }
                    if let Some(b) = &f.bits {
                        field.bits = sp(fid, b);
                    }
                    if f.description.is_some() {
                        field.description = desc(&f.description);
                    }
                }
                (None, Some(w), Some(b)) => layout.fields.push(DescField {
                    name: fname,
                    word: sp(fid, w),
                    bits: sp(fid, b),
                    description: desc(&f.description),
                }),
                (None, _, _) => {
                    let siblings = layout.fields.iter().map(|x| x.name.value.as_str()).collect();
                    diags.push(missing_override(
                        "descriptor field",
                        &fname,
                        &format!("layout `{}`", layout.name.value),
                        base,
                        siblings,
                        "word` and `bits",
                    ));
                }
            }
        }
    }
}

fn overlay_caps(fid: FileId, c: &ast::Capabilities, caps: &mut Caps) {
    macro_rules! take {
        ($($f:ident),*) => {$(
            if let Some(v) = &c.$f {
                caps.$f = Some(inn(fid, v));
            }
        )*};
    }
    take!(
        rx_checksum,
        tx_queues,
        rx_rings,
        hw_lro,
        irq,
        tx_descriptor,
        rx_descriptor,
        rings,
        cold_reset,
        shaper,
        macs,
        clocks,
        path_setup
    );
}

/// Re-exported for passes that need a field's mask.
pub use model::mask;
