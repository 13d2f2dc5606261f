//! The driver core's errors: what went wrong with the engine ([`EthError`], with its
//! [`ErrorKind`]) and why a frame was not queued ([`TxError`]), each in words (`Display`) and as
//! `core::error::Error`.

use crate::platform::DmaError;
use core::fmt;
use fe_regs::descriptors::DescriptorLayout;

/// Why the driver could not be created, opened or closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EthError {
    /// A descriptor layout the core does not handle in that role.
    UnsupportedLayout(DescriptorLayout),
    /// DMA memory for a ring or buffer could not be had.
    Alloc(AllocError),
    /// A DMA access was refused.
    Dma(DmaError),
    /// The SoC's SRAM rings do not fit the board's register window (or 32-bit addresses).
    Sram(SramError),
    /// `open` on an open interface.
    AlreadyOpen,
    /// The operation needs an open interface.
    NotOpen,
    /// No such MAC, or not enabled in the device tree.
    NoSuchMac(u8),
    /// A feature set that cannot be applied (TSO without TX checksum offload).
    BadFeatures,
    /// The SoC's capabilities ask for something this core does not drive (said in words).
    Unsupported(&'static str),
    /// Receive coalescing cannot be on while the interface forwards or bridges.
    LroWhileForwarding,
    /// No such switch user port behind that MAC in the device tree.
    NoSuchPort {
        /// The conduit MAC id.
        mac: u8,
        /// The port number.
        port: u8,
    },
    /// The operation needs the whole engine, not a handle of a split one (hardware LRO on or
    /// off re-arms rings the RX handle owns): stop the queues and polling, then call it on `Eth`.
    NeedsWholeEngine,
    /// The platform has no bus for a syscon space the board needs (path setup, cold reset).
    MissingSpace(fe_regs::Space),
}

/// What kind of failure an [`EthError`] is, for a caller deciding what to do about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The caller used the driver wrongly (open twice, an operation on a closed interface, a
    /// MAC or port the board does not have, a feature set that cannot be): fix the call.
    Misuse,
    /// The SoC's data or the board asks for something this core cannot do: fix the YAML,
    /// the device tree, or the request.
    Config,
    /// The machine failed at run time (DMA memory, a refused DMA access): retry or give up.
    Fault,
}

impl EthError {
    /// Whether this is misuse, a configuration the core cannot drive, or a run-time fault.
    #[must_use]
    pub fn kind(&self) -> ErrorKind {
        match self {
            EthError::AlreadyOpen
            | EthError::NotOpen
            | EthError::NoSuchMac(_)
            | EthError::BadFeatures
            | EthError::LroWhileForwarding
            | EthError::NoSuchPort { .. }
            | EthError::NeedsWholeEngine => ErrorKind::Misuse,
            EthError::UnsupportedLayout(_)
            | EthError::Unsupported(_)
            | EthError::Sram(_)
            | EthError::MissingSpace(_) => ErrorKind::Config,
            EthError::Alloc(_) | EthError::Dma(_) => ErrorKind::Fault,
        }
    }
}

impl core::fmt::Display for EthError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            EthError::UnsupportedLayout(l) => {
                write!(f, "descriptor layout {} is not one this driver core handles in that role", l.name())
            }
            EthError::Alloc(e) => write!(f, "{e}"),
            EthError::Dma(e) => write!(f, "{e}"),
            EthError::Sram(e) => write!(f, "{e}"),
            EthError::AlreadyOpen => f.write_str("the interface is already open"),
            EthError::NotOpen => f.write_str("the interface is not open"),
            EthError::NoSuchMac(m) => write!(f, "MAC {m} does not exist or is disabled in the device tree"),
            EthError::BadFeatures => f.write_str("TSO needs TX checksum offload"),
            EthError::Unsupported(what) => f.write_str(what),
            EthError::LroWhileForwarding => {
                f.write_str("receive coalescing cannot be turned on while the interface forwards or bridges")
            }
            EthError::NoSuchPort { mac, port } => write!(f, "no switch user port {port} behind MAC {mac}"),
            EthError::MissingSpace(s) => {
                write!(f, "the platform has no bus for syscon space `{}`, which the board needs", s.name())
            }
            EthError::NeedsWholeEngine => f.write_str(
                "turning hardware LRO on or off needs the whole engine: stop the queues and polling, then set the features",
            ),
        }
    }
}

impl core::error::Error for EthError {}

impl From<DmaError> for EthError {
    fn from(e: DmaError) -> Self {
        EthError::Dma(e)
    }
}

impl From<AllocError> for EthError {
    fn from(e: AllocError) -> Self {
        EthError::Alloc(e)
    }
}

/// Why a frame was not queued (each is also counted in [`crate::stats::Drops`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxError {
    /// The interface is not open.
    NotOpen,
    /// No such MAC, or not enabled in the device tree.
    BadMac,
    /// The queue is past the SoC's TX queues.
    BadQueue,
    /// The frame is empty or longer than a TX buffer.
    BadLength,
    /// The MAC's link is down.
    LinkDown,
    /// No free descriptor (reclaim, or wait for TX done).
    RingFull,
    /// A DMA access was refused.
    Dma(DmaError),
    /// The frame asks for an offload (TX checksum, TSO) that is turned off.
    OffloadOff,
    /// A TSO frame that is not TCP over IPv4/IPv6, has a bad MSS, or needs too many descriptors.
    BadTso,
}

impl core::fmt::Display for TxError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            TxError::NotOpen => f.write_str("the interface is not open"),
            TxError::BadMac => f.write_str("no such MAC, or disabled in the device tree"),
            TxError::BadQueue => f.write_str("the queue is past the SoC's TX queues"),
            TxError::BadLength => f.write_str("the frame is empty or longer than a TX buffer"),
            TxError::LinkDown => f.write_str("the MAC's link is down"),
            TxError::RingFull => f.write_str("the TX ring is full"),
            TxError::Dma(e) => write!(f, "{e}"),
            TxError::OffloadOff => f.write_str("the frame asks for an offload that is turned off"),
            TxError::BadTso => f.write_str("a TSO frame that is not TCP, has a bad MSS, or needs too many descriptors"),
        }
    }
}

impl core::error::Error for TxError {}

/// Why a ring's DMA memory could not be had.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocError {
    /// The platform has no more DMA memory.
    Exhausted {
        /// Bytes asked for.
        size: usize,
    },
    /// The platform gave memory above 4 GiB (descriptors hold 32-bit addresses).
    Above4G {
        /// Physical address it gave.
        addr: u64,
    },
    /// The heap has no room for a table the driver allocates when it is built.
    Heap {
        /// Bytes asked for.
        size: usize,
    },
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AllocError::Exhausted { size } => write!(f, "out of DMA memory (asked for {size} bytes)"),
            AllocError::Above4G { addr } => {
                write!(f, "DMA memory at {addr:#x} is above 4 GiB, which descriptors cannot address")
            }
            AllocError::Heap { size } => write!(f, "out of heap memory (asked for {size} bytes)"),
        }
    }
}

impl core::error::Error for AllocError {}

/// Why the SRAM rings cannot be placed on a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SramError {
    /// The frame-engine window (the Ethernet node's `reg`) ends before the SRAM rings do.
    OutsideWindow {
        /// The SRAM's offset in the window.
        offset: u32,
        /// One past the last SRAM ring byte, from the window's start.
        end: u64,
        /// The window's size.
        size: u64,
    },
    /// The SRAM's physical address does not fit in 32 bits.
    Above4G {
        /// Physical address of the SRAM.
        phys: u64,
    },
}

impl fmt::Display for SramError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SramError::OutsideWindow { offset, end, size } => write!(
                f,
                "the frame-engine register window (reg) of {size:#x} bytes ends before the SoC's SRAM rings, \
                 which span {offset:#x}..{end:#x} of it"
            ),
            SramError::Above4G { phys } => {
                write!(f, "the SRAM rings at {phys:#x} are above 4 GiB, which descriptors cannot address")
            }
        }
    }
}

impl core::error::Error for SramError {}
