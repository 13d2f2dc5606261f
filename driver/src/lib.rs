//! The driver core for MediaTek frame-engine Ethernet (MT7621, MT7623, MT7986).
//!
//! `no_std` (with `alloc`: its bookkeeping tables are allocated once, when the driver is built;
//! nothing is allocated on the packet path), and generic over the SoC only through data: every per-SoC fact
//! comes from [`fe_regs::SocInfo`] (generated from `regs/*.yaml`) and from the board's device
//! tree, read by [`dt::probe()`] into a [`dt::Board`]. The machine is reached through the small
//! traits of [`platform`]; [`eth::Eth`] is one frame engine, brought up by [`eth::Eth::open`],
//! sending with [`eth::Eth::xmit`] and receiving with [`eth::Eth::poll`]. A kernel that runs
//! TX, NAPI, the interrupt handler and ethtool concurrently splits it into handles
//! ([`Eth::split`]: [`EthTx`], [`EthRx`], [`EthIrq`], [`EthCtl`]).
//!
//! Bring-up starts from the device tree the boot loader hands over; what the driver cannot use
//! is an error naming the node and property, never a panic:
//!
//! ```
//! # #[cfg(feature = "fdt")] {
//! fn bring_up(dtb: &[u8]) -> Result<(), String> {
//!     let board = fe_driver::dt::probe(dtb).map_err(|e| format!("device tree: {e}"))?;
//!     // Every per-SoC fact is data from regs/*.yaml: no SoC name in the driver.
//!     let soc = board.soc;
//!     println!("{}: {} TX queues, {} MAC(s) enabled", soc.name, soc.caps.tx_queues, board.enabled_macs().count());
//!     // Then `Eth::new(&board, platform)?` and `open()` with the platform's register and DMA access.
//!     Ok(())
//! }
//! let err = bring_up(b"not a flattened device tree").unwrap_err();
//! assert!(err.starts_with("device tree: "), "{err}");
//! # }
//! ```

#![no_std]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

extern crate alloc;

#[cfg(feature = "smoltcp")]
pub mod adapters;
pub mod desc;
pub mod dt;
pub mod error;
pub mod eth;
pub mod ethtool;
pub mod features;
pub mod frame;
pub mod handles;
pub mod headers;
mod heap;
pub mod hwlro;
pub mod irq;
pub mod link;
pub mod offload;
pub mod path_setup;
pub mod platform;
pub(crate) mod ring;
pub mod rx;
pub mod rx_buffers;
mod rx_lane;
pub mod shaping;
pub(crate) mod shared;
pub mod softlro;
pub(crate) mod space_bus;
pub mod stats;
pub mod tx;
pub mod tx_offload;
pub mod watchdog;

pub use eth::{BufferCounts, CloseReport, Eth, EthError, Features, LinkState, LroMode, MacPort, Owner};
pub use ethtool::MibCounters;
pub use frame::{RxChecksum, RxFrame, TxMeta, TxParts};
pub use handles::{EthCtl, EthIrq, EthRx, EthTx, Split};
pub use irq::IrqWork;
pub use platform::{Clock, DmaError, DmaMemory, Platform, RxPool};
pub use ring::AllocError;
pub use rx_buffers::{Received, RxBuffer};
pub use shaping::UserPort;
pub use stats::{Drops, MacCounters, Stats};
pub use tx::{Burst, TxError};
