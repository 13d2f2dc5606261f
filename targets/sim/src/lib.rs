//! A register-level model of the MediaTek frame engine (MT7621, MT7623, MT7986).
//!
//! It is an oracle, not a mock: it implements the documented register and descriptor semantics
//! of each SoC from the same generated register crate the driver uses (offsets, field masks,
//! access kinds, descriptor layouts, capabilities), moves frames between DMA memory and simulated
//! wires at the configured link speed in simulated time, checks RX checksums only when the GDMA
//! checksum bits are enabled, and refuses illegal driver behaviour with a recorded
//! [`Violation`].
//!
//! `no_std` + `alloc`, so it also runs inside the firmware image. Overview: `targets/sim/README.md`.

#![no_std]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

extern crate alloc;

mod buffers;
pub mod capture;
pub mod dma;
#[cfg(feature = "driver")]
pub mod driver_platform;
pub mod engine;
pub mod fault;
mod lro;
mod mdio;
mod moderation;
mod mux;
mod ordering;
pub mod packet;
mod queues;
pub mod regfile;
mod rx;
mod sram;
pub mod switch;
mod tx;
pub mod violation;
pub mod wire;

pub use engine::{Sim, SimBus, Stats};
pub use fault::Fault;
pub use violation::Violation;
