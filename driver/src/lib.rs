//! The driver core for MediaTek frame-engine Ethernet (MT7621, MT7623, MT7986).
//!
//! `no_std`, allocation-free, and generic over the SoC only through data: every per-SoC fact
//! comes from [`fe_regs::SocInfo`] (generated from `regs/*.yaml`) and from the board's device
//! tree, read by [`dt::probe()`] into a [`dt::Platform`].

#![no_std]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod dt;
