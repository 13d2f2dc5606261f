//! The frame-engine model behind a real bus: `fe-sim` as the shared library that the QEMU device
//! `mtk-frame-engine` loads (`include/fe_model.h` is the contract).
//!
//! The device is a thin shim: it maps the register windows this library names, wires the
//! interrupt lines to the GIC SPIs it names and hands it MMIO accesses, frames from each MAC's
//! network backend and QEMU's virtual time. Everything about the chip comes from the guest device
//! tree (read with the driver core's own probe) and the register maps (`fe_regs`).

pub mod device;
mod ffi;
pub mod options;
pub mod trace;

pub use device::{Device, Host, Window};
