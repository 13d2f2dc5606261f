//! Node paths in a fixed-size buffer (no allocation), for error messages and reports.

use core::fmt;

/// Capacity of a [`NodePath`]; longer paths are cut and end in `...`.
pub const PATH_CAPACITY: usize = 128;

/// The path of a device-tree node, like `/soc/ethernet@1e100000/mac@0`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct NodePath {
    buf: [u8; PATH_CAPACITY],
    len: u8,
    truncated: bool,
}

impl NodePath {
    /// The root path `/`.
    #[must_use]
    pub const fn root() -> Self {
        NodePath { buf: [0; PATH_CAPACITY], len: 0, truncated: false }
    }

    /// The path of child `name` of this node.
    #[must_use]
    pub fn child(&self, name: &str) -> Self {
        let mut p = *self;
        p.push(b"/");
        p.push(name.as_bytes());
        p
    }

    fn push(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if (self.len as usize) < PATH_CAPACITY {
                self.buf[self.len as usize] = b;
                self.len += 1;
            } else {
                self.truncated = true;
            }
        }
    }

    /// The path as text (`/` for the root).
    #[must_use]
    pub fn as_str(&self) -> &str {
        if self.len == 0 {
            return "/";
        }
        // Only whole UTF-8 names are pushed, but a cut may split one: back off to a boundary.
        let mut end = self.len as usize;
        loop {
            match core::str::from_utf8(&self.buf[..end]) {
                Ok(s) => return s,
                Err(e) => end = e.valid_up_to(),
            }
        }
    }

    /// The parent's path (the root is its own parent).
    #[must_use]
    pub fn parent(&self) -> Self {
        let s = self.as_str();
        let cut = s.rfind('/').unwrap_or(0);
        let mut p = *self;
        p.len = cut as u8;
        p.truncated = false;
        p
    }

    /// The last component (`mac@0`), or `/` for the root.
    #[must_use]
    pub fn name(&self) -> &str {
        let s = self.as_str();
        s.rsplit('/').next().filter(|n| !n.is_empty()).unwrap_or("/")
    }
}

impl fmt::Display for NodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())?;
        if self.truncated {
            f.write_str("...")?;
        }
        Ok(())
    }
}

impl fmt::Debug for NodePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NodePath({self})")
    }
}
