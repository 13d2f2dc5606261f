//! Walking a checked tree with node paths, parents and ancestors.

use super::blob::{self, MAX_DEPTH};
use super::error::{ProbeError, ProbeErrorKind};
use super::path::NodePath;
use fdt::Fdt;
use fdt::node::FdtNode;

/// A structurally checked device tree.
pub struct Tree<'a> {
    fdt: Fdt<'a>,
}

/// One node met during a walk.
pub struct Visit<'v, 't, 'a> {
    /// The node.
    pub node: FdtNode<'t, 'a>,
    /// Its path.
    pub path: NodePath,
    /// Its ancestors, root first (the last one is the parent).
    pub ancestors: &'v [FdtNode<'t, 'a>],
}

impl<'v, 't, 'a> Visit<'v, 't, 'a> {
    /// The parent node (`None` for the root).
    #[must_use]
    pub fn parent(&self) -> Option<FdtNode<'t, 'a>> {
        self.ancestors.last().copied()
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
        blob::check(data)?;
        let fdt =
            Fdt::new(data).map_err(|_| ProbeError::blob(ProbeErrorKind::BadLayout("rejected by the fdt reader")))?;
        Ok(Tree { fdt })
    }

    /// The root node.
    pub fn root(&self) -> Option<FdtNode<'_, 'a>> {
        self.fdt.find_node("/")
    }

    /// Visits every node depth-first, parents before children.
    pub fn walk<'t>(&'t self, f: &mut dyn FnMut(&Visit<'_, 't, 'a>) -> Flow) {
        let Some(root) = self.root() else { return };
        // Ancestors live in one array for the whole walk: entry i is the node at depth i.
        let mut stack: [FdtNode<'t, 'a>; MAX_DEPTH + 1] = [root; MAX_DEPTH + 1];
        walk_node(root, NodePath::root(), &mut stack, 0, f);
    }

    /// The node whose `phandle` (or legacy `linux,phandle`) is `ph`, with its path and parent.
    pub fn by_phandle<'t>(&'t self, ph: u32) -> Option<(NodePath, FdtNode<'t, 'a>, Option<FdtNode<'t, 'a>>)> {
        let mut found = None;
        self.walk(&mut |v| {
            let p = v.node.property("phandle").or_else(|| v.node.property("linux,phandle"));
            if p.and_then(|p| super::props::u32_value(p.value)) == Some(ph) {
                found = Some((v.path, v.node, v.parent()));
                return Flow::Stop;
            }
            Flow::Continue
        });
        found
    }
}

fn walk_node<'t, 'a>(
    node: FdtNode<'t, 'a>,
    path: NodePath,
    stack: &mut [FdtNode<'t, 'a>; MAX_DEPTH + 1],
    depth: usize,
    f: &mut dyn FnMut(&Visit<'_, 't, 'a>) -> Flow,
) -> bool {
    match f(&Visit { node, path, ancestors: &stack[..depth] }) {
        Flow::Stop => return false,
        Flow::SkipChildren => return true,
        Flow::Continue => {}
    }
    if depth >= MAX_DEPTH {
        return true;
    }
    stack[depth] = node;
    for child in node.children() {
        if !walk_node(child, path.child(child.name), stack, depth + 1, f) {
            return false;
        }
    }
    true
}
