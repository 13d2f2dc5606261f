//! Split handles driven from real threads, on every bundled board: TX on one thread, NAPI on
//! another, the interrupt handler and control (feature toggles, moderation, `ethtool -S`) on a
//! third, while the test thread plays the wire and the clock. Every frame sent is sent once,
//! every frame received is delivered once and in order, nothing is dropped, and the model
//! reports no ordering violation.
//!
//! The simulator sits behind one mutex (the "chip"); each platform call takes it, and the
//! interrupt-mask updates go through `modify32`, which holds it across the read and the write.
//! Nothing here depends on timing: the test waits on work, never on the wall clock, and the
//! wire only sends while the RX ring has room.

mod support_sim;

use fe_driver::platform::{Clock, DmaError, DmaMemory, Platform};
use fe_driver::{Eth, Features, IrqWork, LinkState};
use fe_regs::bus::Bus;
use fe_regs::caps::IrqLayout;
use fe_sim::Sim;
use fe_sim::packet::TcpStream;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::sync::mpsc;
use support_sim::{boards, probe};

std::thread_local! {
    /// The CPU the current thread stands for (its write buffer and read ordering in the model).
    static CPU: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Locks the simulator for an access by the current thread's CPU.
fn cpu_lock(sim: &Mutex<Sim>) -> std::sync::MutexGuard<'_, Sim> {
    let g = sim.lock().unwrap();
    g.select_cpu(CPU.get());
    g
}

/// The simulator behind a lock, as a `Sync` platform.
#[derive(Clone, Copy)]
struct Locked<'a>(&'a Mutex<Sim>);

/// One register space of the locked simulator.
#[derive(Clone, Copy)]
struct LockedBus<'a> {
    sim: &'a Mutex<Sim>,
    space: fe_regs::Space,
}

impl LockedBus<'_> {
    fn with<R>(&self, f: impl FnOnce(&dyn Bus) -> R) -> R {
        let sim = cpu_lock(self.sim);
        f(&sim.space(self.space).expect("a space of the SoC"))
    }
}

impl Bus for LockedBus<'_> {
    fn read32(&self, offset: usize) -> u32 {
        self.with(|b| b.read32(offset))
    }
    fn write32(&self, offset: usize, value: u32) {
        self.with(|b| b.write32(offset, value));
    }
    /// Read and write under one hold of the lock: atomic against every other access.
    fn modify32(&self, offset: usize, mask: u32, value: u32) {
        self.with(|b| {
            let v = b.read32(offset);
            b.write32(offset, (v & !mask) | (value & mask));
        });
    }
}

impl DmaMemory for Locked<'_> {
    fn dma_alloc(&self, size: usize, align: usize) -> Option<u64> {
        cpu_lock(self.0).dma_alloc(size, align)
    }
    fn dma_free(&self, addr: u64, size: usize) {
        cpu_lock(self.0).dma_free(addr, size);
    }
    fn dma_wmb(&self) {
        cpu_lock(self.0).dma_wmb();
    }
    fn dma_rmb(&self) {
        cpu_lock(self.0).dma_rmb();
    }
    fn dma_read(&self, addr: u64, out: &mut [u8]) -> Result<(), DmaError> {
        cpu_lock(self.0).cpu_read_into(addr, out).map_err(|_| DmaError::new(addr, out.len()))
    }
    fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError> {
        cpu_lock(self.0).cpu_write(addr, data).map_err(|_| DmaError::new(addr, data.len()))
    }
}

impl Clock for Locked<'_> {
    fn now_ns(&self) -> u64 {
        cpu_lock(self.0).now()
    }
    fn delay_ns(&self, ns: u64) {
        cpu_lock(self.0).advance(ns);
    }
}

impl<'a> Platform for Locked<'a> {
    type Fe = LockedBus<'a>;
    type Syscon = LockedBus<'a>;
    fn fe(&self) -> LockedBus<'a> {
        LockedBus { sim: self.0, space: fe_regs::Space::Fe }
    }
    fn syscon(&self, space: fe_regs::Space) -> Option<LockedBus<'a>> {
        cpu_lock(self.0).space(space).is_some().then_some(LockedBus { sim: self.0, space })
    }
}

/// Frames each way per board.
const FRAMES: u64 = 3_000;
/// Most frames the wire lets wait in the RX ring (it holds more), so none overflows.
const IN_FLIGHT: u64 = 128;
/// Steps of the wire (10 µs of simulated time each) before the test gives up.
const MAX_STEPS: u64 = 2_000_000;

/// The TCP sequence number of a frame built by `TcpStream` (plain IPv4, no VLAN).
fn seq_of(frame: &[u8]) -> u32 {
    u32::from_be_bytes(frame[38..42].try_into().unwrap())
}

#[test]
fn tx_napi_irq_and_control_on_their_own_threads_lose_nothing() {
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        let soc = board.soc;
        let sim = Mutex::new(Sim::for_board(&board));
        let mut eth = Eth::new(&board, Locked(&sim)).unwrap();
        eth.open().unwrap();
        let mac = eth.enabled_macs().next().expect("an enabled MAC").id;
        if eth.mac(mac).unwrap().link.is_none() {
            eth.link_up(mac, LinkState { speed: 1000, duplex: fe_driver::dt::Duplex::Full, pause: false }).unwrap();
        }
        let queue = eth.queue_for_mac(mac);
        let lines: Vec<u8> = match soc.caps.irq.layout {
            IrqLayout::Shared { line } => vec![line],
            IrqLayout::Split { tx, rx } => vec![tx, rx],
        };
        let mut tx_stream = TcpStream::bulk(false, None);
        let tx_frames: Vec<Vec<u8>> = (0..FRAMES).map(|_| tx_stream.next_segment()).collect();
        let mut rx_stream = TcpStream::bulk(true, None);
        let rx_frames: Vec<Vec<u8>> = (0..FRAMES).map(|_| rx_stream.next_segment()).collect();

        let delivered = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let (rx_work, rx_wait) = mpsc::channel::<()>();
        let (tx_work, tx_wait) = mpsc::channel::<()>();
        let split = eth.split();
        let (mut tx, mut rx, irq, mut ctl) = (split.tx, split.rx, split.irq, split.ctl);
        let mut got_seqs = Vec::new();
        let mut sent = 0u64;
        let mut toggles = 0u64;
        let (stop, delivered, got) = (&stop, &delivered, &mut got_seqs);
        std::thread::scope(|s| {
            // TX: queue every frame, reclaiming when the TX interrupt says so.
            let frames = &tx_frames;
            s.spawn(move || {
                CPU.set(1);
                for f in frames {
                    while !tx.can_xmit(mac) {
                        if tx.reclaim() == 0 {
                            tx_wait.recv().unwrap();
                            irq.irq_enable(IrqWork { rx: false, tx: true });
                        }
                    }
                    tx.xmit(mac, queue, f).unwrap();
                }
                while tx.reclaim() > 0 || !stop.load(SeqCst) {
                    if tx_wait.recv_timeout(std::time::Duration::from_millis(1)).is_ok() {
                        irq.irq_enable(IrqWork { rx: false, tx: true });
                    }
                }
            });
            // NAPI: poll to budget on every RX interrupt, unmask when drained.
            s.spawn(move || {
                CPU.set(2);
                while rx_wait.recv().is_ok() {
                    while rx.poll(64, &mut |f| {
                        got.push(seq_of(f.data));
                        delivered.fetch_add(1, SeqCst);
                    }) == 64
                    {}
                    irq.irq_enable(IrqWork { rx: true, tx: false });
                }
            });
            // Interrupts and control: the handler of each line, and feature toggles meanwhile.
            let (sim, lines, toggles) = (&sim, &lines, &mut toggles);
            s.spawn(move || {
                CPU.set(3);
                let mut i = 0u64;
                while !stop.load(SeqCst) {
                    for &line in lines {
                        if sim.lock().unwrap().irq(line) {
                            let work = irq.irq(line);
                            if work.rx {
                                rx_work.send(()).unwrap();
                            }
                            if work.tx {
                                // The TX thread may have finished: then nothing waits for it.
                                let _ = tx_work.send(());
                            }
                        }
                    }
                    // From the first round on (the traffic cannot finish without this thread
                    // dispatching its interrupts, so control always runs while frames move),
                    // then every 64 rounds.
                    if i.is_multiple_of(64) {
                        let on = i.is_multiple_of(128);
                        ctl.set_features(Features { rx_checksum: on, tx_checksum: on, tso: on, ..ctl.features() })
                            .unwrap();
                        ctl.ethtool_stats(mac, &mut |_, _| ());
                        *toggles += 1;
                    }
                    i += 1;
                    std::thread::yield_now();
                }
                drop(rx_work);
            });
            // The wire and the clock.
            let mut injected = 0u64;
            for _ in 0..MAX_STEPS {
                let done_rx = delivered.load(SeqCst);
                {
                    let sim = sim.lock().unwrap();
                    while injected < FRAMES && injected - done_rx < IN_FLIGHT {
                        sim.send_to_mac(usize::from(mac), rx_frames[injected as usize].clone());
                        injected += 1;
                    }
                    sim.advance(10_000);
                    sent += sim.take_sent(usize::from(mac)).len() as u64;
                }
                if done_rx == FRAMES && sent == FRAMES {
                    break;
                }
                std::thread::yield_now();
            }
            stop.store(true, SeqCst);
        });
        let want: Vec<u32> = rx_frames.iter().map(|f| seq_of(f)).collect();
        assert_eq!(got_seqs.len(), want.len(), "{name}: every received frame delivered once");
        assert!(got_seqs == want, "{name}: delivered in order");
        assert_eq!(sent, FRAMES, "{name}: every queued frame sent once");
        assert!(toggles > 0, "{name}: the control thread ran");
        let st = eth.stats();
        assert_eq!((st.drops.tx_total(), st.drops.rx_total()), (0, 0), "{name}: {:?}", st.drops);
        assert_eq!(st.tx_frames(), FRAMES, "{name}");
        assert!(st.irq_rx > 0 && st.irq_tx > 0, "{name}: interrupts drove both paths");
        let report = eth.close().unwrap();
        assert_eq!(report.leaked.total(), 0, "{name}");
        drop(eth);
        let sim = sim.into_inner().unwrap();
        assert_eq!(sim.violations(), vec![], "{name}: no model violation");
        assert_eq!(sim.dma_in_use(), 0, "{name}: all DMA memory returned");
    }
}
