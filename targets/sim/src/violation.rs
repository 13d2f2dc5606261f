//! Illegal driver behaviour the model refuses, recorded so tests can assert on it.

use core::fmt;
use fe_regs::Space;

/// Something the driver did that the hardware does not allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Violation {
    /// A register access at an offset where the SoC has no register.
    UnknownRegister {
        /// Address space.
        space: Space,
        /// Byte offset.
        offset: u32,
    },
    /// A register access at an offset that is not a multiple of 4.
    UnalignedRegister {
        /// Address space.
        space: Space,
        /// Byte offset.
        offset: u32,
    },
    /// A write to a read-only register, or one that tries to set read-only bits.
    ReadOnlyWrite {
        /// `block.register`.
        register: &'static str,
        /// The read-only bits the write tried to set.
        bits: u32,
    },
    /// A read of a write-only register.
    WriteOnlyRead {
        /// `block.register`.
        register: &'static str,
    },
    /// A DMA address outside the DMA memory, or a buffer that runs past its end.
    DmaOutOfRange {
        /// Physical address.
        addr: u64,
        /// Length of the access.
        len: usize,
    },
    /// A descriptor address that is not aligned to the descriptor size's natural alignment.
    DmaUnaligned {
        /// Physical address.
        addr: u64,
    },
    /// The driver handed the engine a descriptor still marked as the CPU's (TX), or the engine
    /// found an RX descriptor still marked done (the driver did not give it back).
    DescriptorNotOwned {
        /// Physical address of the descriptor.
        addr: u64,
    },
    /// A ring index register written past the end of its ring.
    RingIndexOutOfRange {
        /// `block.register`.
        register: &'static str,
        /// Value written.
        index: u32,
        /// Ring size.
        size: u32,
    },
    /// A register written while CPU writes to DMA memory were still in the write buffer (no
    /// DMA write barrier since): the engine may act on stale descriptors or buffers.
    UnpublishedDmaWrites {
        /// Address space of the register.
        space: Space,
        /// Byte offset of the register.
        offset: u32,
        /// CPU writes still unpublished.
        writes: usize,
    },
    /// DMA memory read after an RX descriptor's done bit was seen, without the read barrier
    /// that must come between (the read may return words older than the done bit).
    ReadBeforeBarrier {
        /// Physical address of the descriptor whose done bit was read.
        desc: u64,
        /// Physical address of the read that came too early.
        addr: u64,
    },
    /// A descriptor address the engine cannot reach: neither in the frame engine's SRAM window
    /// nor in DMA memory (or running past the end of either).
    DescriptorOutOfRange {
        /// Physical address.
        addr: u64,
        /// Length of the descriptor.
        len: usize,
    },
    /// A DMA free that matches no live allocation (double free or wrong size).
    BadDmaFree {
        /// Physical address given.
        addr: u64,
        /// Size given.
        len: usize,
    },
    /// DMA enabled before its ring base (or size) was programmed.
    DmaEnabledWithoutRing {
        /// The enable register.
        register: &'static str,
    },
    /// A delayed done interrupt enabled with neither a packet nor a time limit: it never fires.
    DelayNeverFires {
        /// The delay-interrupt register.
        register: &'static str,
    },
    /// A delayed done interrupt enabled on a SoC whose YAML gives no time unit for it.
    DelayUnitUnknown {
        /// The delay-interrupt register.
        register: &'static str,
    },
    /// A MAC carried no frame: its path is not set up for the interface the board wires to it
    /// (a path-setup register not written since reset, or holding other bits).
    PathNotSetUp {
        /// MAC id.
        mac: u8,
        /// The interface (`phy-mode`) wired to it.
        interface: &'static str,
        /// The register (`space.block.register`) that is not as the path setup leaves it.
        register: &'static str,
        /// The bits the setup leaves there.
        expected: u32,
        /// The bits found (within `mask`).
        found: u32,
        /// The bits the setup writes.
        mask: u32,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Violation::UnknownRegister { space, offset } => write!(f, "no register at {space:?} offset {offset:#x}"),
            Violation::UnalignedRegister { space, offset } => {
                write!(f, "unaligned register access at {space:?} offset {offset:#x}")
            }
            Violation::ReadOnlyWrite { register, bits } => {
                write!(f, "write to read-only bits {bits:#010x} of {register}")
            }
            Violation::WriteOnlyRead { register } => write!(f, "read of write-only register {register}"),
            Violation::DmaOutOfRange { addr, len } => {
                write!(f, "DMA access of {len} bytes at {addr:#x} is outside DMA memory")
            }
            Violation::DmaUnaligned { addr } => write!(f, "descriptor address {addr:#x} is misaligned"),
            Violation::DescriptorNotOwned { addr } => write!(f, "descriptor at {addr:#x} is not owned by the engine"),
            Violation::RingIndexOutOfRange { register, index, size } => {
                write!(f, "{register} = {index} is past the end of a {size}-entry ring")
            }
            Violation::UnpublishedDmaWrites { space, offset, writes } => write!(
                f,
                "register at {space:?} offset {offset:#x} written with {writes} CPU write(s) to DMA memory not yet \
                 published (missing DMA write barrier before the doorbell)"
            ),
            Violation::ReadBeforeBarrier { desc, addr } => write!(
                f,
                "DMA memory at {addr:#x} read after the done bit of the RX descriptor at {desc:#x} without a read \
                 barrier in between"
            ),
            Violation::DescriptorOutOfRange { addr, len } => {
                write!(f, "descriptor of {len} bytes at {addr:#x} is neither in the SRAM window nor in DMA memory")
            }
            Violation::BadDmaFree { addr, len } => {
                write!(f, "DMA free of {len} bytes at {addr:#x} matches no allocation")
            }
            Violation::DmaEnabledWithoutRing { register } => {
                write!(f, "{register}: DMA enabled before its ring was programmed")
            }
            Violation::DelayNeverFires { register } => {
                write!(f, "{register}: delayed interrupt enabled with no packet or time limit, it would never fire")
            }
            Violation::PathNotSetUp { mac, interface, register, expected, found, mask } => write!(
                f,
                "MAC {mac} ({interface}) carries no frames: its path is not set up, {register} holds {found:#x} in \
                 mask {mask:#x} (or was not written since reset) where the path setup leaves {expected:#x}"
            ),
            Violation::DelayUnitUnknown { register } => {
                write!(f, "{register}: delayed interrupt enabled, but the SoC has no interrupt moderation time unit")
            }
        }
    }
}
