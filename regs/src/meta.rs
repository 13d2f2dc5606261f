//! Run-time facts about every register of a SoC, for models, debuggers and register dumps.
//!
//! The typed API enforces access kinds at compile time; this table carries the same facts as
//! data (generated from the same YAML), so the simulator can apply them to any write.

use crate::Space;

/// Access kind of a register, as data.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AccessKind {
    /// Read-only.
    Ro,
    /// Write-only.
    Wo,
    /// Read-write.
    Rw,
    /// Write 1 to clear.
    W1c,
    /// Read to clear.
    Rc,
}

/// One register (or register array) of a SoC.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RegMeta {
    /// Address space.
    pub space: Space,
    /// `block.register`.
    pub name: &'static str,
    /// Byte offset of element 0.
    pub offset: u32,
    /// Bytes between elements (0 for a single register).
    pub stride: u32,
    /// Number of elements (register array or arrayed block).
    pub count: u16,
    /// The register's access kind.
    pub access: AccessKind,
    /// Value after reset.
    pub reset: u32,
    /// Bits software cannot change: read-only and read-to-clear fields (all bits of a `ro`/`rc`
    /// register).
    pub ro_mask: u32,
    /// Write-1-to-clear bits (all unnamed bits of a `w1c` register too).
    pub w1c_mask: u32,
    /// Write-only bits (they read as 0).
    pub wo_mask: u32,
}

impl RegMeta {
    /// If `offset` is one of this register's elements, its index.
    #[must_use]
    pub fn element(&self, offset: u32) -> Option<usize> {
        if offset == self.offset {
            return Some(0);
        }
        let d = offset.checked_sub(self.offset)?;
        if self.stride == 0 || d % self.stride != 0 {
            return None;
        }
        let i = (d / self.stride) as usize;
        (i < self.count as usize).then_some(i)
    }
}
