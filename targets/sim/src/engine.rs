//! The engine: MMIO semantics and side effects, QDMA TX, PDMA RX, GDMA checksum checks, MACs,
//! MIB counters, interrupts and cold reset, advanced in simulated nanoseconds.

use crate::capture::Capture;
use crate::dma::DmaMemory;
use crate::fault::{Fault, Schedule};
use crate::regfile::RegFile;
use crate::switch::{self, Switch};
use crate::violation::Violation;
use crate::wire::Wire;
use alloc::collections::VecDeque;
use alloc::vec::Vec;
use core::cell::RefCell;
use fe_regs::bus::Bus;
use fe_regs::caps::IrqLayout;
use fe_regs::{SocInfo, Space};

/// Default DMA memory size (16 MiB).
pub const DEFAULT_DMA_BYTES: usize = 16 << 20;
pub use crate::queues::QUEUES;
/// Frames the engine buffers internally per MAC when the driver sets no free-queue size.
pub const DEFAULT_FQ_FRAMES: usize = 512;

/// One MAC's side of the world: the wire it sends on, the frames arriving for it.
#[derive(Debug, Default)]
pub(crate) struct MacPort {
    pub(crate) tx: Wire,
    /// Frames arriving: `(time the last bit arrives, frame, the frame ends in an FCS)`.
    pub(crate) rx: VecDeque<(u64, Vec<u8>, bool)>,
    pub(crate) rx_link: Wire,
    pub(crate) link_up: bool,
    /// The MAC may not start a frame before this time (802.3x pause from its link partner).
    pub(crate) paused_until: u64,
    pub(crate) corrupt_next: u32,
    pub(crate) capture_tx: Option<Capture>,
    pub(crate) capture_rx: Option<Capture>,
}

/// Counters of what the model did, for tests and benchmarks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Frames DMA'd from TX descriptors.
    pub tx_frames: u64,
    /// Frames written into RX descriptors.
    pub rx_frames: u64,
    /// Frames dropped because the RX ring had no free descriptor.
    pub rx_ring_full: u64,
    /// Frames dropped for any other reason (DMA off, link down, reset, forward = drop).
    pub rx_dropped: u64,
    /// Frames dropped on TX (MAC disabled, link down, bad port).
    pub tx_dropped: u64,
    /// Pause frames the switch sent to a CPU-side MAC.
    pub pause_frames: u64,
    /// Times the RX done status was raised (interrupts the model signalled, after moderation).
    pub rx_done_irqs: u64,
    /// Times the TX done status was raised (interrupts the model signalled, after moderation).
    pub tx_done_irqs: u64,
}

/// The engine's state (shared by the TX and RX halves in `tx.rs` and `rx.rs`).
#[derive(Debug)]
pub(crate) struct Inner {
    pub(crate) soc: &'static SocInfo,
    pub(crate) regs: RegFile,
    pub(crate) dma: DmaMemory,
    pub(crate) now: u64,
    pub(crate) macs: Vec<MacPort>,
    /// QDMA queues: frames taken from descriptors, waiting for their MAC.
    pub(crate) queues: crate::queues::TxQueues,
    /// Per queue: earliest time the max-rate shaper lets the next frame start.
    pub(crate) shaper_next: [u64; QUEUES],
    /// Per queue: time after which the queue is below its min rate again.
    pub(crate) min_next: [u64; QUEUES],
    /// Partial frame of a multi-descriptor TX.
    pub(crate) partial: Vec<u8>,
    /// The first descriptor of the frame being gathered: the engine takes a frame's offloads
    /// (checksum, TSO) from it, as Linux's driver sets them only there.
    pub(crate) partial_first: crate::tx::TxDesc,
    /// Frame buffers done with, for the next frames.
    pub(crate) buffers: crate::buffers::FrameBuffers,
    pub(crate) in_reset: bool,
    pub(crate) tx_hung: bool,
    pub(crate) rx_stall_until: u64,
    pub(crate) lost_irqs: u32,
    pub(crate) faults: Schedule,
    pub(crate) switches: Vec<Switch>,
    pub(crate) lro: crate::lro::Lro,
    pub(crate) violations: Vec<(u64, Violation)>,
    pub(crate) stats: Stats,
    pub(crate) rr: usize,
    /// The view of DMA memory (write buffer, read ordering) of the CPU making accesses now.
    pub(crate) cpu: crate::ordering::CpuView,
    /// Which CPU that is ([`Sim::select_cpu`]), and the views of the others, by CPU number.
    pub(crate) cpu_id: usize,
    pub(crate) parked_cpus: Vec<crate::ordering::CpuView>,
    /// The RX descriptor word holding the done bit, and its mask.
    pub(crate) rx_done: (usize, u32),
    /// Completions the delay-interrupt registers hold back.
    pub(crate) moderation: crate::moderation::Moderation,
    /// The on-chip SRAM (SoCs with SRAM rings).
    pub(crate) sram: crate::sram::Sram,
    /// The MAC path muxes (which interface each MAC is wired to, what the CPU set up).
    pub(crate) muxes: crate::mux::Muxes,
    /// The MDIO master behind `mdio.phy_iac` and its PHYs.
    pub(crate) mdio: crate::mdio::Mdio,
    /// RX rings as programmed ([`Inner::rx_rings`]), kept until a ring register is written or
    /// the engine resets (the ordering model looks them up at every one-word CPU read).
    rx_rings_seen: Option<[(u64, u64); 4]>,
}

/// The simulated frame engine.
#[derive(Debug)]
pub struct Sim {
    inner: RefCell<Inner>,
}

/// A bus onto one address space of a [`Sim`] (hand it to the driver or to `fe_regs` handles).
#[derive(Clone, Copy, Debug)]
pub struct SimBus<'a> {
    sim: &'a Sim,
    space: Space,
}

impl Bus for SimBus<'_> {
    fn read32(&self, offset: usize) -> u32 {
        self.sim.mmio_read(self.space, offset as u32)
    }
    fn write32(&self, offset: usize, value: u32) {
        self.sim.mmio_write(self.space, offset as u32, value)
    }
}

/// Offset of a register.
/// The offset of register `$reg` of block `$i` of the arrayed blocks `$blocks` (e.g.
/// `reg_of!(fe.mib, mac, rx_packets)`), if there is that block: one register relocated, not
/// the whole block (a MIB block has dozens), on paths that run per frame.
macro_rules! reg_of {
    ($blocks:expr, $i:expr, $reg:ident) => {
        $blocks.pick($i, |b| b.$reg).map(|r| r.offset())
    };
}
pub(crate) use reg_of;

/// The earlier of two optional times (this runs at every event of the engine's loop: no array
/// of options built and iterated, which is a copy each).
pub(crate) fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

pub(crate) fn off<T: Copy, A>(r: fe_regs::bus::RegSpec<T, A>) -> u32 {
    r.offset()
}

/// Offset of element `i` of a register array (`u32::MAX` when out of range).
pub(crate) fn elem<T: Copy, A>(a: fe_regs::bus::RegArray<T, A>, i: usize) -> u32 {
    a.at(i).map_or(u32::MAX, |r| r.offset())
}

/// The word of `soc`'s RX descriptor layout that holds the done bit, and its mask.
fn rx_done_bit(soc: &SocInfo) -> (usize, u32) {
    use fe_regs::descriptors::{DescriptorLayout, RxV1, RxV2};
    let w = match soc.caps.rx_descriptor {
        DescriptorLayout::RxV2 => RxV2::new().with_done(true).words,
        _ => RxV1::new().with_done(true).words,
    };
    w.iter().enumerate().find(|(_, m)| **m != 0).map_or((0, 0), |(i, m)| (i, *m))
}

impl Sim {
    /// A frame engine of `soc` at reset, with [`DEFAULT_DMA_BYTES`] of DMA memory and every MAC's
    /// link at 1000 Mbit/s.
    #[must_use]
    pub fn new(soc: &'static SocInfo) -> Self {
        Self::with_dma(soc, DEFAULT_DMA_BYTES)
    }

    /// Like [`Sim::new`] with `dma_bytes` of DMA memory.
    #[must_use]
    pub fn with_dma(soc: &'static SocInfo, dma_bytes: usize) -> Self {
        Self::with_dma_memory(soc, DmaMemory::new(dma_bytes))
    }

    /// Like [`Sim::new`], with the DMA memory a host lent: `region`, which the device reaches
    /// at bus address `base` (a kernel module passes a `dma_alloc_coherent` region and its DMA
    /// handle), so every DMA access of the model goes through memory mapped for a device.
    #[must_use]
    pub fn with_dma_region(soc: &'static SocInfo, region: &'static mut [u8], base: u64) -> Self {
        Self::with_dma_memory(soc, DmaMemory::over(region, base))
    }

    /// Like [`Sim::new`], DMA going to a guest's RAM (`region`, at guest physical address `base`)
    /// whose allocator is the guest's: the model behind a bus (the QEMU device), where every
    /// address of the RAM is the guest's to hand to the engine.
    #[must_use]
    pub fn with_guest_ram(soc: &'static SocInfo, region: &'static mut [u8], base: u64) -> Self {
        Self::with_dma_memory(soc, DmaMemory::guest_ram(region, base))
    }

    fn with_dma_memory(soc: &'static SocInfo, dma: DmaMemory) -> Self {
        let macs = (0..soc.caps.macs.len())
            .map(|_| MacPort { tx: Wire::new(1000), rx_link: Wire::new(1000), link_up: true, ..MacPort::default() })
            .collect();
        Sim {
            inner: RefCell::new(Inner {
                soc,
                regs: RegFile::new(soc),
                dma,
                now: 0,
                macs,
                queues: Default::default(),
                shaper_next: [0; QUEUES],
                min_next: [0; QUEUES],
                partial: Vec::new(),
                partial_first: crate::tx::TxDesc::default(),
                buffers: Default::default(),
                in_reset: false,
                tx_hung: false,
                rx_stall_until: 0,
                lost_irqs: 0,
                faults: Schedule::default(),
                switches: Vec::new(),
                lro: crate::lro::Lro::default(),
                violations: Vec::new(),
                stats: Stats::default(),
                rr: 0,
                cpu: crate::ordering::CpuView::default(),
                cpu_id: 0,
                parked_cpus: Vec::new(),
                rx_done: rx_done_bit(soc),
                moderation: crate::moderation::Moderation::default(),
                sram: crate::sram::Sram::new(soc),
                muxes: crate::mux::Muxes::new(soc),
                mdio: crate::mdio::Mdio::default(),
                rx_rings_seen: None,
            }),
        }
    }

    /// The SoC being modelled.
    #[must_use]
    pub fn soc(&self) -> &'static SocInfo {
        self.inner.borrow().soc
    }

    /// The frame-engine register window sits at physical address `base`, `size` bytes long (the
    /// Ethernet node's `reg`): on a SoC with SRAM rings the engine then finds descriptors at the
    /// SRAM's physical address (base + the SRAM offset). Until placed, the SRAM is reachable
    /// through the bus only.
    pub fn place_fe(&self, base: u64, size: u64) {
        self.inner.borrow_mut().sram.place(base, size);
    }

    /// The SRAM's physical address range, on a SoC with SRAM rings whose window is placed.
    #[must_use]
    pub fn sram_window(&self) -> Option<core::ops::Range<u64>> {
        self.inner.borrow().sram.window()
    }

    /// The frame-engine register space as a bus.
    #[must_use]
    pub fn fe(&self) -> SimBus<'_> {
        SimBus { sim: self, space: Space::Fe }
    }

    /// The board wires interface `phy_mode` to MAC `mac` (`None`: not modelled): from now on
    /// the MAC carries frames only while its path is set up for it (see `Violation::PathNotSetUp`).
    pub fn wire_interface(&self, mac: usize, phy_mode: Option<&str>) {
        let mut s = self.inner.borrow_mut();
        let soc = s.soc;
        let stat = phy_mode.and_then(|m| soc.caps.macs.get(mac)?.phy_modes.iter().copied().find(|x| *x == m));
        let stat = match (phy_mode, stat) {
            (Some(_), None) => Some("(a phy mode the MAC does not take)"),
            (_, s) => s,
        };
        s.muxes.wire(mac, stat);
    }

    /// Attaches a PHY at MDIO address `addr` (a board's `phy-handle` PHY; link up, gigabit by
    /// Clause 22, 2.5GBASE-T by Clause 45): PHY_IAC frames to it complete with its registers;
    /// other addresses read all ones.
    pub fn attach_phy(&self, addr: u8) {
        self.inner.borrow_mut().mdio.attach(addr);
    }

    /// Why MAC `mac` carries no frames now, if its path is not set up for its interface.
    #[must_use]
    pub fn path_fault(&self, mac: usize) -> Option<Violation> {
        self.inner.borrow().path_fault(mac)
    }

    /// The ETHSYS syscon register space as a bus.
    #[must_use]
    pub fn ethsys(&self) -> SimBus<'_> {
        SimBus { sim: self, space: Space::Ethsys }
    }

    /// The bus of any space of the SoC (frame engine or a syscon), `None` for a space the SoC's
    /// map does not have.
    #[must_use]
    pub fn space(&self, space: Space) -> Option<SimBus<'_>> {
        let soc = self.inner.borrow().soc;
        soc.registers.iter().any(|r| r.space == space).then_some(SimBus { sim: self, space })
    }

    /// Current simulated time in nanoseconds.
    #[must_use]
    pub fn now(&self) -> u64 {
        self.inner.borrow().now
    }

    /// Aggregates hardware LRO has written to its rings.
    #[must_use]
    pub fn lro_aggregates(&self) -> u64 {
        self.inner.borrow().lro.flushed
    }

    /// Counters of what the engine did.
    #[must_use]
    pub fn stats(&self) -> Stats {
        self.inner.borrow().stats
    }

    /// Every violation so far, with the simulated time it happened at.
    #[must_use]
    pub fn violations(&self) -> Vec<(u64, Violation)> {
        self.inner.borrow().violations.clone()
    }

    /// The violations recorded after the first `seen` ones (a host that reports them as they
    /// happen asks after every access: nothing is copied when there is nothing new).
    #[must_use]
    pub fn violations_since(&self, seen: usize) -> Vec<(u64, Violation)> {
        self.inner.borrow().violations.get(seen..).map(<[_]>::to_vec).unwrap_or_default()
    }

    /// Allocates DMA memory; `None` when it is exhausted.
    pub fn dma_alloc(&self, size: usize, align: usize) -> Option<u64> {
        self.inner.borrow_mut().dma.alloc(size, align)
    }

    /// Gives back DMA memory from [`Sim::dma_alloc`]; a free that matches no allocation is
    /// recorded as a violation.
    pub fn dma_free(&self, addr: u64, size: usize) {
        let mut s = self.inner.borrow_mut();
        if let Err(v) = s.dma.free(addr, size) {
            s.violate(v);
        }
    }

    /// DMA memory allocated and not freed, in bytes.
    #[must_use]
    pub fn dma_in_use(&self) -> usize {
        self.inner.borrow().dma.in_use()
    }

    /// Makes CPU `cpu` the one whose DMA accesses and barriers follow (CPU 0 until then). Each
    /// CPU has its own write buffer and read ordering, as on a multi-core SoC: a barrier on
    /// one orders nothing on another. A host running the driver on several threads selects
    /// the thread's CPU before each access, under the lock that serialises the model.
    pub fn select_cpu(&self, cpu: usize) {
        let s = &mut *self.inner.borrow_mut();
        if cpu == s.cpu_id {
            return;
        }
        let n = cpu.max(s.cpu_id) + 1;
        if s.parked_cpus.len() < n {
            s.parked_cpus.resize_with(n, Default::default);
        }
        core::mem::swap(&mut s.cpu, &mut s.parked_cpus[s.cpu_id]);
        core::mem::swap(&mut s.cpu, &mut s.parked_cpus[cpu]);
        s.cpu_id = cpu;
    }

    /// A CPU write to DMA memory as a driver makes it: it waits in the write buffer, unseen by
    /// the engine, until [`Sim::dma_wmb`] (a long one, a frame's payload, may reach memory at
    /// once, but counts as unpublished until then all the same).
    pub fn cpu_write(&self, addr: u64, data: &[u8]) -> Result<(), Violation> {
        let s = &mut *self.inner.borrow_mut();
        s.cpu.write(&mut s.dma, addr, data)
    }

    /// [`Sim::cpu_write`] of little-endian 32-bit words (descriptors).
    pub fn cpu_write_words(&self, addr: u64, words: &[u32]) -> Result<(), Violation> {
        let s = &mut *self.inner.borrow_mut();
        s.cpu.write_words(&s.dma, addr, words)
    }

    /// A CPU read of DMA memory as a driver makes it: it sees the CPU's own unpublished
    /// writes, and a read that follows an RX descriptor's done bit without [`Sim::dma_rmb`] is
    /// recorded as a violation.
    pub fn cpu_read_into(&self, addr: u64, out: &mut [u8]) -> Result<(), Violation> {
        self.inner.borrow_mut().cpu_read(|cpu, mem, rx| cpu.read(mem, rx, addr, out))
    }

    /// [`Sim::cpu_read_into`] of little-endian 32-bit words (descriptors): the same view and
    /// checks, without going through bytes.
    pub fn cpu_read_words(&self, addr: u64, out: &mut [u32]) -> Result<(), Violation> {
        self.inner.borrow_mut().cpu_read(|cpu, mem, rx| cpu.read_words(mem, rx, addr, out))
    }

    /// The CPU's DMA write barrier: its buffered writes reach memory.
    pub fn dma_wmb(&self) {
        let s = &mut *self.inner.borrow_mut();
        s.cpu.wmb(&mut s.dma);
    }

    /// The CPU's DMA read barrier.
    pub fn dma_rmb(&self) {
        self.inner.borrow_mut().cpu.rmb();
    }

    /// Writes DMA memory directly (a coherent backdoor for tests; drivers use
    /// [`Sim::cpu_write`]).
    pub fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), Violation> {
        self.inner.borrow_mut().dma.write(addr, data)
    }

    /// Reads DMA memory from the CPU side into `out` (no allocation).
    pub fn dma_read_into(&self, addr: u64, out: &mut [u8]) -> Result<(), Violation> {
        let s = self.inner.borrow();
        out.copy_from_slice(s.dma.read(addr, out.len())?);
        Ok(())
    }

    /// Reads DMA memory from the CPU side.
    pub fn dma_read(&self, addr: u64, len: usize) -> Result<Vec<u8>, Violation> {
        self.inner.borrow().dma.read(addr, len).map(<[u8]>::to_vec)
    }

    /// Sets MAC `mac`'s link speed (both directions) in Mbit/s.
    pub fn set_link_speed(&self, mac: usize, speed_mbps: u32) {
        if let Some(m) = self.inner.borrow_mut().macs.get_mut(mac) {
            m.tx.speed_mbps = speed_mbps;
            m.rx_link.speed_mbps = speed_mbps;
        }
    }

    /// A frame (without FCS) sent by the link partner of MAC `mac` now; it arrives after its
    /// serialisation time, behind earlier frames.
    pub fn send_to_mac(&self, mac: usize, frame: Vec<u8>) {
        let mut s = self.inner.borrow_mut();
        let now = s.now;
        if let Some(m) = s.macs.get_mut(mac) {
            let start = now.max(m.rx_link.busy_until);
            let t = start + crate::wire::frame_time_ns(frame.len(), m.rx_link.speed_mbps);
            m.rx_link.busy_until = t;
            m.rx.push_back((t, frame, false));
        }
    }

    /// Like [`Sim::send_to_mac`] for raw wire bytes that end in an FCS (good or bad), runts and
    /// oversize frames included: the MAC checks them and counts what it drops in the MIB.
    pub fn send_raw_to_mac(&self, mac: usize, frame_with_fcs: Vec<u8>) {
        let mut s = self.inner.borrow_mut();
        let now = s.now;
        if let Some(m) = s.macs.get_mut(mac) {
            let start = now.max(m.rx_link.busy_until);
            let t = start + crate::wire::frame_time_ns(frame_with_fcs.len().saturating_sub(4), m.rx_link.speed_mbps);
            m.rx_link.busy_until = t;
            m.rx.push_back((t, frame_with_fcs, true));
        }
    }

    /// Frames the link partner has sent to MAC `mac` that the MAC has not taken in yet (a host
    /// feeding frames from outside holds back while this is high).
    #[must_use]
    pub fn pending_from_link(&self, mac: usize) -> usize {
        self.inner.borrow().macs.get(mac).map_or(0, |m| m.rx.len())
    }

    /// Frames MAC `mac` has put on its wire that have fully left by now: `(time, frame)`.
    pub fn take_sent(&self, mac: usize) -> Vec<(u64, Vec<u8>)> {
        let mut s = self.inner.borrow_mut();
        let now = s.now;
        s.macs.get_mut(mac).map(|m| m.tx.take_arrived(now)).unwrap_or_default()
    }

    /// Schedules `fault` at simulated time `at_ns`.
    pub fn schedule(&self, at_ns: u64, fault: Fault) {
        self.inner.borrow_mut().faults.add(at_ns, fault);
    }

    /// Puts a DSA switch on MAC `mac`'s wire with user ports `(number, speed in Mbit/s)`.
    pub fn attach_switch(&self, mac: usize, ports: &[(u8, u32)]) {
        let mut s = self.inner.borrow_mut();
        s.switches.retain(|sw| sw.mac != mac);
        s.switches.push(Switch::new(mac, ports));
    }

    /// A frame (without FCS) sent by the link partner of switch port `port` behind MAC `mac`;
    /// the switch tags it with the port and forwards it to the MAC.
    pub fn send_to_port(&self, mac: usize, port: u8, frame: Vec<u8>) {
        let arrival = {
            let mut s = self.inner.borrow_mut();
            let now = s.now;
            let Some(p) = s.switches.iter_mut().find(|sw| sw.mac == mac).and_then(|sw| sw.port_mut(port)) else {
                return;
            };
            let start = now.max(p.ingress.busy_until);
            let t = start + crate::wire::frame_time_ns(frame.len(), p.ingress.speed_mbps);
            p.ingress.busy_until = t;
            t
        };
        let tagged = switch::tag_from_port(&frame, port);
        let mut s = self.inner.borrow_mut();
        if let Some(m) = s.macs.get_mut(mac) {
            let start = arrival.max(m.rx_link.busy_until);
            let t = start + crate::wire::frame_time_ns(tagged.len(), m.rx_link.speed_mbps);
            m.rx_link.busy_until = t;
            m.rx.push_back((t, tagged, false));
        }
    }

    /// Frames switch port `port` behind MAC `mac` has sent to its link partner by now.
    pub fn take_port_sent(&self, mac: usize, port: u8) -> Vec<(u64, Vec<u8>)> {
        let mut s = self.inner.borrow_mut();
        let now = s.now;
        s.switches
            .iter_mut()
            .find(|sw| sw.mac == mac)
            .and_then(|sw| sw.port_mut(port))
            .map(|p| p.egress.take_arrived(now))
            .unwrap_or_default()
    }

    /// Starts (or stops) recording MAC `mac`'s wire, both directions.
    pub fn capture(&self, mac: usize, on: bool) {
        if let Some(m) = self.inner.borrow_mut().macs.get_mut(mac) {
            m.capture_tx = on.then(Capture::new);
            m.capture_rx = on.then(Capture::new);
        }
    }

    /// The recording of MAC `mac`'s wire as pcap: frames it sent (`tx = true`) or received.
    #[must_use]
    pub fn pcap(&self, mac: usize, tx: bool) -> Vec<u8> {
        let s = self.inner.borrow();
        s.macs
            .get(mac)
            .and_then(|m| if tx { m.capture_tx.as_ref() } else { m.capture_rx.as_ref() })
            .map(Capture::to_pcap)
            .unwrap_or_default()
    }

    /// Whether interrupt line `line` (index in the device tree's `interrupts`) is asserted.
    #[must_use]
    pub fn irq(&self, line: u8) -> bool {
        let s = self.inner.borrow();
        let fe = &s.soc.fe;
        let rx = s.regs.get(Space::Fe, off(fe.pdma.irq_status)) & s.regs.get(Space::Fe, off(fe.pdma.irq_mask)) != 0;
        let tx = s.regs.get(Space::Fe, off(fe.qdma.int_status)) & s.regs.get(Space::Fe, off(fe.qdma.int_mask)) != 0;
        match s.soc.caps.irq.layout {
            IrqLayout::Shared { line: l } => l == line && (rx || tx),
            IrqLayout::Split { tx: t, rx: r } => (t == line && tx) || (r == line && rx),
        }
    }

    /// The simulated time of the next thing the engine will do by itself (a frame finishing on a
    /// wire in either direction, a queued frame the shaper or a pause holds, a fault, an LRO or
    /// interrupt-moderation timer), or `None` when it is idle until the driver or a link partner
    /// acts: a host that runs the model on its own clock (the QEMU device) sleeps until then.
    #[must_use]
    pub fn next_event(&self) -> Option<u64> {
        let s = self.inner.borrow();
        let mut next = earliest(earliest(s.faults.next_time(), s.lro_deadline()), s.moderation_deadline());
        for m in &s.macs {
            next = earliest(next, m.rx.front().map(|(t, _, _)| *t));
            next = earliest(next, m.tx.frames.front().map(|(t, _)| *t));
        }
        for p in s.switches.iter().flat_map(|sw| &sw.ports) {
            next = earliest(next, p.egress.frames.front().map(|(t, _)| *t));
        }
        if let Some(t) = s.tx_ready_time() {
            next = earliest(next, Some(t));
        }
        next
    }

    /// Runs the engine for `ns` nanoseconds of simulated time.
    pub fn advance(&self, ns: u64) {
        let mut s = self.inner.borrow_mut();
        let target = s.now.saturating_add(ns);
        s.run_until(target);
    }

    fn mmio_read(&self, space: Space, offset: u32) -> u32 {
        let s = &mut *self.inner.borrow_mut();
        if let Some(i) = s.sram_word(space, offset) {
            let w = s.sram.get(i);
            // Only a word with the done bit set can leave a read unordered (cheap test first).
            if let Some(addr) = s.sram.phys_of(offset).filter(|_| w & s.rx_done.1 != 0) {
                let rings = *s.rx_rings();
                let rx = crate::ordering::RxRings { rings: &rings, ctrl: s.rx_done.0, done: s.rx_done.1 };
                s.cpu.device_read(rx, addr, w);
            }
            return w;
        }
        match s.regs.cpu_read(space, offset) {
            Ok(v) => v,
            Err(v) => {
                s.violate(v);
                0
            }
        }
    }

    fn mmio_write(&self, space: Space, offset: u32, value: u32) {
        let mut s = self.inner.borrow_mut();
        if let Some(i) = s.sram_word(space, offset) {
            // Device memory: the word is there at once, in order with later register writes.
            s.sram.set(i, value);
            return;
        }
        let writes = s.cpu.pending();
        if writes > 0 && s.is_doorbell(space, offset) {
            s.violate(Violation::UnpublishedDmaWrites { space, offset, writes });
        }
        if s.is_ring_register(space, offset) {
            s.rx_rings_seen = None;
        }
        if let Err(v) = s.regs.cpu_write(space, offset, value) {
            s.violate(v);
            if matches!(v, Violation::UnknownRegister { .. } | Violation::UnalignedRegister { .. }) {
                return;
            }
        }
        s.after_write(space, offset, value);
    }
}

impl Inner {
    pub(crate) fn violate(&mut self, v: Violation) {
        self.violations.push((self.now, v));
    }

    /// The SRAM word at `offset` of `space`, if that is where it is; an unaligned SRAM access
    /// is refused like an unaligned register access, and goes on to the register file.
    fn sram_word(&mut self, space: Space, offset: u32) -> Option<usize> {
        if space != Space::Fe || !offset.is_multiple_of(4) {
            return None;
        }
        self.sram.word_at(offset)
    }

    /// A CPU read through the current CPU's view (`read`), with the RX rings it checks the
    /// read ordering against; a violation it finds is recorded.
    fn cpu_read(
        &mut self,
        read: impl FnOnce(
            &mut crate::ordering::CpuView,
            &DmaMemory,
            crate::ordering::RxRings<'_>,
        ) -> Result<Option<Violation>, Violation>,
    ) -> Result<(), Violation> {
        self.rx_rings();
        // The cache is filled now; borrowed in place (no copy of the four rings per read).
        let rings = self.rx_rings_seen.as_ref().map_or(&[][..], |r| &r[..]);
        let rx = crate::ordering::RxRings { rings, ctrl: self.rx_done.0, done: self.rx_done.1 };
        if let Some(v) = read(&mut self.cpu, &self.dma, rx)? {
            self.violate(v);
        }
        Ok(())
    }

    /// RX rings as programmed: `(base, descriptors)` of PDMA rings 0..4.
    fn rx_rings(&mut self) -> &[(u64, u64); 4] {
        if self.rx_rings_seen.is_some() {
            return self.rx_rings_seen.get_or_insert_default();
        }
        let pd = &self.soc.fe.pdma;
        let mut rings = [(0u64, 0u64); 4];
        for (k, r) in rings.iter_mut().enumerate().take(pd.rx_ptr.len()) {
            *r = (u64::from(self.fe(elem(pd.rx_ptr, k))), u64::from(self.fe(elem(pd.rx_cnt_cfg, k))));
        }
        self.rx_rings_seen.insert(rings)
    }

    /// Whether `offset` of `space` is a PDMA RX ring's base or size register.
    fn is_ring_register(&self, space: Space, offset: u32) -> bool {
        let pd = &self.soc.fe.pdma;
        space == Space::Fe
            && ((0..pd.rx_ptr.len()).any(|k| elem(pd.rx_ptr, k) == offset)
                || (0..pd.rx_cnt_cfg.len()).any(|k| elem(pd.rx_cnt_cfg, k) == offset))
    }

    /// Whether writing this register lets the engine read DMA memory the CPU wrote: a CPU
    /// index, a ring or free-queue pointer, or a DMA enable.
    fn is_doorbell(&self, space: Space, offset: u32) -> bool {
        let fe = &self.soc.fe;
        let (pd, q) = (&fe.pdma, &fe.qdma);
        space == Space::Fe
            && ([q.ctx_ptr.offset(), q.dtx_ptr.offset(), q.fq_head.offset(), q.fq_tail.offset(), q.fq_count.offset()]
                .contains(&offset)
                || offset == pd.glo_cfg.offset()
                || offset == q.glo_cfg.offset()
                || (0..pd.pcrx_ptr.len()).any(|k| elem(pd.pcrx_ptr, k) == offset || elem(pd.rx_ptr, k) == offset))
    }

    pub(crate) fn fe(&self, offset: u32) -> u32 {
        self.regs.get(Space::Fe, offset)
    }

    /// Raises interrupt status `bit` in `status` (unless a lost-interrupt fault eats it).
    pub(crate) fn raise(&mut self, status: u32, bit: u32) {
        if self.lost_irqs > 0 {
            self.lost_irqs -= 1;
            return;
        }
        let v = self.fe(status) | (1 << bit);
        self.regs.set(Space::Fe, status, v);
    }

    /// Recomputes MAC `mac`'s status register from its forced mode and the link.
    fn update_msr(&mut self, mac: usize) {
        let Some(m) = self.soc.fe.mac.at(mac) else { return };
        let mcr = self.fe(m.mcr.offset());
        let forced = mcr & (1 << 15) != 0 && mcr & 1 != 0;
        let up = forced && self.macs.get(mac).is_some_and(|p| p.link_up);
        self.regs.set(Space::Fe, m.msr.offset(), if up { 1 | (mcr & 0b1110) } else { 0 });
    }

    fn apply(&mut self, fault: Fault) {
        let fe = &self.soc.fe;
        match fault {
            Fault::RxStall { ns } => self.rx_stall_until = self.now + ns,
            Fault::TxHang => self.tx_hung = true,
            Fault::LinkDown { mac } | Fault::LinkUp { mac } => {
                if let Some(m) = self.macs.get_mut(mac) {
                    m.link_up = matches!(fault, Fault::LinkUp { .. });
                }
                self.update_msr(mac);
            }
            Fault::Speed { mac, mbps } => {
                if let Some(m) = self.macs.get_mut(mac) {
                    m.tx.speed_mbps = mbps;
                    m.rx_link.speed_mbps = mbps;
                }
            }
            Fault::SpuriousIrq { tx } => {
                let (reg, bit) = if tx { (off(fe.qdma.int_status), 28) } else { (off(fe.pdma.irq_status), 30) };
                let v = self.fe(reg) | (1 << bit);
                self.regs.set(Space::Fe, reg, v);
            }
            Fault::LostIrq { count } => self.lost_irqs += count,
            Fault::Corrupt { mac, count } => {
                if let Some(m) = self.macs.get_mut(mac) {
                    m.corrupt_next += count;
                }
            }
        }
    }

    fn after_write(&mut self, space: Space, offset: u32, value: u32) {
        let soc = self.soc;
        let fe = &soc.fe;
        self.muxes.write(space, offset);
        if space == Space::Ethsys {
            if offset == soc.caps.cold_reset.reg.offset {
                let asserted = value & soc.caps.cold_reset.mask != 0;
                if asserted {
                    self.in_reset = true;
                } else if self.in_reset {
                    self.cold_reset();
                }
            }
            return;
        }
        if offset == off(fe.mdio.phy_iac) {
            // The frame runs at once: the register reads back done, with any read data.
            let done = self.mdio.access(value);
            self.regs.set(Space::Fe, offset, done);
            return;
        }
        if offset == off(fe.pdma.glo_cfg)
            && value & (1 << 2) != 0
            && (self.fe(elem(fe.pdma.rx_ptr, 0)) == 0 || self.fe(elem(fe.pdma.rx_cnt_cfg, 0)) == 0)
        {
            self.violate(Violation::DmaEnabledWithoutRing { register: "pdma.glo_cfg" });
        }
        if offset == off(fe.qdma.glo_cfg)
            && value & 1 != 0
            && (self.fe(off(fe.qdma.ctx_ptr)) == 0 || self.fe(off(fe.qdma.dtx_ptr)) == 0)
        {
            self.violate(Violation::DmaEnabledWithoutRing { register: "qdma.glo_cfg" });
        }
        if offset == off(fe.qdma.fq_head) && value != 0 {
            // The engine takes its first free-queue page from here: the descriptor must be
            // reachable (SRAM window or DMA memory).
            let reach = match soc.caps.tx_descriptor.size() {
                32 => self.desc_read::<8>(u64::from(value)).map(|_| ()),
                _ => self.desc_read::<4>(u64::from(value)).map(|_| ()),
            };
            if let Err(v) = reach {
                self.violate(v);
            }
        }
        if offset == elem(fe.pdma.pcrx_ptr, 0) {
            let size = self.fe(elem(fe.pdma.rx_cnt_cfg, 0));
            if value >= size {
                self.violate(Violation::RingIndexOutOfRange { register: "pdma.pcrx_ptr[0]", index: value, size });
            }
        }
        if fe.lro.is_some_and(|l| l.ctrl_dw0.offset() == offset) {
            self.lro_relinquish(value);
        }
        if offset == off(fe.pdma.rst_idx) {
            // pst_drx_idx0..3 (bits 16..19) reset the DMA index of RX rings 0..3.
            for ring in (0..fe.pdma.pdrx_ptr.len().min(4)).filter(|r| value & (1 << (16 + r)) != 0) {
                self.regs.set(Space::Fe, elem(fe.pdma.pdrx_ptr, ring), 0);
            }
        }
        self.delay_written(offset);
        if let Some(mac) = (0..self.macs.len()).find(|&i| fe.mac.at(i).is_some_and(|m| m.mcr.offset() == offset)) {
            self.update_msr(mac);
        }
        self.pump_tx();
    }

    fn cold_reset(&mut self) {
        self.in_reset = false;
        // The syscons (ETHSYS, SGMIISYS, ...) keep their values; the frame engine returns to
        // reset and loses what is in flight.
        let keep: Vec<(Space, u32, u32)> = self
            .soc
            .registers
            .iter()
            .filter(|m| m.space != Space::Fe)
            .map(|m| (m.space, m.offset, self.regs.get(m.space, m.offset)))
            .collect();
        self.regs.reset();
        self.rx_rings_seen = None;
        self.muxes.reset(Space::Fe);
        for (s, o, v) in keep {
            self.regs.set(s, o, v);
        }
        self.queues.clear();
        for m in &mut self.macs {
            m.rx.clear();
            m.tx.frames.clear();
        }
        self.partial.clear();
        self.lro = crate::lro::Lro::default();
        self.moderation_reset();
        self.tx_hung = false;
        self.shaper_next = [0; QUEUES];
        self.min_next = [0; QUEUES];
        for mac in 0..self.macs.len() {
            self.update_msr(mac);
        }
    }

    /// Runs until `target`: frames leave queues, arrive from wires, faults fire, in time order.
    fn run_until(&mut self, target: u64) {
        loop {
            let next_rx = self.macs.iter().enumerate().filter_map(|(i, m)| m.rx.front().map(|(t, _, _)| (*t, i))).min();
            let next_fault =
                earliest(earliest(self.faults.next_time(), self.lro_deadline()), self.moderation_deadline());
            let horizon = earliest(next_rx.map(|(t, _)| t), next_fault).map_or(target, |t| t.min(target));
            if self.send_one(horizon) {
                continue;
            }
            if let Some(t) = next_fault.filter(|t| *t <= target && next_rx.is_none_or(|(r, _)| *t <= r)) {
                self.now = self.now.max(t);
                let now = self.now;
                for (_, f) in self.faults.due(now) {
                    self.apply(f);
                }
                self.lro_expire();
                self.moderation_expire();
                self.pump_tx();
                continue;
            }
            match next_rx {
                Some((t, mac)) if t <= target => {
                    self.now = self.now.max(t);
                    if let Some((_, frame, fcs)) = self.macs[mac].rx.pop_front() {
                        self.receive(mac, frame, fcs);
                    }
                }
                _ => break,
            }
        }
        self.now = self.now.max(target);
    }
}
