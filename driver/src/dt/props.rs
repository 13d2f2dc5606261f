//! Reading property values: cells, string lists, `reg`, `status`.

use super::board::Region;
use super::error::{ProbeError, ProbeErrorKind};
use super::path::NodePath;
use fdt::node::FdtNode;

/// A property value holding exactly one cell.
#[must_use]
pub fn u32_value(v: &[u8]) -> Option<u32> {
    (v.len() == 4).then(|| u32::from_be_bytes([v[0], v[1], v[2], v[3]]))
}

/// The cells of a value (its length must be a multiple of 4; extra bytes are ignored).
pub fn cells(v: &[u8]) -> impl Iterator<Item = u32> + '_ {
    v.chunks_exact(4).map(|c| u32::from_be_bytes([c[0], c[1], c[2], c[3]]))
}

/// A required one-cell property.
pub fn read_u32<'a>(node: &FdtNode<'_, 'a>, path: NodePath<'a>, name: &'a str) -> Result<u32, ProbeError<'a>> {
    let p = node.property(name).ok_or(ProbeError::at(path, Some(name), ProbeErrorKind::MissingProperty))?;
    u32_value(p.value).ok_or(ProbeError::at(path, Some(name), ProbeErrorKind::BadValue("expected one 32-bit cell")))
}

/// An optional one-cell property.
pub fn opt_u32<'a>(node: &FdtNode<'_, 'a>, path: NodePath<'a>, name: &'a str) -> Result<Option<u32>, ProbeError<'a>> {
    match node.property(name) {
        None => Ok(None),
        Some(p) => u32_value(p.value).map(Some).ok_or(ProbeError::at(
            path,
            Some(name),
            ProbeErrorKind::BadValue("expected one 32-bit cell"),
        )),
    }
}

/// The strings of a string-list value; `None` if any is not NUL-terminated UTF-8.
pub fn strings(v: &[u8]) -> Option<impl Iterator<Item = &str> + '_> {
    if v.last() != Some(&0) {
        return None;
    }
    let body = &v[..v.len() - 1];
    core::str::from_utf8(body).ok()?;
    Some(body.split(|&b| b == 0).map(|s| core::str::from_utf8(s).unwrap_or("")))
}

/// An optional single-string property.
pub fn opt_str<'a>(
    node: &FdtNode<'_, 'a>,
    path: NodePath<'a>,
    name: &'a str,
) -> Result<Option<&'a str>, ProbeError<'a>> {
    match node.property(name) {
        None => Ok(None),
        Some(p) => {
            let mut it = strings(p.value).ok_or(ProbeError::at(path, Some(name), ProbeErrorKind::BadString))?;
            Ok(it.next())
        }
    }
}

/// Whether `status` is absent, `"okay"` or `"ok"`.
pub fn enabled<'a>(node: &FdtNode<'_, 'a>, path: NodePath<'a>) -> Result<bool, ProbeError<'a>> {
    Ok(matches!(opt_str(node, path, "status")?, None | Some("okay") | Some("ok")))
}

/// `#address-cells` and `#size-cells` of `parent` (defaults 2 and 1), each 1 or 2 here.
pub fn cell_sizes<'a>(parent: Option<&FdtNode<'_, 'a>>, path: NodePath<'a>) -> Result<(u32, u32), ProbeError<'a>> {
    let Some(parent) = parent else { return Ok((2, 1)) };
    let a = opt_u32(parent, path, "#address-cells")?.unwrap_or(2);
    let s = opt_u32(parent, path, "#size-cells")?.unwrap_or(1);
    Ok((a, s))
}

fn join(cells: &mut impl Iterator<Item = u32>, n: u32) -> u64 {
    (0..n).fold(0u64, |acc, _| (acc << 32) | u64::from(cells.next().unwrap_or(0)))
}

/// The first `reg` entry, decoded with the parent's cell sizes (address 1 or 2 cells, size 0..2).
pub fn read_reg<'a>(
    node: &FdtNode<'_, 'a>,
    parent: Option<&FdtNode<'_, 'a>>,
    path: NodePath<'a>,
) -> Result<Region, ProbeError<'a>> {
    let (ac, sc) = cell_sizes(parent, path)?;
    if !(1..=2).contains(&ac) {
        return Err(ProbeError::at(path, Some("#address-cells"), ProbeErrorKind::BadCells { value: ac }));
    }
    if sc > 2 {
        return Err(ProbeError::at(path, Some("#size-cells"), ProbeErrorKind::BadCells { value: sc }));
    }
    let p = node.property("reg").ok_or(ProbeError::at(path, Some("reg"), ProbeErrorKind::MissingProperty))?;
    let entry = 4 * (ac + sc) as usize;
    if p.value.is_empty() || p.value.len() % entry != 0 {
        return Err(ProbeError::at(
            path,
            Some("reg"),
            ProbeErrorKind::BadValue("length is not a whole number of (address, size) entries"),
        ));
    }
    let mut it = cells(p.value);
    let base = join(&mut it, ac);
    let size = join(&mut it, sc);
    Ok(Region { base, size })
}

/// The node a one-cell phandle property points at, with its path and parent.
/// The node phandle `index` of property `name` names (a list of bare phandles, as syscon
/// lists are), with its path and parent; `None` when the property is absent or shorter.
pub fn phandle_target_at<'t, 'a>(
    tree: &'t super::walk::Tree<'a>,
    node: &FdtNode<'_, 'a>,
    path: NodePath<'a>,
    name: &'a str,
    index: usize,
) -> Result<Option<(NodePath<'a>, FdtNode<'t, 'a>, Option<FdtNode<'t, 'a>>)>, ProbeError<'a>> {
    let Some(p) = node.property(name) else { return Ok(None) };
    let Some(ph) = cells(p.value).nth(index) else { return Ok(None) };
    match tree.by_phandle(ph) {
        Some(t) => Ok(Some(t)),
        None => Err(ProbeError::at(path, Some(name), ProbeErrorKind::DanglingPhandle(ph))),
    }
}

/// The node the first phandle of property `name` names, with its path and parent.
pub fn phandle_target<'t, 'a>(
    tree: &'t super::walk::Tree<'a>,
    node: &FdtNode<'_, 'a>,
    path: NodePath<'a>,
    name: &'a str,
) -> Result<Option<(NodePath<'a>, FdtNode<'t, 'a>, Option<FdtNode<'t, 'a>>)>, ProbeError<'a>> {
    let Some(p) = node.property(name) else { return Ok(None) };
    // A phandle may be followed by specifier cells (`<&sysc 3>`); the first cell is the phandle.
    let ph = cells(p.value).next().ok_or(ProbeError::at(
        path,
        Some(name),
        ProbeErrorKind::BadValue("expected a phandle"),
    ))?;
    match tree.by_phandle(ph) {
        Some(t) => Ok(Some(t)),
        None => Err(ProbeError::at(path, Some(name), ProbeErrorKind::DanglingPhandle(ph))),
    }
}
