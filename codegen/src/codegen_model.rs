//! The union of all concrete SoCs: one entry per space, block and register name, with the
//! SoCs each is present on. The generator emits shared types from it.

use crate::model::{Field, Map, Register};

/// Whether a register is one register or an array (counts are per-SoC data).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RegShape {
    /// The register is repeated.
    pub arrayed: bool,
}

impl RegShape {
    /// The shape of `reg`.
    pub fn of(reg: &Register) -> Self {
        RegShape { arrayed: reg.array.is_some() }
    }
    /// "an array" or "a single register".
    pub fn describe(&self) -> &'static str {
        if self.arrayed { "an array" } else { "a single register" }
    }
}

/// A comparable summary of a register's layout: access and every field with its enum.
pub fn layout_key(reg: &Register) -> String {
    let mut fields: Vec<_> = reg.fields.iter().collect();
    fields.sort_by_key(|f| f.bits.value.lsb);
    let mut s = format!("{};", reg.access.value.keyword());
    for f in fields {
        s += &format!("{}@{}+{}:{}", f.name.value, f.bits.value.lsb, f.bits.value.width, f.access(reg).keyword());
        if let Some(a) = &f.array {
            s += &format!("x{}/{}", a.count.value, a.stride.value);
        }
        for (n, v) in &f.values {
            s += &format!(",{}={}", n.value, v.value);
        }
        s.push(';');
    }
    s
}

/// A space in the union.
#[derive(Debug)]
pub struct USpace<'m> {
    /// Space name.
    pub name: &'m str,
    /// Description (from the first SoC that describes it).
    pub description: &'m str,
    /// Blocks in first-seen order.
    pub blocks: Vec<UBlock<'m>>,
    /// Present on every SoC.
    pub everywhere: bool,
}

/// A block in the union.
#[derive(Debug)]
pub struct UBlock<'m> {
    /// Block name.
    pub name: &'m str,
    /// Description.
    pub description: &'m str,
    /// The block is an array.
    pub arrayed: bool,
    /// Registers in first-seen order.
    pub registers: Vec<UReg<'m>>,
    /// Present on every SoC.
    pub everywhere: bool,
}

/// A register in the union; `reg` is its definition on the first SoC that has it.
#[derive(Debug)]
pub struct UReg<'m> {
    /// The definition (layouts are equal on every SoC, see `layouts_shared`).
    pub reg: &'m Register,
    /// Present on every SoC.
    pub everywhere: bool,
}

/// Builds the union over `socs` (concrete maps only).
pub fn union<'m>(socs: &[&'m Map]) -> Vec<USpace<'m>> {
    let mut spaces: Vec<USpace<'m>> = Vec::new();
    for m in socs {
        for s in &m.spaces {
            let si = match spaces.iter().position(|x| x.name == s.name.value) {
                Some(i) => i,
                None => {
                    spaces.push(USpace {
                        name: &s.name.value,
                        description: &s.description,
                        blocks: Vec::new(),
                        everywhere: true,
                    });
                    spaces.len().saturating_sub(1)
                }
            };
            let us = &mut spaces[si];
            if us.description.is_empty() {
                us.description = &s.description;
            }
            for b in &s.blocks {
                let bi = match us.blocks.iter().position(|x| x.name == b.name.value) {
                    Some(i) => i,
                    None => {
                        us.blocks.push(UBlock {
                            name: &b.name.value,
                            description: &b.description,
                            arrayed: b.array.is_some(),
                            registers: Vec::new(),
                            everywhere: true,
                        });
                        us.blocks.len().saturating_sub(1)
                    }
                };
                let ub = &mut us.blocks[bi];
                if ub.description.is_empty() {
                    ub.description = &b.description;
                }
                for r in &b.registers {
                    if !ub.registers.iter().any(|x| x.reg.name.value == r.name.value) {
                        ub.registers.push(UReg { reg: r, everywhere: true });
                    }
                }
            }
        }
    }
    // Mark what some SoC lacks.
    for us in &mut spaces {
        let space_on = |m: &Map| m.spaces.iter().find(|s| s.name.value == us.name).cloned();
        us.everywhere = socs.iter().all(|m| space_on(m).is_some());
        // "Everywhere" is relative to the SoCs that have the parent: a register of a block that
        // only some SoCs have is not optional inside that block.
        for ub in &mut us.blocks {
            let block_on = |m: &Map| {
                m.spaces
                    .iter()
                    .find(|s| s.name.value == us.name)
                    .and_then(|s| s.blocks.iter().find(|b| b.name.value == ub.name).cloned())
            };
            ub.everywhere = socs.iter().filter(|m| space_on(m).is_some()).all(|m| block_on(m).is_some());
            for ur in &mut ub.registers {
                ur.everywhere = socs
                    .iter()
                    .filter_map(|m| block_on(m))
                    .all(|b| b.registers.iter().any(|r| r.name.value == ur.reg.name.value));
            }
        }
    }
    spaces
}

/// Whether the generated enum of `f` has the `Other(raw)` variant: its names do not cover every
/// value of the field.
pub fn enum_has_other(f: &Field) -> bool {
    let width = f.bits.value.width;
    !(width <= 16 && f.values.len() as u64 == 1u64 << width)
}

/// The name of the variant that keeps values an enum does not name.
pub const OTHER_VARIANT: &str = "Other";

/// `pdma_glo_cfg` -> `PdmaGloCfg`.
pub fn camel(s: &str) -> String {
    let mut out = String::new();
    for part in s.split(|c: char| !c.is_ascii_alphanumeric()).filter(|p| !p.is_empty()) {
        let mut cs = part.chars();
        if let Some(c) = cs.next() {
            out.push(c.to_ascii_uppercase());
            out.extend(cs);
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'V');
    }
    out
}

/// `netsys-v1` -> `netsys_v1`; names that are not identifiers get a prefix.
pub fn snake(s: &str) -> String {
    let mut out: String =
        s.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'r');
        out.insert(1, '_');
    }
    if is_keyword(&out) {
        out.push('_');
    }
    out
}

fn is_keyword(s: &str) -> bool {
    matches!(
        s,
        "as" | "break"
            | "const"
            | "continue"
            | "crate"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "pub"
            | "ref"
            | "return"
            | "self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "type"
            | "unsafe"
            | "use"
            | "where"
            | "while"
            | "async"
            | "await"
            | "dyn"
            | "abstract"
            | "become"
            | "box"
            | "do"
            | "final"
            | "macro"
            | "override"
            | "priv"
            | "typeof"
            | "unsized"
            | "virtual"
            | "yield"
            | "try"
            | "gen"
    )
}
