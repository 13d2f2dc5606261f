//! The simulator as the driver's platform (tests only: fe-driver does not depend on fe-sim),
//! and boards brought up from the bundled device trees.

#![allow(dead_code)]

use fe_driver::dt;
use fe_driver::platform::{Clock, DmaError, DmaMemory, Platform};
use fe_sim::{Sim, SimBus};

/// `Sim` as a [`Platform`]: registers through its buses, DMA through its memory, time through
/// its simulated clock (a delay advances the model).
#[derive(Clone, Copy, Debug)]
pub struct SimPlatform<'a>(pub &'a Sim);

impl DmaMemory for SimPlatform<'_> {
    fn dma_alloc(&self, size: usize, align: usize) -> Option<u64> {
        self.0.dma_alloc(size, align)
    }
    fn dma_read(&self, addr: u64, out: &mut [u8]) -> Result<(), DmaError> {
        let b = self.0.dma_read(addr, out.len()).map_err(|_| DmaError { addr, len: out.len() })?;
        out.copy_from_slice(&b);
        Ok(())
    }
    fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError> {
        self.0.dma_write(addr, data).map_err(|_| DmaError { addr, len: data.len() })
    }
}

impl Clock for SimPlatform<'_> {
    fn now_ns(&self) -> u64 {
        self.0.now()
    }
    fn delay_ns(&self, ns: u64) {
        self.0.advance(ns);
    }
}

impl<'a> Platform for SimPlatform<'a> {
    type Fe = SimBus<'a>;
    type Ethsys = SimBus<'a>;
    fn fe(&self) -> SimBus<'a> {
        self.0.fe()
    }
    fn ethsys(&self) -> SimBus<'a> {
        self.0.ethsys()
    }
}

/// The bundled board DTS of each SoC: (file, DTB).
pub fn boards() -> Vec<(&'static str, Vec<u8>)> {
    ["mt7621-router.dts", "mt7623n-bpi-r2.dts", "mt7986a-bpi-r3.dts"]
        .into_iter()
        .map(|f| {
            let dtb =
                fe_linux::dtc::compile(&fe_linux::dtc::dts_dir().join(f), &[]).unwrap_or_else(|e| panic!("{f}: {e}"));
            (f, dtb)
        })
        .collect()
}

/// Probes `dtb`, panicking with the probe's message on failure.
pub fn probe<'a>(name: &str, dtb: &'a [u8]) -> dt::Platform<'a> {
    dt::probe(dtb).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}
