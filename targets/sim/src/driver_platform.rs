//! The simulator as the driver core's platform (feature `driver`): registers through its buses,
//! DMA through its memory as a weakly ordered CPU sees it (write buffer, read ordering: see
//! `ordering.rs`), time through its simulated clock (a delay advances the model), and a pool of
//! RX buffers for zero-copy receive carved from DMA memory (so `Sim::dma_in_use` counts them).

use crate::engine::{Sim, SimBus};
use alloc::vec;
use alloc::vec::Vec;
use fe_driver::dt::Board;
use fe_driver::platform::{Clock, DmaError, DmaMemory, Platform, RxPool};

impl Sim {
    /// The frame engine of `board`'s SoC, its register window placed where the board's device
    /// tree says ([`Sim::place_fe`]), so that SRAM rings are found at their physical address,
    /// and each enabled MAC wired to its `phy-mode` ([`Sim::wire_interface`]): it carries frames
    /// only once its path is set up.
    #[must_use]
    pub fn for_board(board: &Board<'_>) -> Self {
        let sim = Sim::new(board.soc);
        sim.place_fe(board.reg.base, board.reg.size);
        for m in board.enabled_macs() {
            sim.wire_interface(usize::from(m.id), Some(m.phy_mode));
        }
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
    fn rx_release(&self, addr: u64, _size: usize) {
        self.0.dma_free(addr, RX_POOL_BUF);
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
    fn dma_read_words(&self, addr: u64, out: &mut [u32]) -> Result<(), DmaError> {
        self.0.cpu_read_words(addr, out).map_err(|_| DmaError::new(addr, 4 * out.len()))
    }
    fn dma_write_words(&self, addr: u64, words: &[u32]) -> Result<(), DmaError> {
        self.0.cpu_write_words(addr, words).map_err(|_| DmaError::new(addr, 4 * words.len()))
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
    type Syscon = SimBus<'a>;
    fn fe(&self) -> SimBus<'a> {
        self.0.fe()
    }
    fn syscon(&self, space: fe_regs::Space) -> Option<SimBus<'a>> {
        self.0.space(space)
    }
}

/// Bytes of every buffer of the simulator's RX pool (the driver asks for its RX buffer size).
pub const RX_POOL_BUF: usize = fe_driver::eth::BUF_SIZE;

/// A received frame's buffer the driver handed up (zero-copy receive): the stack's until it
/// gives it back with [`SimPlatform::rx_recycle`].
#[derive(Debug, PartialEq, Eq)]
pub struct SimRxBuf {
    /// Physical address of the buffer (the frame starts there).
    pub addr: u64,
    /// Bytes of the frame.
    pub len: usize,
}

impl SimPlatform<'_> {
    /// The frame in `buf`, read as the CPU sees DMA memory.
    #[must_use]
    pub fn rx_bytes(&self, buf: &SimRxBuf) -> Vec<u8> {
        let mut out = vec![0; buf.len];
        // A buffer the driver handed up lies in DMA memory; an empty frame reads as nothing.
        if self.0.cpu_read_into(buf.addr, &mut out).is_err() {
            out.clear();
        }
        out
    }

    /// The stack is done with `buf`: it goes back to the pool (DMA memory).
    pub fn rx_recycle(&self, buf: SimRxBuf) {
        self.0.dma_free(buf.addr, RX_POOL_BUF);
    }
}

/// The pool is DMA memory itself: a buffer is an allocation of [`RX_POOL_BUF`] bytes, so
/// running the model's memory out empties the pool, and every buffer not given back shows in
/// `Sim::dma_in_use`.
impl RxPool for SimPlatform<'_> {
    type Buf = SimRxBuf;
    fn rx_alloc(&self, size: usize) -> Option<u32> {
        if size > RX_POOL_BUF {
            return None;
        }
        let a = self.0.dma_alloc(RX_POOL_BUF, 64)?;
        // The model's memory lies below 4 GiB; a buffer above could not be lent.
        u32::try_from(a).inspect_err(|_| self.0.dma_free(a, RX_POOL_BUF)).ok()
    }
    fn rx_swap(&self, filled: u32, len: usize) -> Option<(u32, SimRxBuf)> {
        let fresh = self.rx_alloc(RX_POOL_BUF)?;
        Some((fresh, SimRxBuf { addr: u64::from(filled), len }))
    }
}
