//! The DMA contract, held by the simulator: with every barrier in place traffic flows without a
//! violation and dropping the driver returns all DMA memory; with one barrier removed in turn
//! (the write barrier before the TX doorbell, before the RX CPU index, before the rings are
//! handed over at open, and the read barrier after an RX done bit) the model reports exactly
//! that violation. Every bundled board.
//!
//! On a SoC whose capability puts the rings' descriptors in the frame engine's SRAM, the CPU
//! writes those through the register bus (device memory, ordered with the doorbell): the RX
//! hand-back and the rings at open then write nothing to DMA memory, so leaving their write
//! barrier out must report nothing and lose no frame, which proves the descriptors went
//! through the bus. TX buffers stay in DMA memory, so the TX doorbell still needs its barrier.

mod support_sim;

use core::cell::Cell;
use fe_driver::Eth;
use fe_driver::platform::{Clock, DmaError, DmaMemory, Platform};
use fe_regs::SocInfo;
use fe_regs::caps::RingPlacement;
use fe_sim::packet::TcpStream;
use fe_sim::{Sim, SimBus, Violation};
use support_sim::{SimPlatform, boards, probe};

/// Which barrier the platform leaves out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Missing {
    None,
    Wmb,
    Rmb,
}

/// The simulator's platform with one kind of barrier switched off while `missing` says so.
struct Leaky<'a> {
    sim: SimPlatform<'a>,
    missing: &'a Cell<Missing>,
}

impl DmaMemory for Leaky<'_> {
    fn dma_alloc(&self, size: usize, align: usize) -> Option<u64> {
        self.sim.dma_alloc(size, align)
    }
    fn dma_free(&self, addr: u64, size: usize) {
        self.sim.dma_free(addr, size);
    }
    fn dma_wmb(&self) {
        if self.missing.get() != Missing::Wmb {
            self.sim.dma_wmb();
        }
    }
    fn dma_rmb(&self) {
        if self.missing.get() != Missing::Rmb {
            self.sim.dma_rmb();
        }
    }
    fn dma_read(&self, addr: u64, out: &mut [u8]) -> Result<(), DmaError> {
        self.sim.dma_read(addr, out)
    }
    fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError> {
        self.sim.dma_write(addr, data)
    }
}

impl Clock for Leaky<'_> {
    fn now_ns(&self) -> u64 {
        self.sim.now_ns()
    }
    fn delay_ns(&self, ns: u64) {
        self.sim.delay_ns(ns);
    }
}

impl<'a> Platform for Leaky<'a> {
    type Fe = SimBus<'a>;
    type Syscon = SimBus<'a>;
    fn fe(&self) -> SimBus<'a> {
        self.sim.fe()
    }
    fn syscon(&self, space: fe_regs::Space) -> Option<SimBus<'a>> {
        self.sim.0.space(space)
    }
}

/// Where a barrier is left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Open,
    Xmit,
    Poll,
}

/// Opens the board's engine, sends and receives a few frames on its first enabled MAC with a
/// fixed link, closes it and drops the driver, with `missing` left out during `phase`.
/// Returns the model's violations, the DMA memory still allocated after the drop, the SoC and
/// the frames polled.
fn run(name: &str, dtb: &[u8], missing: Missing, phase: Phase) -> (Vec<Violation>, usize, &'static SocInfo, usize) {
    let board = probe(name, dtb);
    let sim = Sim::for_board(&board);
    let cell = Cell::new(Missing::None);
    let set = |p: Phase| cell.set(if p == phase { missing } else { Missing::None });
    let mac = board.macs().find(|m| m.enabled && m.link.fixed_speed().is_some()).map(|m| m.id).expect(name);
    let mut polled = 0;
    {
        let mut eth = Eth::new(&board, Leaky { sim: SimPlatform(&sim), missing: &cell }).expect(name);
        set(Phase::Open);
        eth.open().expect(name);
        let mut s = TcpStream::bulk(false, None);
        for _ in 0..SENT {
            set(Phase::Xmit);
            eth.xmit(mac, mac, &s.next_segment()).expect(name);
            cell.set(Missing::None);
            sim.send_to_mac(usize::from(mac), s.next_segment());
            sim.advance(200_000);
            set(Phase::Poll);
            while eth.poll(64, &mut |_| polled += 1) == 64 {}
            cell.set(Missing::None);
            eth.reclaim();
        }
        eth.close().expect(name);
    }
    let v = sim.violations().into_iter().map(|(_, v)| v).collect();
    (v, sim.dma_in_use(), board.soc, polled)
}

/// Frames `run` sends to the driver.
const SENT: usize = 4;

/// Whether RX ring 0's descriptors are in the SoC's SRAM (written through the bus).
fn rx_in_sram(soc: &SocInfo) -> bool {
    matches!(soc.caps.rings, RingPlacement::Sram { .. })
}

/// Whether every ring the driver hands over at open has its descriptors in SRAM (no LRO rings,
/// which stay in DMA memory).
fn all_rings_in_sram(soc: &SocInfo) -> bool {
    rx_in_sram(soc) && soc.caps.hw_lro.is_none()
}

#[test]
fn with_every_barrier_nothing_is_reported_and_drop_frees_all_dma_memory() {
    for (name, dtb) in boards() {
        let (v, in_use, _, polled) = run(name, &dtb, Missing::None, Phase::Open);
        assert!(v.is_empty(), "{name}: {v:?}");
        assert_eq!(polled, SENT, "{name}");
        assert_eq!(in_use, 0, "{name}: DMA memory left after drop");
    }
}

#[test]
fn no_write_barrier_before_the_tx_doorbell_is_reported_at_ctx_ptr() {
    for (name, dtb) in boards() {
        let (v, _, soc, _) = run(name, &dtb, Missing::Wmb, Phase::Xmit);
        let ctx = soc.fe.qdma.ctx_ptr.offset();
        assert!(
            v.iter().any(|v| matches!(v, Violation::UnpublishedDmaWrites { offset, .. } if *offset == ctx)),
            "{name}: {v:?}"
        );
    }
}

#[test]
fn no_write_barrier_before_the_rx_cpu_index_is_reported_at_pcrx_ptr_unless_the_ring_is_in_sram() {
    for (name, dtb) in boards() {
        let (v, _, soc, polled) = run(name, &dtb, Missing::Wmb, Phase::Poll);
        let cpu = soc.fe.pdma.pcrx_ptr.at(0).unwrap().offset();
        let reported = v.iter().any(|v| matches!(v, Violation::UnpublishedDmaWrites { offset, .. } if *offset == cpu));
        if rx_in_sram(soc) {
            // Hand-backs went through the bus: nothing waits for the barrier, nothing is lost.
            assert!(v.is_empty(), "{name}: {v:?}");
            assert_eq!(polled, SENT, "{name}");
        } else {
            assert!(reported, "{name}: {v:?}");
        }
    }
}

#[test]
fn no_write_barrier_when_the_rings_are_handed_over_at_open_is_reported_unless_all_are_in_sram() {
    for (name, dtb) in boards() {
        let (v, _, soc, polled) = run(name, &dtb, Missing::Wmb, Phase::Open);
        if all_rings_in_sram(soc) {
            assert!(v.is_empty(), "{name}: {v:?}");
            assert_eq!(polled, SENT, "{name}");
        } else {
            assert!(v.iter().any(|v| matches!(v, Violation::UnpublishedDmaWrites { .. })), "{name}: {v:?}");
        }
    }
}

#[test]
fn no_read_barrier_after_an_rx_done_bit_is_reported() {
    for (name, dtb) in boards() {
        let (v, _, _, _) = run(name, &dtb, Missing::Rmb, Phase::Poll);
        assert!(v.iter().any(|v| matches!(v, Violation::ReadBeforeBarrier { .. })), "{name}: {v:?}");
        assert!(!v.iter().any(|v| matches!(v, Violation::UnpublishedDmaWrites { .. })), "{name}: {v:?}");
    }
}
