//! Structural check of a DTB before anything reads it: header, blocks, and the token stream.
//!
//! After [`check`] succeeds, every offset, length, name and string in the blob is in bounds and
//! well-formed, so the `fdt` crate's readers (which assert on malformed input) cannot fail.

use super::error::{ProbeError, ProbeErrorKind};

pub use super::path::MAX_DEPTH;

const MAGIC: u32 = 0xd00d_feed;
const BEGIN_NODE: u32 = 1;
const END_NODE: u32 = 2;
const PROP: u32 = 3;
const NOP: u32 = 4;
const END: u32 = 9;

fn be32(data: &[u8], off: usize) -> Option<u32> {
    let b = data.get(off..off.checked_add(4)?)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

fn align4(n: usize) -> usize {
    (n + 3) & !3
}

/// The parts of the header the probe uses.
#[derive(Clone, Copy, Debug)]
pub struct Header {
    /// `totalsize`.
    pub total: usize,
    /// Structure block offset.
    pub off_struct: usize,
    /// Structure block size.
    pub size_struct: usize,
    /// Strings block offset.
    pub off_strings: usize,
    /// Strings block size.
    pub size_strings: usize,
}

/// Checks the whole blob; returns its header.
pub fn check(data: &[u8]) -> Result<Header, ProbeError<'static>> {
    let err = |k| Err(ProbeError::blob(k));
    if data.len() < 40 {
        return err(ProbeErrorKind::Truncated { need: 40, have: data.len() });
    }
    let w = |i: usize| be32(data, i * 4).unwrap_or(0);
    if w(0) != MAGIC {
        return err(ProbeErrorKind::BadMagic(w(0)));
    }
    let total = w(1) as usize;
    let (off_struct, off_strings, off_rsv) = (w(2) as usize, w(3) as usize, w(4) as usize);
    let (version, last_comp) = (w(5), w(6));
    let (size_strings, size_struct) = (w(8) as usize, w(9) as usize);
    if total > data.len() {
        return err(ProbeErrorKind::Truncated { need: total, have: data.len() });
    }
    if total < 40 {
        return err(ProbeErrorKind::BadLayout("totalsize is smaller than the header"));
    }
    if version < 16 || last_comp > 17 {
        return err(ProbeErrorKind::UnsupportedVersion { version, last_comp });
    }
    let within = |off: usize, size: usize| off.checked_add(size).is_some_and(|end| end <= total);
    if off_struct % 4 != 0 || !within(off_struct, size_struct) {
        return err(ProbeErrorKind::BadLayout("structure block lies outside the blob or is misaligned"));
    }
    if !within(off_strings, size_strings) {
        return err(ProbeErrorKind::BadLayout("strings block lies outside the blob"));
    }
    if off_rsv % 8 != 0 || !within(off_rsv, 16) {
        return err(ProbeErrorKind::BadLayout("memory reservation map lies outside the blob or is misaligned"));
    }
    let header = Header { total, off_struct, size_struct, off_strings, size_strings };
    check_structure(&data[off_struct..off_struct + size_struct], &data[off_strings..off_strings + size_strings])?;
    Ok(header)
}

fn bad(what: &'static str, offset: usize) -> ProbeError<'static> {
    ProbeError::blob(ProbeErrorKind::BadStructure { what, offset })
}

/// A NUL-terminated UTF-8 string starting at `off`; returns its length without the NUL.
fn cstr(block: &[u8], off: usize) -> Option<usize> {
    let rest = block.get(off..)?;
    let n = rest.iter().position(|&b| b == 0)?;
    core::str::from_utf8(&rest[..n]).ok()?;
    Some(n)
}

/// Where a node is in its body: properties come first, then children.
#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Props,
    Children,
}

fn check_structure(s: &[u8], strings: &[u8]) -> Result<(), ProbeError<'static>> {
    let mut off = 0usize;
    let mut phases = [Phase::Props; MAX_DEPTH + 1];
    let mut depth = 0usize;
    let mut seen_root = false;
    loop {
        let tok = be32(s, off).ok_or_else(|| bad("structure block ends without FDT_END", off))?;
        let at = off;
        off += 4;
        match tok {
            BEGIN_NODE => {
                if depth == 0 && seen_root {
                    return Err(bad("a second root node", at));
                }
                if depth > 0 {
                    phases[depth] = Phase::Children;
                }
                let n = cstr(s, off).ok_or_else(|| bad("node name is not NUL-terminated UTF-8", off))?;
                if depth == 0 && n != 0 {
                    return Err(bad("the root node has a name", at));
                }
                if depth > 0 && n == 0 {
                    return Err(bad("a node without a name", at));
                }
                off = align4(off + n + 1);
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(ProbeError::blob(ProbeErrorKind::TooDeep));
                }
                phases[depth] = Phase::Props;
                seen_root = true;
            }
            PROP => {
                if depth == 0 {
                    return Err(bad("a property outside any node", at));
                }
                if phases[depth] != Phase::Props {
                    return Err(bad("a property after a child node", at));
                }
                let len = be32(s, off).ok_or_else(|| bad("truncated property header", off))? as usize;
                let nameoff = be32(s, off + 4).ok_or_else(|| bad("truncated property header", off))? as usize;
                off += 8;
                if off.checked_add(len).is_none_or(|end| end > s.len()) {
                    return Err(bad("property value runs past the structure block", at));
                }
                cstr(strings, nameoff).ok_or_else(|| bad("property name is not a NUL-terminated UTF-8 string", at))?;
                off = align4(off + len);
            }
            END_NODE => {
                if depth == 0 {
                    return Err(bad("FDT_END_NODE without a node", at));
                }
                depth -= 1;
            }
            NOP => {
                // Boot loaders and QEMU delete nodes by overwriting them with FDT_NOP
                // (`fdt_nop_node`; QEMU's `virt` does it to the memory nodes of a -dtb tree). The
                // `fdt` crate skips NOPs among the root's children and before any node's end, but
                // asserts on them elsewhere (between properties, among a deeper node's children),
                // so those are refused by name rather than handed to it.
                let mut next = off;
                while be32(s, next) == Some(NOP) {
                    next += 4;
                }
                let follows = be32(s, next).ok_or_else(|| bad("structure block ends without FDT_END", next))?;
                if !(follows == END_NODE || (depth == 1 && follows == BEGIN_NODE)) {
                    return Err(bad("FDT_NOP other than among the root's children or before a node's end", at));
                }
                off = next;
                continue;
            }
            END => {
                if depth != 0 || !seen_root {
                    return Err(bad("FDT_END inside a node or before the root", at));
                }
                return Ok(());
            }
            _ => return Err(bad("unknown token", at)),
        }
    }
}
