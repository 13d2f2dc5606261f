//! MAC interface and path setup against the simulator's strict muxes, for every bundled board
//! (found in `dts/` by compatible): what each enabled MAC needs comes from its SoC's
//! `path_setup` data and the board's `phy-mode`, never from names written here.
//!
//! * At reset no enabled MAC's path is set up (the model is not vacuous); after `open` every one
//!   is, and each path-setup register reads back what the data says.
//! * A driver whose path-setup writes are lost (a platform that drops them) still opens, but no
//!   enabled MAC carries a frame either way, and the model says why for each.

mod support_sim;

use fe_driver::dt::Duplex;
use fe_driver::platform::{Clock, DmaError, DmaMemory, Platform};
use fe_driver::{Eth, LinkState};
use fe_regs::Space;
use fe_regs::bus::Bus;
use fe_sim::Sim;
use fe_sim::engine::SimBus;
use fe_sim::packet::{self, UdpSpec};
use fe_sim::violation::Violation;
use support_sim::{SimPlatform, boards, probe};

const GIGABIT: LinkState = LinkState { speed: 1000, duplex: Duplex::Full, pause: true };

/// Brings every enabled MAC's link up (fixed links are up from `open`).
fn links_up<P: Platform>(eth: &mut Eth<P>) -> Vec<u8> {
    let macs: Vec<(u8, bool)> = eth.enabled_macs().map(|m| (m.id, m.link.is_some())).collect();
    for &(id, up) in &macs {
        if !up {
            eth.link_up(id, GIGABIT).unwrap();
        }
    }
    macs.into_iter().map(|(id, _)| id).collect()
}

#[test]
fn open_sets_up_the_path_of_every_enabled_mac() {
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        let sim = Sim::for_board(&board);
        let enabled: Vec<u8> = board.enabled_macs().map(|m| m.id).collect();
        assert!(!enabled.is_empty(), "{name}: a board with no enabled MAC proves nothing");
        for &m in &enabled {
            assert!(sim.path_fault(usize::from(m)).is_some(), "{name}: MAC {m}'s path counts as set up at reset");
        }
        let mut eth = Eth::new(&board, SimPlatform(&sim)).expect(name);
        eth.open().expect(name);
        links_up(&mut eth);
        for m in board.enabled_macs() {
            assert_eq!(sim.path_fault(usize::from(m.id)), None, "{name}: MAC {} ({})", m.id, m.phy_mode);
            let setup = board.soc.caps.path_setup_for(m.id, m.phy_mode).expect("the probe accepted the mode");
            // The last write of each register holds (earlier ones may be pulses).
            for (i, w) in setup.writes.iter().enumerate() {
                let later = setup.writes[i + 1..].iter().any(|x| x.space == w.space && x.offset == w.offset);
                let bus = sim.space(w.space).expect("the SoC has the space");
                if !later {
                    let v = bus.read32(w.offset as usize);
                    assert!(
                        w.holds(v),
                        "{name}: MAC {} {}: {v:#x} & {:#x} != {:#x}",
                        m.id,
                        w.register,
                        w.mask,
                        w.value
                    );
                }
            }
        }
        assert!(sim.violations().is_empty(), "{name}: {:?}", sim.violations());
    }
}

/// The simulator as a platform whose writes to path-setup registers are lost: a driver without
/// path setup, as far as the chip can tell.
#[derive(Clone, Copy)]
struct NoPathSetup<'a>(SimPlatform<'a>);

#[derive(Clone, Copy)]
struct Lossy<'a>(SimBus<'a>, Space, &'static fe_regs::SocInfo);

impl Bus for Lossy<'_> {
    fn read32(&self, offset: usize) -> u32 {
        self.0.read32(offset)
    }
    fn write32(&self, offset: usize, value: u32) {
        let path = self
            .2
            .caps
            .path_setup
            .iter()
            .flat_map(|p| p.writes)
            .any(|w| w.space == self.1 && w.offset as usize == offset);
        if !path {
            self.0.write32(offset, value);
        }
    }
}

impl DmaMemory for NoPathSetup<'_> {
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
        self.0.dma_read(addr, out)
    }
    fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError> {
        self.0.dma_write(addr, data)
    }
}

impl Clock for NoPathSetup<'_> {
    fn now_ns(&self) -> u64 {
        self.0.now_ns()
    }
    fn delay_ns(&self, ns: u64) {
        self.0.delay_ns(ns);
    }
}

impl<'a> Platform for NoPathSetup<'a> {
    type Fe = Lossy<'a>;
    type Syscon = Lossy<'a>;
    fn fe(&self) -> Lossy<'a> {
        Lossy(self.0.fe(), Space::Fe, self.0.0.soc())
    }
    fn syscon(&self, space: Space) -> Option<Lossy<'a>> {
        Some(Lossy(self.0.syscon(space)?, space, self.0.0.soc()))
    }
}

#[test]
fn without_path_setup_no_mac_carries_frames_and_the_model_says_why() {
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        let sim = Sim::for_board(&board);
        let mut eth = Eth::new(&board, NoPathSetup(SimPlatform(&sim))).expect(name);
        eth.open().expect(name);
        let macs = links_up(&mut eth);
        let frame = packet::build_udp(&UdpSpec { payload_len: 100, ..UdpSpec::default() });
        for &m in &macs {
            eth.xmit(m, eth.queue_for_mac(m), &frame).unwrap();
            sim.send_to_mac(usize::from(m), frame.clone());
        }
        sim.advance(5_000_000);
        let mut got = 0;
        while eth.poll(64, &mut |_| got += 1) == 64 {}
        assert_eq!(got, 0, "{name}: a frame came in through an unset path");
        let violations = sim.violations();
        for &m in &macs {
            assert!(sim.take_sent(usize::from(m)).is_empty(), "{name}: MAC {m} sent through an unset path");
            let why = violations.iter().find_map(|(_, v)| match v {
                Violation::PathNotSetUp { mac, interface, register, .. } if *mac == m => Some((*interface, *register)),
                _ => None,
            });
            let (interface, register) =
                why.unwrap_or_else(|| panic!("{name}: MAC {m}: no reason given: {violations:?}"));
            let wired = board.macs().find(|c| c.id == m).unwrap().phy_mode;
            assert_eq!(interface, wired, "{name}: MAC {m}");
            let setup = board.soc.caps.path_setup_for(m, wired).unwrap();
            assert!(
                setup.writes.iter().any(|w| w.register == register),
                "{name}: MAC {m}: {register} is not on its path"
            );
        }
        // Everything else the driver did was legal.
        assert!(violations.iter().all(|(_, v)| matches!(v, Violation::PathNotSetUp { .. })), "{name}: {violations:?}");
    }
}
