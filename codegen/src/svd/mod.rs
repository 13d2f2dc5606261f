//! `ddgen svd`: a map as CMSIS-SVD (schema 1.3), the format vendor tools and `svd2rust` take.
//!
//! Each block becomes a peripheral (named `space_block` when the map has more than one address
//! space); a block array becomes one peripheral per element, the later ones `derivedFrom` the
//! first. Registers keep their offset, access, reset value and description; a register array
//! becomes a `dim` register (`name[%s]`); fields keep their bit range, access and named values
//! (`enumeratedValues`). Addresses are relative to each space's base: the frame engine's address
//! comes from the device tree, so every space starts at 0 unless `--base SPACE=ADDR` says otherwise.

use crate::ast::Access;
use crate::model::{Block, Field, Map, Register};
use std::collections::HashMap;
use std::fmt::Write;

/// Escapes text for XML content.
fn x(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// SVD `access`, plus the `modifiedWriteValues` / `readAction` an access kind implies.
fn access(a: Access) -> (&'static str, Option<&'static str>, Option<&'static str>) {
    match a {
        Access::Ro => ("read-only", None, None),
        Access::Wo => ("write-only", None, None),
        Access::Rw => ("read-write", None, None),
        Access::W1c => ("read-write", Some("oneToClear"), None),
        Access::Rc => ("read-only", None, Some("clear")),
    }
}

fn access_xml(out: &mut String, indent: &str, a: Access) {
    let (acc, mwv, ra) = access(a);
    let _ = writeln!(out, "{indent}<access>{acc}</access>");
    if let Some(m) = mwv {
        let _ = writeln!(out, "{indent}<modifiedWriteValues>{m}</modifiedWriteValues>");
    }
    if let Some(r) = ra {
        let _ = writeln!(out, "{indent}<readAction>{r}</readAction>");
    }
}

fn description(out: &mut String, indent: &str, d: &str, fallback: &str) {
    let d = if d.trim().is_empty() { fallback } else { d.trim() };
    // One line: SVD consumers put descriptions in doc comments and headers.
    let d: String = d.split_whitespace().collect::<Vec<_>>().join(" ");
    let _ = writeln!(out, "{indent}<description>{}</description>", x(&d));
}

fn field(out: &mut String, f: &Field, r: &Register) {
    let i = "            ";
    let _ = writeln!(out, "{i}<field>");
    // A field array is a `dim` field (`dimIncrement` in bits); `name%s` gives the elements the
    // names `name0`, `name1`, ...
    let name = match &f.array {
        Some(a) => {
            let _ = writeln!(out, "{i}  <dim>{}</dim>", a.count.value);
            let _ = writeln!(out, "{i}  <dimIncrement>{}</dimIncrement>", a.stride.value);
            format!("{}%s", f.name.value)
        }
        None => f.name.value.clone(),
    };
    let _ = writeln!(out, "{i}  <name>{}</name>", x(&name));
    description(out, &format!("{i}  "), &f.description, &f.name.value);
    let _ = writeln!(out, "{i}  <bitOffset>{}</bitOffset>", f.bits.value.lsb);
    let _ = writeln!(out, "{i}  <bitWidth>{}</bitWidth>", f.bits.value.width);
    access_xml(out, &format!("{i}  "), f.access(r));
    if !f.values.is_empty() {
        let _ = writeln!(out, "{i}  <enumeratedValues>");
        for (n, v) in &f.values {
            let _ = writeln!(
                out,
                "{i}    <enumeratedValue><name>{}</name><description>{}</description><value>{}</value></enumeratedValue>",
                x(&n.value),
                x(&n.value),
                v.value
            );
        }
        let _ = writeln!(out, "{i}  </enumeratedValues>");
    }
    let _ = writeln!(out, "{i}</field>");
}

fn register(out: &mut String, r: &Register) {
    let i = "        ";
    let _ = writeln!(out, "{i}<register>");
    let name = match &r.array {
        Some(a) => {
            let _ = writeln!(out, "{i}  <dim>{}</dim>", a.count.value);
            let _ = writeln!(out, "{i}  <dimIncrement>0x{:x}</dimIncrement>", a.stride.value);
            format!("{}[%s]", r.name.value)
        }
        None => r.name.value.clone(),
    };
    let _ = writeln!(out, "{i}  <name>{}</name>", x(&name));
    description(out, &format!("{i}  "), &r.description, &r.name.value);
    let _ = writeln!(out, "{i}  <addressOffset>0x{:x}</addressOffset>", r.offset.value);
    // Schema order: size, access, resetValue, then modifiedWriteValues and readAction.
    let (acc, mwv, ra) = access(r.access.value);
    let _ = writeln!(out, "{i}  <size>32</size>");
    let _ = writeln!(out, "{i}  <access>{acc}</access>");
    let _ = writeln!(out, "{i}  <resetValue>0x{:08x}</resetValue>", r.reset.value);
    if let Some(m) = mwv {
        let _ = writeln!(out, "{i}  <modifiedWriteValues>{m}</modifiedWriteValues>");
    }
    if let Some(r) = ra {
        let _ = writeln!(out, "{i}  <readAction>{r}</readAction>");
    }
    if !r.fields.is_empty() {
        let _ = writeln!(out, "{i}  <fields>");
        let mut fields: Vec<&Field> = r.fields.iter().collect();
        fields.sort_by_key(|f| f.bits.value.lsb);
        for f in fields {
            field(out, f, r);
        }
        let _ = writeln!(out, "{i}  </fields>");
    }
    let _ = writeln!(out, "{i}</register>");
}

/// Bytes the block's registers span (its `addressBlock` size), rounded up to 4.
fn block_size(b: &Block) -> u64 {
    let end = b
        .registers
        .iter()
        .map(|r| {
            r.offset
                .value
                .saturating_add(
                    r.array.as_ref().map_or(0, |a| a.stride.value.saturating_mul(a.count.value.saturating_sub(1))),
                )
                .saturating_add(4)
        })
        .max()
        .unwrap_or(4);
    end.div_ceil(4).saturating_mul(4)
}

/// The SVD text of `m`; `bases` gives a space's base address (absent: 0).
pub fn to_svd(m: &Map, bases: &HashMap<String, u64>) -> String {
    let mut o = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    o += "<device schemaVersion=\"1.3\" xmlns:xs=\"http://www.w3.org/2001/XMLSchema-instance\" xs:noNamespaceSchemaLocation=\"CMSIS-SVD.xsd\">\n";
    o += "  <vendor>MediaTek</vendor>\n";
    let _ = writeln!(o, "  <name>{}</name>", x(&m.name.value.to_uppercase()));
    let _ = writeln!(o, "  <version>{}</version>", env!("CARGO_PKG_VERSION"));
    description(&mut o, "  ", &m.description, &m.name.value);
    o += "  <addressUnitBits>8</addressUnitBits>\n  <width>32</width>\n  <size>32</size>\n  <access>read-write</access>\n  <resetValue>0x00000000</resetValue>\n  <resetMask>0xffffffff</resetMask>\n  <peripherals>\n";
    let multi = m.spaces.len() > 1;
    for s in &m.spaces {
        let space_base = bases.get(&s.name.value).copied().unwrap_or(0);
        for b in &s.blocks {
            let pname = if multi { format!("{}_{}", s.name.value, b.name.value) } else { b.name.value.clone() };
            let (count, stride) = b.array.as_ref().map_or((1, 0), |a| (a.count.value, a.stride.value));
            for k in 0..count {
                let addr = space_base.saturating_add(b.base.value).saturating_add(k.saturating_mul(stride));
                let name = if b.array.is_some() { format!("{pname}{k}") } else { pname.clone() };
                if k > 0 {
                    let _ = writeln!(
                        o,
                        "    <peripheral derivedFrom=\"{}\">\n      <name>{}</name>\n      <baseAddress>0x{addr:08x}</baseAddress>\n    </peripheral>",
                        x(&format!("{pname}0")),
                        x(&name)
                    );
                    continue;
                }
                let _ = writeln!(o, "    <peripheral>\n      <name>{}</name>", x(&name));
                let fallback = format!("{} block {} (space {})", m.name.value, b.name.value, s.name.value);
                description(&mut o, "      ", &b.description, &fallback);
                let _ = writeln!(o, "      <groupName>{}</groupName>", x(&s.name.value));
                let _ = writeln!(o, "      <baseAddress>0x{addr:08x}</baseAddress>");
                let _ = writeln!(
                    o,
                    "      <addressBlock>\n        <offset>0x0</offset>\n        <size>0x{:x}</size>\n        <usage>registers</usage>\n      </addressBlock>",
                    block_size(b)
                );
                if !b.registers.is_empty() {
                    o += "      <registers>\n";
                    let mut regs: Vec<&Register> = b.registers.iter().collect();
                    regs.sort_by_key(|r| r.offset.value);
                    for r in regs {
                        register(&mut o, r);
                    }
                    o += "      </registers>\n";
                }
                o += "    </peripheral>\n";
            }
        }
    }
    o += "  </peripherals>\n</device>\n";
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAP: &str = "
name: t
abstract: true
description: test & <map>
spaces:
  fe:
    blocks:
      dma:
        base: 0x100
        array: {count: 2, stride: 0x40}
        registers:
          cfg:
            offset: 0x4
            access: rw
            reset: 0x5
            fields:
              en: {bits: 0, description: enable}
              mode: {bits: '3:2', enum: {slow: 0, fast: 1}}
      irq:
        base: 0x200
        registers:
          sta:
            offset: 0x8
            access: w1c
            array: {count: 4, stride: 4}
";

    #[test]
    fn blocks_registers_fields_and_arrays() {
        let p = crate::load_texts(&[("t.yaml", MAP)]).unwrap_or_else(|r| panic!("{}", r.render()));
        let m = p.map("t").expect("map t");
        let s = to_svd(m, &HashMap::from([("fe".to_string(), 0x1000)]));
        for want in [
            "<name>dma0</name>",
            "<peripheral derivedFrom=\"dma0\">",
            "<baseAddress>0x00001140</baseAddress>",
            "<name>sta[%s]</name>",
            "<dim>4</dim>",
            "<modifiedWriteValues>oneToClear</modifiedWriteValues>",
            "<resetValue>0x00000005</resetValue>",
            "<bitOffset>2</bitOffset>",
            "<name>fast</name>",
            "test &amp; &lt;map&gt;",
        ] {
            assert!(s.contains(want), "{want} missing in\n{s}");
        }
    }
}
