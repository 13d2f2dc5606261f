//! The simulator as the driver core's platform (feature `driver`): registers through its buses,
//! DMA through its memory as a weakly ordered CPU sees it (write buffer, read ordering: see
//! `ordering.rs`), time through its simulated clock (a delay advances the model).

use crate::engine::{Sim, SimBus};
use fe_driver::dt::Board;
use fe_driver::platform::{Clock, DmaError, DmaMemory, Platform};

impl Sim {
    /// The frame engine of `board`'s SoC, its register window placed where the board's device
    /// tree says ([`Sim::place_fe`]), so that SRAM rings are found at their physical address.
    #[must_use]
    pub fn for_board(board: &Board<'_>) -> Self {
        let sim = Sim::new(board.soc);
        sim.place_fe(board.reg.base, board.reg.size);
        sim
    }
}

/// A [`Sim`] as a [`Platform`] for `fe_driver::Eth`.
#[derive(Clone, Copy, Debug)]
pub struct SimPlatform<'a>(pub &'a Sim);

impl DmaMemory for SimPlatform<'_> {
    fn dma_alloc(&self, size: usize, align: usize) -> Option<u64> {
        self.0.dma_alloc(size, align)
    }
    fn dma_free(&self, addr: u64, size: usize) {
        self.0.dma_free(addr, size);
    }
    fn dma_wmb(&self) {
        self.0.dma_wmb();
    }
    fn dma_rmb(&self) {
        self.0.dma_rmb();
    }
    fn dma_read(&self, addr: u64, out: &mut [u8]) -> Result<(), DmaError> {
        self.0.cpu_read_into(addr, out).map_err(|_| DmaError::new(addr, out.len()))
    }
    fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError> {
        self.0.cpu_write(addr, data).map_err(|_| DmaError::new(addr, data.len()))
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
