//! The simulator as the driver's platform (tests only: fe-driver does not depend on fe-sim),
//! and boards brought up from the bundled device trees.

#![allow(dead_code, unused_imports)]

use fe_driver::dt;

pub use fe_sim::driver_platform::SimPlatform;

#[path = "../support_boards/mod.rs"]
pub mod support_boards;

/// Every bundled board in `dts/` (found by compatible, see `support_boards`): (file, DTB).
pub fn boards() -> Vec<(&'static str, Vec<u8>)> {
    support_boards::all().into_iter().map(|b| (&*Box::leak(b.file.into_boxed_str()), b.dtb)).collect()
}

/// Probes `dtb`, panicking with the probe's message on failure.
pub fn probe<'a>(name: &str, dtb: &'a [u8]) -> dt::Board<'a> {
    dt::probe(dtb).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

/// RX buffers the engine holds while open: ring 0 and, where the SoC has hardware LRO, its rings.
pub fn rx_buffers(soc: &fe_regs::SocInfo) -> usize {
    fe_driver::eth::RX_RING + soc.caps.hw_lro.map_or(0, |l| usize::from(l.rings) * usize::from(l.ring_size))
}
