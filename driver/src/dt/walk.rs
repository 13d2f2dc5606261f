//! Walking a checked tree with node paths, parents and ancestors.

use super::blob::{self, MAX_DEPTH};
use super::error::{ProbeError, ProbeErrorKind};
use super::path::NodePath;
use fdt::Fdt;
use fdt::node::FdtNode;

/// A structurally checked device tree.
pub struct Tree<'a> {
    fdt: Fdt<'a>,
    /// The structure block, which node paths point into.
    structure: &'a [u8],
}

/// A node's chain of ancestors: each walk frame holds its own link, so the walk keeps no
/// array of nodes (a kernel stack has no room for one per level).
pub struct Ancestor<'v, 't, 'a> {
    /// The node.
    pub node: FdtNode<'t, 'a>,
    /// Its parent's link (`None` for the root).
    pub up: Option<&'v Ancestor<'v, 't, 'a>>,
}

/// One node met during a walk.
pub struct Visit<'v, 't, 'a> {
    /// The node.
    pub node: FdtNode<'t, 'a>,
    /// Its path.
    pub path: NodePath<'a>,
    /// Its parent's link (`None` for the root).
    pub up: Option<&'v Ancestor<'v, 't, 'a>>,
}

impl<'v, 't, 'a> Visit<'v, 't, 'a> {
    /// The parent node (`None` for the root).
    #[must_use]
    pub fn parent(&self) -> Option<FdtNode<'t, 'a>> {
        self.up.map(|a| a.node)
    }

    /// The ancestors, the parent first.
    pub fn ancestors(&self) -> impl Iterator<Item = FdtNode<'t, 'a>> + '_ {
        core::iter::successors(self.up, |a| a.up).map(|a| a.node)
    }
}

/// Whether a walk goes on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Visit the node's children, then its siblings.
    Continue,
    /// Do not descend into this node.
    SkipChildren,
    /// End the walk.
    Stop,
}

impl<'a> Tree<'a> {
    /// Checks `data` and opens it.
    pub fn parse(data: &'a [u8]) -> Result<Self, ProbeError<'a>> {
        let h = blob::check(data)?;
        let structure = data.get(h.off_struct..h.off_struct + h.size_struct).unwrap_or(&[]);
        let fdt =
            Fdt::new(data).map_err(|_| ProbeError::blob(ProbeErrorKind::BadLayout("rejected by the fdt reader")))?;
        Ok(Tree { fdt, structure })
    }

    /// The root node.
    pub fn root(&self) -> Option<FdtNode<'_, 'a>> {
        self.fdt.find_node("/")
    }

    /// The path of `node`.
    #[must_use]
    pub fn path_of(&self, node: &FdtNode<'_, 'a>) -> NodePath<'a> {
        NodePath::in_blob(self.structure, node.name)
    }

    /// Visits every node depth-first, parents before children.
    pub fn walk<'t>(&'t self, f: &mut dyn FnMut(&Visit<'_, 't, 'a>) -> Flow) {
        let Some(root) = self.root() else { return };
        walk_node(self, root, None, 0, f);
    }

    /// The node whose `phandle` (or legacy `linux,phandle`) is `ph`, with its path and parent.
    pub fn by_phandle<'t>(&'t self, ph: u32) -> Option<(NodePath<'a>, FdtNode<'t, 'a>, Option<FdtNode<'t, 'a>>)> {
        let mut found = None;
        self.walk(&mut |v| {
            let p = v.node.property("phandle").or_else(|| v.node.property("linux,phandle"));
            if p.and_then(|p| <[u8; 4]>::try_from(p.value).ok()).map(u32::from_be_bytes) == Some(ph) {
                found = Some((v.path, v.node, v.parent()));
                return Flow::Stop;
            }
            Flow::Continue
        });
        found
    }
}

fn walk_node<'t, 'a>(
    tree: &'t Tree<'a>,
    node: FdtNode<'t, 'a>,
    up: Option<&Ancestor<'_, 't, 'a>>,
    depth: usize,
    f: &mut dyn FnMut(&Visit<'_, 't, 'a>) -> Flow,
) -> bool {
    match f(&Visit { node, path: tree.path_of(&node), up }) {
        Flow::Stop => return false,
        Flow::SkipChildren => return true,
        Flow::Continue => {}
    }
    if depth >= MAX_DEPTH {
        return true;
    }
    let me = Ancestor { node, up };
    for child in node.children() {
        if !walk_node(tree, child, Some(&me), depth + 1, f) {
            return false;
        }
    }
    true
}
