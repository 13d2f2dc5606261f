//! Node paths for error messages and reports, in 24 bytes and without allocation.
//!
//! A path found by the probe is a reference to the node's name in the blob's structure block;
//! the full path (`/soc/ethernet@15100000/mac@0`) is rebuilt from the blob when it is printed,
//! so a [`super::Board`] holding a dozen paths stays small. A path given by a caller that has
//! no blob (a kernel reading its device tree through the OF API) is the caller's text.

use super::text::Escaped;
use core::fmt;

/// The path of a device-tree node, like `/soc/ethernet@1e100000/mac@0`.
#[derive(Clone, Copy)]
pub struct NodePath<'a> {
    repr: Repr<'a>,
}

#[derive(Clone, Copy)]
enum Repr<'a> {
    /// The root node `/`.
    Root,
    /// A node of a checked structure block: `offset` is where its name starts.
    Blob { structure: &'a [u8], offset: u32 },
    /// A path the caller spelled out.
    Text(&'a str),
}

const BEGIN_NODE: u32 = 1;
const END_NODE: u32 = 2;
const PROP: u32 = 3;
const NOP: u32 = 4;
/// Deepest nesting accepted (real trees are under 10); the blob check refuses deeper trees,
/// and paths are rebuilt for nodes down to it.
pub const MAX_DEPTH: usize = 32;
/// Nodes a path holds: the root and [`MAX_DEPTH`] levels below it.
const MAX_NODES: usize = MAX_DEPTH + 1;

fn be32(s: &[u8], off: usize) -> Option<u32> {
    let b = s.get(off..off.checked_add(4)?)?;
    Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// The NUL-terminated name at `off` (empty when it is not one).
fn name_at(s: &[u8], off: usize) -> &str {
    let rest = s.get(off..).unwrap_or(&[]);
    let n = rest.iter().position(|&b| b == 0).unwrap_or(0);
    core::str::from_utf8(&rest[..n]).unwrap_or("")
}

impl<'a> NodePath<'a> {
    /// The root path `/`.
    #[must_use]
    pub const fn root() -> Self {
        NodePath { repr: Repr::Root }
    }

    /// A path spelled out by the caller (for a board built without a blob), like
    /// `"/ethernet@1e100000/mac@0"`.
    #[must_use]
    pub const fn new(path: &'a str) -> Self {
        NodePath { repr: Repr::Text(path) }
    }

    /// The node whose name is the slice `name` of the structure block `structure` (the root,
    /// whose name is empty, or a name that does not lie in the block, gives `/`).
    #[must_use]
    pub fn in_blob(structure: &'a [u8], name: &'a str) -> Self {
        let start = structure.as_ptr() as usize;
        let at = (name.as_ptr() as usize).wrapping_sub(start);
        match u32::try_from(at) {
            Ok(offset) if !name.is_empty() && at < structure.len() => {
                NodePath { repr: Repr::Blob { structure, offset } }
            }
            _ => NodePath::root(),
        }
    }

    /// The last component (`mac@0`), or `/` for the root.
    #[must_use]
    pub fn name(&self) -> &'a str {
        match self.repr {
            Repr::Root => "/",
            Repr::Blob { structure, offset } => name_at(structure, offset as usize),
            Repr::Text(t) => t.rsplit('/').find(|n| !n.is_empty()).unwrap_or("/"),
        }
    }

    /// Writes the names from the root down to this node, each behind a `/`.
    fn write_blob(f: &mut dyn fmt::Write, s: &[u8], target: u32) -> fmt::Result {
        // Name offsets of the open nodes; entry 0 is the root.
        let mut open = [0u32; MAX_NODES + 1];
        let mut depth = 0usize;
        let mut off = 0usize;
        while let Some(tok) = be32(s, off) {
            off += 4;
            match tok {
                BEGIN_NODE => {
                    let name = name_at(s, off);
                    if depth < open.len() {
                        open[depth] = off as u32;
                    }
                    if off == target as usize {
                        for &o in open.iter().take(depth + 1).skip(1) {
                            f.write_char('/')?;
                            write!(f, "{}", Escaped(name_at(s, o as usize)))?;
                        }
                        return Ok(());
                    }
                    off = (off + name.len() + 1 + 3) & !3;
                    depth += 1;
                }
                END_NODE => depth = depth.saturating_sub(1),
                PROP => {
                    let len = be32(s, off).unwrap_or(0) as usize;
                    off = (off.saturating_add(8).saturating_add(len) + 3) & !3;
                }
                NOP => {}
                _ => break,
            }
        }
        // Not a node of this block: say where it pointed rather than print a wrong path.
        write!(f, "<node at structure offset {target:#x}>")
    }
}

impl PartialEq for NodePath<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self.repr, other.repr) {
            (Repr::Root, Repr::Root) => true,
            (Repr::Blob { structure: a, offset: x }, Repr::Blob { structure: b, offset: y }) if core::ptr::eq(a, b) => {
                x == y
            }
            (Repr::Text(a), Repr::Text(b)) => a == b,
            _ => same_text(self, other),
        }
    }
}

impl Eq for NodePath<'_> {}

/// Whether two paths print the same, compared piecewise without allocating.
fn same_text(a: &NodePath<'_>, b: &NodePath<'_>) -> bool {
    // Renders `b` and checks it against `a`'s rendering chunk by chunk.
    struct Cmp<'p, 'a> {
        other: &'p NodePath<'a>,
        at: usize,
        same: bool,
    }
    impl fmt::Write for Cmp<'_, '_> {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let mut probe = Slice { at: self.at, want: s.as_bytes(), pos: 0, same: true };
            let _ = fmt::write(&mut probe, format_args!("{}", self.other));
            self.same &= probe.same && probe.pos >= self.at + s.len();
            self.at += s.len();
            Ok(())
        }
    }
    // Checks that bytes `at..at + want.len()` of a rendering equal `want`.
    struct Slice<'w> {
        at: usize,
        want: &'w [u8],
        pos: usize,
        same: bool,
    }
    impl fmt::Write for Slice<'_> {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            for &byte in s.as_bytes() {
                if let Some(i) = self.pos.checked_sub(self.at)
                    && let Some(&w) = self.want.get(i)
                {
                    self.same &= w == byte;
                }
                self.pos += 1;
            }
            Ok(())
        }
    }
    let mut len_b = Slice { at: usize::MAX, want: &[], pos: 0, same: true };
    let _ = fmt::write(&mut len_b, format_args!("{b}"));
    let mut c = Cmp { other: b, at: 0, same: true };
    let _ = fmt::write(&mut c, format_args!("{a}"));
    c.same && c.at == len_b.pos
}

impl fmt::Display for NodePath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.repr {
            Repr::Root => f.write_str("/"),
            Repr::Blob { structure, offset } => NodePath::write_blob(f, structure, offset),
            Repr::Text(t) => write!(f, "{}", Escaped(t)),
        }
    }
}

impl fmt::Debug for NodePath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NodePath({self})")
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::NodePath;
    use std::string::ToString;
    use std::vec::Vec;

    /// A structure block `/ { a { xyz; b@1 { }; }; c { }; }`.
    fn block() -> Vec<u8> {
        let mut s = Vec::new();
        let node = |s: &mut Vec<u8>, name: &str| {
            s.extend_from_slice(&1u32.to_be_bytes());
            s.extend_from_slice(name.as_bytes());
            s.push(0);
            while !s.len().is_multiple_of(4) {
                s.push(0);
            }
        };
        node(&mut s, "");
        node(&mut s, "a");
        // A property inside a, skipped while rebuilding paths.
        s.extend_from_slice(&3u32.to_be_bytes());
        s.extend_from_slice(&5u32.to_be_bytes());
        s.extend_from_slice(&0u32.to_be_bytes());
        s.extend_from_slice(b"xyz\0\0\0\0\0");
        node(&mut s, "b@1");
        s.extend_from_slice(&2u32.to_be_bytes());
        s.extend_from_slice(&2u32.to_be_bytes());
        node(&mut s, "c");
        for _ in 0..2 {
            s.extend_from_slice(&2u32.to_be_bytes());
        }
        s.extend_from_slice(&9u32.to_be_bytes());
        s
    }

    fn at<'a>(s: &'a [u8], name: &str) -> NodePath<'a> {
        let i = s.windows(name.len() + 1).position(|w| &w[..name.len()] == name.as_bytes() && w[name.len()] == 0);
        let i = i.expect("name in block");
        NodePath::in_blob(s, core::str::from_utf8(&s[i..i + name.len()]).unwrap())
    }

    #[test]
    fn blob_paths_print_whole_and_compare_with_text() {
        let s = block();
        let b = at(&s, "b@1");
        assert_eq!(b.to_string(), "/a/b@1");
        assert_eq!(b.name(), "b@1");
        assert_eq!(at(&s, "c").to_string(), "/c");
        assert_eq!(b, NodePath::new("/a/b@1"));
        assert_eq!(NodePath::new("/a/b@1"), b);
        for other in ["/a/b@2", "/a", "/a/b@1x", "", "/"] {
            assert_ne!(b, NodePath::new(other), "{other}");
        }
        assert_eq!(NodePath::root(), NodePath::new("/"));
        assert_ne!(b, at(&s, "c"));
        // A name that does not lie in the block is taken for the root.
        assert_eq!(NodePath::in_blob(&s, "elsewhere").to_string(), "/");
    }
}
