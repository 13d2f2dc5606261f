//! The simulator as the driver's platform (tests only: fe-driver does not depend on fe-sim),
//! and boards brought up from the bundled device trees.

#![allow(dead_code, unused_imports)]

use fe_driver::dt::{self, Duplex};
use fe_driver::{Eth, LinkState};
use fe_sim::Sim;

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

/// Opens every bundled board with its first enabled MAC's link up (1 Gbit/s full duplex where
/// the device tree gives none), runs `f`, and fails on any simulator violation.
pub fn each_open_board(f: impl Fn(&str, &Sim, &mut Eth<SimPlatform<'_>>, u8)) {
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        let sim = Sim::for_board(&board);
        let mut eth = Eth::new(&board, SimPlatform(&sim)).expect(name);
        eth.open().expect(name);
        let mac = eth.enabled_macs().next().unwrap().id;
        if eth.mac(mac).unwrap().link.is_none() {
            eth.link_up(mac, LinkState { speed: 1000, duplex: Duplex::Full, pause: true }).unwrap();
        }
        f(name, &sim, &mut eth, mac);
        assert!(sim.violations().is_empty(), "{name}: violations: {:?}", sim.violations());
    }
}
