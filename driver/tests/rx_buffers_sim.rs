//! Zero-copy receive against the simulator, for every bundled board: with the simulator's pool
//! attached, every frame goes up in the DMA buffer it arrived in with its bytes intact and the
//! core reads none of them; the engine never writes into a buffer once it is handed up; an
//! empty pool drops and counts frames and the ring recovers when buffers come back; close
//! keeps the pool's buffers for the next open and drop gives every one back (no DMA memory in
//! use); the DMA contract holds (the model reports a missing barrier); copying stays available.

mod support_sim;

use core::cell::Cell;
use fe_driver::dt::Duplex;
use fe_driver::platform::{Clock, DmaError, DmaMemory, Platform, RxPool};
use fe_driver::{Eth, EthError, LinkState, Received, RxChecksum};
use fe_sim::driver_platform::{RX_POOL_BUF, SimRxBuf};
use fe_sim::packet::{TcpSpec, TcpStream};
use fe_sim::{Sim, SimBus, Violation};
use support_sim::{SimPlatform, boards, probe};

/// Which barrier the platform leaves out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Missing {
    None,
    Wmb,
    Rmb,
}

/// The simulator's platform and pool, counting the bytes the core reads out of DMA memory with
/// `dma_read` (descriptor words go through `dma_read_words`, not counted), and leaving a
/// barrier out while `missing` says so.
struct Probe<'a> {
    sim: SimPlatform<'a>,
    read: Cell<usize>,
    missing: Cell<Missing>,
}

impl<'a> Probe<'a> {
    fn new(sim: &'a Sim) -> Self {
        Probe { sim: SimPlatform(sim), read: Cell::new(0), missing: Cell::new(Missing::None) }
    }
}

impl DmaMemory for Probe<'_> {
    fn dma_alloc(&self, size: usize, align: usize) -> Option<u64> {
        self.sim.dma_alloc(size, align)
    }
    fn dma_free(&self, addr: u64, size: usize) {
        self.sim.dma_free(addr, size);
    }
    fn rx_release(&self, addr: u64, size: usize) {
        self.sim.rx_release(addr, size);
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
        self.read.set(self.read.get() + out.len());
        self.sim.dma_read(addr, out)
    }
    fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError> {
        self.sim.dma_write(addr, data)
    }
    fn dma_read_words(&self, addr: u64, out: &mut [u32]) -> Result<(), DmaError> {
        self.sim.dma_read_words(addr, out)
    }
}

impl Clock for Probe<'_> {
    fn now_ns(&self) -> u64 {
        self.sim.now_ns()
    }
    fn delay_ns(&self, ns: u64) {
        self.sim.delay_ns(ns);
    }
}

impl<'a> Platform for Probe<'a> {
    type Fe = SimBus<'a>;
    type Syscon = SimBus<'a>;
    fn fe(&self) -> SimBus<'a> {
        self.sim.fe()
    }
    fn syscon(&self, space: fe_regs::Space) -> Option<SimBus<'a>> {
        self.sim.0.space(space)
    }
}

impl RxPool for Probe<'_> {
    type Buf = SimRxBuf;
    fn rx_alloc(&self, size: usize) -> Option<u32> {
        self.sim.rx_alloc(size)
    }
    fn rx_swap(&self, filled: u32, len: usize) -> Option<(u32, SimRxBuf)> {
        self.sim.rx_swap(filled, len)
    }
}

/// A frame the stack got: its MAC, checksum verdict and buffer.
#[derive(Debug)]
struct Got {
    mac: u8,
    checksum: RxChecksum,
    buf: SimRxBuf,
}

const GIGABIT: LinkState = LinkState { speed: 1000, duplex: Duplex::Full, pause: true };

/// A driver on `sim` for board `name` with the pool attached and the engine open, every
/// enabled MAC's link up; returns it with its first enabled MAC.
fn open_pooled<'a>(name: &str, board: &fe_driver::dt::Board<'_>, sim: &'a Sim) -> (Eth<Probe<'a>>, u8) {
    let mut eth = Eth::new(board, Probe::new(sim)).expect(name);
    eth.rx_pool_attach().expect(name);
    eth.open().expect(name);
    let macs: Vec<(u8, bool)> = eth.enabled_macs().map(|m| (m.id, m.link.is_some())).collect();
    for &(id, up) in &macs {
        if !up {
            eth.link_up(id, GIGABIT).expect(name);
        }
    }
    (eth, macs[0].0)
}

/// Polls until the rings are empty; every frame must come up in its own buffer.
fn poll_all(name: &str, eth: &mut Eth<Probe<'_>>) -> Vec<Got> {
    let mut got = Vec::new();
    while eth.poll_buffers(64, &mut |r| match r {
        Received::Buffer(b) => got.push(Got { mac: b.mac, checksum: b.checksum, buf: b.buf }),
        Received::Copied(f) => panic!("{name}: a frame of {} bytes was copied", f.data.len()),
    }) == 64
    {}
    got
}

/// `n` TCP frames of one flow, from 60 bytes on the wire (6 bytes of payload) to 1514.
fn frames(n: usize) -> Vec<Vec<u8>> {
    let spec = TcpSpec { payload_seed: 0x2c0f, ..Default::default() };
    let mut s = TcpStream::new(spec, 1460);
    (0..n).map(|k| s.next_segment_with([6, 1460, 300, 1, 999][k % 5])).collect()
}

/// Sends `fs` to MAC `mac` and lets the model deliver them.
fn send(sim: &Sim, mac: u8, fs: &[Vec<u8>]) {
    for f in fs {
        sim.send_to_mac(usize::from(mac), f.clone());
    }
    sim.advance(5_000_000);
}

/// Runs `f` for every bundled board, checking that every SoC was covered and that the model
/// reported nothing and all DMA memory is back after `f` (which drops the driver).
fn each_board(f: impl Fn(&str, &fe_driver::dt::Board<'_>, &Sim)) {
    let mut socs = Vec::new();
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        let sim = Sim::for_board(&board);
        f(name, &board, &sim);
        assert!(sim.violations().is_empty(), "{name}: {:?}", sim.violations());
        assert_eq!(sim.dma_in_use(), 0, "{name}: DMA memory in use after drop");
        socs.push(board.soc.name);
    }
    let mut all: Vec<&str> = fe_regs::SOCS.iter().map(|s| s.name).collect();
    socs.sort_unstable();
    socs.dedup();
    all.sort_unstable();
    assert_eq!(socs, all, "every SoC has a bundled board");
}

#[test]
fn every_frame_goes_up_in_its_own_buffer_with_its_bytes_and_nothing_is_copied() {
    each_board(|name, board, sim| {
        let (mut eth, mac) = open_pooled(name, board, sim);
        let first = frames(40);
        send(sim, mac, &first);
        eth.platform().read.set(0);
        let got = poll_all(name, &mut eth);
        assert_eq!(eth.platform().read.get(), 0, "{name}: the core read frame bytes");
        assert_eq!(got.len(), first.len(), "{name}: {:?}", eth.stats().drops);
        for (k, (g, f)) in got.iter().zip(&first).enumerate() {
            assert_eq!((g.mac, g.checksum), (mac, RxChecksum::Verified), "{name}: frame {k}");
            assert_eq!(&eth.platform().sim.rx_bytes(&g.buf), f, "{name}: frame {k} intact in its buffer");
        }
        let mut addrs: Vec<u64> = got.iter().map(|g| g.buf.addr).collect();
        addrs.sort_unstable();
        addrs.dedup();
        assert_eq!(addrs.len(), got.len(), "{name}: every frame in a buffer of its own");
        let c = eth.stats().mac[usize::from(mac)];
        let bytes: usize = first.iter().map(Vec::len).sum();
        assert_eq!((c.rx_frames, c.rx_bytes), (first.len() as u64, bytes as u64), "{name}: counted as received");

        // The stack still holds the first frames while the ring goes round more than once:
        // the engine never writes into a buffer that was handed up.
        for round in 0..3 {
            let more = frames(200);
            send(sim, mac, &more);
            let again = poll_all(name, &mut eth);
            assert_eq!(again.len(), more.len(), "{name}: round {round}");
            for (g, f) in again.iter().zip(&more) {
                assert!(!addrs.contains(&g.buf.addr), "{name}: a held buffer was posted again");
                assert_eq!(&eth.platform().sim.rx_bytes(&g.buf), f, "{name}: round {round}");
            }
            for g in again {
                eth.platform().sim.rx_recycle(g.buf);
            }
        }
        for (g, f) in got.iter().zip(&first) {
            assert_eq!(&eth.platform().sim.rx_bytes(&g.buf), f, "{name}: a held buffer was written");
        }
        assert_eq!(eth.platform().read.get(), 0, "{name}: the core read frame bytes");
        for g in got {
            eth.platform().sim.rx_recycle(g.buf);
        }
        assert_eq!(eth.stats().drops.rx_total(), 0, "{name}");
    });
}

#[test]
fn an_empty_pool_drops_and_counts_frames_and_the_ring_recovers() {
    each_board(|name, board, sim| {
        let (mut eth, mac) = open_pooled(name, board, sim);
        // Take every pool buffer the model's memory has left, then give back exactly 3.
        let mut hog = Vec::new();
        while let Some(a) = sim.dma_alloc(RX_POOL_BUF, 64) {
            hog.push(a);
        }
        for a in hog.drain(hog.len() - 3..) {
            sim.dma_free(a, RX_POOL_BUF);
        }
        let fs = frames(10);
        send(sim, mac, &fs);
        let got = poll_all(name, &mut eth);
        assert_eq!(got.len(), 3, "{name}: one frame per fresh buffer");
        for (g, f) in got.iter().zip(&fs) {
            assert_eq!(&eth.platform().sim.rx_bytes(&g.buf), f, "{name}");
        }
        let d = eth.stats().drops;
        assert_eq!(d.rx_no_buffer, 7, "{name}: {d:?}");
        assert_eq!(d.rx_total(), 7, "{name}: counted in the RX drops");
        assert_eq!(eth.stats().mac[usize::from(mac)].rx_frames, 3, "{name}");

        // More frames than the ring holds while the pool is empty: each is dropped, its buffer
        // posted again, and the ring goes round without running dry.
        let flood = frames(600);
        for chunk in flood.chunks(100) {
            send(sim, mac, chunk);
            assert!(poll_all(name, &mut eth).is_empty(), "{name}");
        }
        assert_eq!(eth.stats().drops.rx_no_buffer, 607, "{name}");

        // Buffers come back (the stack's and the rest of memory): every frame goes up again.
        for g in got {
            eth.platform().sim.rx_recycle(g.buf);
        }
        for a in hog {
            sim.dma_free(a, RX_POOL_BUF);
        }
        let fs = frames(30);
        send(sim, mac, &fs);
        let got = poll_all(name, &mut eth);
        assert_eq!(got.len(), fs.len(), "{name}: the ring works once buffers come back");
        for (g, f) in got.into_iter().zip(&fs) {
            assert_eq!(eth.platform().sim.rx_bytes(&g.buf), *f, "{name}");
            eth.platform().sim.rx_recycle(g.buf);
        }
        assert_eq!(eth.stats().drops.rx_no_buffer, 607, "{name}");
    });
}

#[test]
fn close_keeps_the_pool_buffers_for_open_and_drop_gives_every_one_back() {
    each_board(|name, board, sim| {
        // Attaching frees the ring's own buffers: the pool's take their place, no more.
        let before = {
            let eth = Eth::new(board, Probe::new(sim)).expect(name);
            let own = sim.dma_in_use();
            drop(eth);
            own
        };
        let (mut eth, mac) = open_pooled(name, board, sim);
        assert_eq!(sim.dma_in_use(), before, "{name}: the pool's buffers replace the ring's own");
        assert_eq!(eth.rx_pool_attach(), Err(EthError::AlreadyOpen), "{name}: only while closed");

        send(sim, mac, &frames(20));
        let held = poll_all(name, &mut eth);
        // Received and not polled at close: counted, their buffers stay in the ring.
        send(sim, mac, &frames(5));
        let report = eth.close().expect(name);
        assert_eq!((report.rx_dropped, report.leaked.total()), (5, 0), "{name}: {report:?}");
        eth.open().expect(name);
        let fs = frames(300);
        for chunk in fs.chunks(100) {
            send(sim, mac, chunk);
            let got = poll_all(name, &mut eth);
            assert_eq!(got.len(), chunk.len(), "{name}: the pooled ring works after close and open");
            for (g, f) in got.into_iter().zip(chunk) {
                assert_eq!(eth.platform().sim.rx_bytes(&g.buf), *f, "{name}");
                eth.platform().sim.rx_recycle(g.buf);
            }
        }
        // Dropped while open, with frames in the ring and the stack holding 20 buffers: the
        // stack's are the stack's to give back; everything else goes back with the driver.
        send(sim, mac, &frames(7));
        drop(eth);
        for g in held {
            SimPlatform(sim).rx_recycle(g.buf);
        }
    });
}

#[test]
fn a_pool_that_cannot_fill_the_ring_changes_nothing() {
    each_board(|name, board, sim| {
        let mut eth = Eth::new(board, Probe::new(sim)).expect(name);
        let own = sim.dma_in_use();
        let mut hog = Vec::new();
        while let Some(a) = sim.dma_alloc(RX_POOL_BUF, 64) {
            hog.push(a);
        }
        for a in hog.drain(hog.len() - 10..) {
            sim.dma_free(a, RX_POOL_BUF);
        }
        let e = eth.rx_pool_attach().expect_err(name);
        assert!(matches!(e, EthError::Alloc(_)), "{name}: {e}");
        assert_eq!(sim.dma_in_use(), own + hog.len() * RX_POOL_BUF, "{name}: what the pool lent went back");
        for a in hog {
            sim.dma_free(a, RX_POOL_BUF);
        }
        // Without a pool, the zero-copy poll copies, as `poll` does.
        eth.open().expect(name);
        let mac = eth.enabled_macs().find(|m| m.link.is_some()).map(|m| m.id).expect(name);
        let fs = frames(10);
        send(sim, mac, &fs);
        let mut copied = Vec::new();
        while eth.poll_buffers(64, &mut |r| match r {
            Received::Copied(f) => copied.push(f.data.to_vec()),
            Received::Buffer(b) => panic!("{name}: a buffer went up without a pool: {b:?}"),
        }) == 64
        {}
        assert_eq!(copied, fs, "{name}");
        assert!(eth.platform().read.get() >= fs.iter().map(Vec::len).sum(), "{name}: copied by the core");
    });
}

#[test]
fn copying_poll_and_softlro_work_on_a_pooled_ring() {
    each_board(|name, board, sim| {
        let (mut eth, mac) = open_pooled(name, board, sim);
        let fs = frames(40);
        send(sim, mac, &fs);
        let mut copied = Vec::new();
        while eth.poll(64, &mut |f| copied.push(f.data.to_vec())) == 64 {}
        assert_eq!(copied, fs, "{name}: poll copies out of the pool's buffers");
        // SoftLRO on a pooled ring: one bulk flow coalesces (its one copy, into the aggregate).
        let f = fe_driver::Features { lro: fe_driver::LroMode::Soft, ..eth.features() };
        eth.set_features(f).expect(name);
        let mut storage = vec![0u8; 8 * 65536];
        let mut lro = fe_driver::softlro::SoftLro::new(&mut storage, 8);
        let mut s = TcpStream::bulk(false, None);
        let bulk: Vec<Vec<u8>> = (0..60).map(|_| s.next_segment()).collect();
        send(sim, mac, &bulk);
        let (mut aggregates, mut segs, mut payload) = (0, 0, 0);
        while eth.poll_buffers_coalesced(64, &mut lro, &mut |r| match r {
            Received::Copied(f) => {
                aggregates += 1;
                segs += usize::from(f.segs);
                payload += f.data.len() - 66;
            }
            Received::Buffer(b) => panic!("{name}: a bulk segment went up uncoalesced: {b:?}"),
        }) == 64
        {}
        assert_eq!(segs, bulk.len(), "{name}: every segment in an aggregate");
        assert!(aggregates < bulk.len() / 10, "{name}: {aggregates} aggregates");
        assert_eq!(payload, bulk.iter().map(|f| f.len() - 66).sum::<usize>(), "{name}: payload intact in length");
        assert_eq!(eth.stats().drops.rx_total(), 0, "{name}");
    });
}

/// Receives a few frames zero-copy with `missing` left out during the polls; returns the
/// model's violations (the driver dropped, its buffers given back).
fn run_missing(name: &str, board: &fe_driver::dt::Board<'_>, sim: &Sim, missing: Missing) -> Vec<Violation> {
    let (mut eth, mac) = open_pooled(name, board, sim);
    let mut held = Vec::new();
    for _ in 0..4 {
        send(sim, mac, &frames(3));
        eth.platform().missing.set(missing);
        held.extend(poll_all(name, &mut eth));
        eth.platform().missing.set(Missing::None);
    }
    drop(eth);
    for g in held {
        SimPlatform(sim).rx_recycle(g.buf);
    }
    sim.violations().into_iter().map(|(_, v)| v).collect()
}

#[test]
fn zero_copy_receive_keeps_the_dma_contract() {
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        // Without the write barrier, the swapped address words reach the CPU index unpublished;
        // unless ring 0's descriptors are in the SoC's SRAM, written through the (ordered) bus.
        let sim = Sim::for_board(&board);
        let v = run_missing(name, &board, &sim, Missing::Wmb);
        let cpu = board.soc.fe.pdma.pcrx_ptr.at(0).unwrap().offset();
        if matches!(board.soc.caps.rings, fe_regs::caps::RingPlacement::Sram { .. }) {
            assert!(v.is_empty(), "{name}: descriptors in SRAM need no DMA write barrier: {v:?}");
        } else {
            assert!(
                v.iter().any(|v| matches!(v, Violation::UnpublishedDmaWrites { offset, .. } if *offset == cpu)),
                "{name}: {v:?}"
            );
        }
        // Without the read barrier, the descriptor's words are read before it; descriptors in
        // SRAM are read through the ordered bus, and the zero-copy path reads no buffer byte
        // (the platform syncs the buffer for the CPU when it takes it), so nothing is out of
        // order there.
        let sim = Sim::for_board(&board);
        let v = run_missing(name, &board, &sim, Missing::Rmb);
        if matches!(board.soc.caps.rings, fe_regs::caps::RingPlacement::Sram { .. }) {
            assert!(v.is_empty(), "{name}: {v:?}");
        } else {
            assert!(v.iter().any(|v| matches!(v, Violation::ReadBeforeBarrier { .. })), "{name}: {v:?}");
        }
        // With both, nothing.
        let sim = Sim::for_board(&board);
        let v = run_missing(name, &board, &sim, Missing::None);
        assert!(v.is_empty(), "{name}: {v:?}");
        assert_eq!(sim.dma_in_use(), 0, "{name}");
    }
}
