//! What the firmware image does, independent of the machine it runs on: for each embedded board
//! device tree, probe it, bring the driver core up on the in-image simulator, and move a TCP
//! stream between two `smoltcp` interfaces through the driver (see `targets/firmware/README.md`).
//!
//! `no_std` + `alloc` (the simulator and the socket buffers allocate; the driver core does not).
//! The bare-metal entry, UART, semihosting and heap are in the binary (`src/main.rs`, `src/hw/`);
//! on the host the same code runs as a plain program.

#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

pub mod device;
pub mod peer;
pub mod transfer;

/// The board device trees embedded in the image.
pub mod boards {
    include!(concat!(env!("OUT_DIR"), "/boards.rs"));
}
