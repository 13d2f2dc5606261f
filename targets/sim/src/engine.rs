//! The engine: MMIO semantics and side effects, QDMA TX, PDMA RX, GDMA checksum checks, MACs,
//! MIB counters, interrupts and cold reset, advanced in simulated nanoseconds.

use crate::dma::DmaMemory;
use crate::packet;
use crate::regfile::RegFile;
use crate::violation::Violation;
use crate::wire::Wire;
use alloc::collections::VecDeque;
use alloc::vec::Vec;
use core::cell::RefCell;
use fe_regs::bus::Bus;
use fe_regs::caps::IrqLayout;
use fe_regs::descriptors::{DescriptorLayout, RxV1, RxV2, TxV1, TxV2};
use fe_regs::{SocInfo, Space};

/// Default DMA memory size (16 MiB).
pub const DEFAULT_DMA_BYTES: usize = 16 << 20;
/// QDMA queues modelled.
pub const QUEUES: usize = 16;
/// Frames the engine buffers internally per MAC when the driver sets no free-queue size.
pub const DEFAULT_FQ_FRAMES: usize = 512;

/// One MAC's side of the world: the wire it sends on, the frames arriving for it.
#[derive(Debug, Default)]
struct MacPort {
    tx: Wire,
    rx: VecDeque<(u64, Vec<u8>)>,
    rx_link: Wire,
}

/// A TX descriptor in layout-independent form.
#[derive(Clone, Copy, Debug, Default)]
struct TxDesc {
    addr: u32,
    next: u32,
    len: usize,
    last: bool,
    owner_cpu: bool,
    qid: usize,
    fport: u32,
    chksum: bool,
    tso: bool,
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
    /// Frames dropped on TX (MAC disabled, bad port).
    pub tx_dropped: u64,
}

#[derive(Debug)]
struct Inner {
    soc: &'static SocInfo,
    regs: RegFile,
    dma: DmaMemory,
    now: u64,
    macs: Vec<MacPort>,
    queues: [VecDeque<(usize, Vec<u8>)>; QUEUES],
    /// Partial frame of a multi-descriptor TX.
    partial: Vec<u8>,
    in_reset: bool,
    violations: Vec<(u64, Violation)>,
    stats: Stats,
    rr: usize,
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

fn off<T: Copy, A>(r: fe_regs::bus::RegSpec<T, A>) -> u32 {
    r.offset()
}

fn elem<T: Copy, A>(a: fe_regs::bus::RegArray<T, A>, i: usize) -> u32 {
    a.at(i).map_or(u32::MAX, |r| r.offset())
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
        let macs = (0..soc.caps.macs.len())
            .map(|_| MacPort { tx: Wire::new(1000), rx: VecDeque::new(), rx_link: Wire::new(1000) })
            .collect();
        Sim {
            inner: RefCell::new(Inner {
                soc,
                regs: RegFile::new(soc),
                dma: DmaMemory::new(dma_bytes),
                now: 0,
                macs,
                queues: Default::default(),
                partial: Vec::new(),
                in_reset: false,
                violations: Vec::new(),
                stats: Stats::default(),
                rr: 0,
            }),
        }
    }

    /// The SoC being modelled.
    #[must_use]
    pub fn soc(&self) -> &'static SocInfo {
        self.inner.borrow().soc
    }

    /// The frame-engine register space as a bus.
    #[must_use]
    pub fn fe(&self) -> SimBus<'_> {
        SimBus { sim: self, space: Space::Fe }
    }

    /// The ETHSYS syscon register space as a bus.
    #[must_use]
    pub fn ethsys(&self) -> SimBus<'_> {
        SimBus { sim: self, space: Space::Ethsys }
    }

    /// Current simulated time in nanoseconds.
    #[must_use]
    pub fn now(&self) -> u64 {
        self.inner.borrow().now
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

    /// Allocates DMA memory; `None` when it is exhausted.
    pub fn dma_alloc(&self, size: usize, align: usize) -> Option<u64> {
        self.inner.borrow_mut().dma.alloc(size, align)
    }

    /// Writes DMA memory from the CPU side.
    pub fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), Violation> {
        self.inner.borrow_mut().dma.write(addr, data)
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
            m.rx.push_back((t, frame));
        }
    }

    /// Frames MAC `mac` has put on its wire that have fully left by now: `(time, frame)`.
    pub fn take_sent(&self, mac: usize) -> Vec<(u64, Vec<u8>)> {
        let mut s = self.inner.borrow_mut();
        let now = s.now;
        s.macs.get_mut(mac).map(|m| m.tx.take_arrived(now)).unwrap_or_default()
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

    /// Runs the engine for `ns` nanoseconds of simulated time.
    pub fn advance(&self, ns: u64) {
        let mut s = self.inner.borrow_mut();
        let target = s.now.saturating_add(ns);
        s.run_until(target);
    }

    fn mmio_read(&self, space: Space, offset: u32) -> u32 {
        let mut s = self.inner.borrow_mut();
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
    fn violate(&mut self, v: Violation) {
        self.violations.push((self.now, v));
    }

    fn fe(&self, offset: u32) -> u32 {
        self.regs.get(Space::Fe, offset)
    }

    fn after_write(&mut self, space: Space, offset: u32, value: u32) {
        let soc = self.soc;
        let fe = &soc.fe;
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
        if offset == elem(fe.pdma.pcrx_ptr, 0) {
            let size = self.fe(elem(fe.pdma.rx_cnt_cfg, 0));
            if value >= size {
                self.violate(Violation::RingIndexOutOfRange { register: "pdma.pcrx_ptr[0]", index: value, size });
            }
        }
        if offset == off(fe.pdma.rst_idx) && value & (1 << 16) != 0 {
            self.regs.set(Space::Fe, elem(fe.pdma.pdrx_ptr, 0), 0);
        }
        if let Some(mac) = (0..self.macs.len()).find(|&i| fe.mac.at(i).is_some_and(|m| m.mcr.offset() == offset)) {
            // MSR mirrors the forced link state.
            let msr = fe.mac.at(mac).map(|m| m.msr.offset()).unwrap_or(0);
            let forced = value & (1 << 15) != 0 && value & 1 != 0;
            let v = if forced { 1 | (value & 0b1110) } else { 0 };
            self.regs.set(Space::Fe, msr, v);
        }
        let now = self.now;
        self.pump_tx(now);
    }

    fn cold_reset(&mut self) {
        self.in_reset = false;
        // ETHSYS keeps its values; the frame engine returns to reset and loses what is in flight.
        let keep: Vec<(u32, u32)> = self
            .soc
            .registers
            .iter()
            .filter(|m| m.space == Space::Ethsys)
            .map(|m| (m.offset, self.regs.get(Space::Ethsys, m.offset)))
            .collect();
        self.regs.reset();
        for (o, v) in keep {
            self.regs.set(Space::Ethsys, o, v);
        }
        for q in &mut self.queues {
            q.clear();
        }
        for m in &mut self.macs {
            m.rx.clear();
            m.tx.frames.clear();
        }
        self.partial.clear();
    }

    fn read_tx(&mut self, addr: u64) -> Result<TxDesc, Violation> {
        let layout = self.soc.caps.tx_descriptor;
        let align = layout.size() as u64;
        if !addr.is_multiple_of(align.min(16)) {
            return Err(Violation::DmaUnaligned { addr });
        }
        Ok(match layout {
            DescriptorLayout::TxV2 => {
                let d = TxV2 { words: self.dma.read_words::<8>(addr)? };
                TxDesc {
                    addr: d.addr0(),
                    next: d.next(),
                    len: d.plen0() as usize,
                    last: d.ls0(),
                    owner_cpu: d.owner_cpu(),
                    qid: d.qid() as usize,
                    fport: d.fport() as u32,
                    chksum: d.chksum() != 0,
                    tso: d.tso(),
                }
            }
            _ => {
                let d = TxV1 { words: self.dma.read_words::<4>(addr)? };
                TxDesc {
                    addr: d.addr0(),
                    next: d.next(),
                    len: d.plen0() as usize,
                    last: d.ls0(),
                    owner_cpu: d.owner_cpu(),
                    qid: d.qid() as usize,
                    fport: d.fport() as u32,
                    chksum: d.chksum() != 0,
                    tso: d.tso(),
                }
            }
        })
    }

    fn complete_tx(&mut self, addr: u64) -> Result<(), Violation> {
        match self.soc.caps.tx_descriptor {
            DescriptorLayout::TxV2 => {
                let mut d = TxV2 { words: self.dma.read_words::<8>(addr)? };
                d.set_owner_cpu(true);
                self.dma.write_words(addr, &d.words)
            }
            _ => {
                let mut d = TxV1 { words: self.dma.read_words::<4>(addr)? };
                d.set_owner_cpu(true);
                self.dma.write_words(addr, &d.words)
            }
        }
    }

    fn buffered(&self) -> usize {
        self.queues.iter().map(VecDeque::len).sum()
    }

    /// QDMA: takes descriptors from `dtx_ptr` up to `ctx_ptr` while internal buffers are free.
    fn pump_tx(&mut self, now: u64) {
        let fe = &self.soc.fe;
        if self.in_reset || self.fe(off(fe.qdma.glo_cfg)) & 1 == 0 {
            return;
        }
        let fq = match self.fe(off(fe.qdma.fq_count)) as usize {
            0 => DEFAULT_FQ_FRAMES,
            n => n,
        };
        for _ in 0..4096 {
            let (dtx, ctx) = (self.fe(off(fe.qdma.dtx_ptr)), self.fe(off(fe.qdma.ctx_ptr)));
            if dtx == ctx || self.buffered() >= fq {
                return;
            }
            let addr = u64::from(dtx);
            let d = match self.read_tx(addr) {
                Ok(d) => d,
                Err(v) => {
                    self.violate(v);
                    self.hang_tx();
                    return;
                }
            };
            if d.owner_cpu {
                self.violate(Violation::DescriptorNotOwned { addr });
                self.hang_tx();
                return;
            }
            match self.dma.read(u64::from(d.addr), d.len) {
                Ok(b) => {
                    let b = b.to_vec();
                    self.partial.extend_from_slice(&b);
                }
                Err(v) => {
                    self.violate(v);
                    self.hang_tx();
                    return;
                }
            }
            if let Err(v) = self.complete_tx(addr) {
                self.violate(v);
            }
            self.regs.set(Space::Fe, off(fe.qdma.drx_ptr), dtx);
            self.regs.set(Space::Fe, off(fe.qdma.dtx_ptr), d.next);
            if d.last {
                let frame = core::mem::take(&mut self.partial);
                self.enqueue_tx(d, frame);
            }
            let st = off(fe.qdma.int_status);
            let v = self.fe(st) | (1 << 28);
            self.regs.set(Space::Fe, st, v);
        }
        let _ = now;
    }

    /// Stops QDMA TX after an illegal descriptor, as a hung engine would (clears tx_dma_en).
    fn hang_tx(&mut self) {
        let g = off(self.soc.fe.qdma.glo_cfg);
        let v = self.fe(g) & !1;
        self.regs.set(Space::Fe, g, v);
    }

    fn enqueue_tx(&mut self, d: TxDesc, mut frame: Vec<u8>) {
        self.stats.tx_frames += 1;
        let mac = d.fport.wrapping_sub(1) as usize;
        if mac >= self.macs.len() {
            self.stats.tx_dropped += 1;
            return;
        }
        let frames = if d.tso {
            // The MSS travels in the TCP checksum field of a TSO frame.
            let mss = packet::parse(&frame).and_then(|p| p.tcp_checksum_field()).unwrap_or(0) as usize;
            packet::tso_segment(&frame, mss).unwrap_or_else(|| alloc::vec![frame])
        } else {
            if d.chksum {
                packet::insert_checksums(&mut frame);
            }
            alloc::vec![frame]
        };
        let q = d.qid.min(QUEUES - 1);
        for f in frames {
            self.queues[q].push_back((mac, f));
        }
    }

    /// Sends the next frame of some queue on its MAC's wire at the earliest possible time
    /// `<= target`; returns false when nothing can be sent by then.
    fn send_one(&mut self, target: u64) -> bool {
        let mut best: Option<(u64, usize)> = None;
        for k in 0..QUEUES {
            let q = (self.rr + k) % QUEUES;
            if let Some((mac, _)) = self.queues[q].front() {
                let t = self.now.max(self.macs[*mac].tx.busy_until);
                if t <= target && best.is_none_or(|(bt, _)| t < bt) {
                    best = Some((t, q));
                }
            }
        }
        let Some((t, q)) = best else { return false };
        let Some((mac, frame)) = self.queues[q].pop_front() else { return false };
        self.rr = (q + 1) % QUEUES;
        self.now = t;
        let mcr = self.soc.fe.mac.at(mac).map_or(0, |m| self.fe(m.mcr.offset()));
        if mcr & (1 << 14) == 0 || mcr & 1 == 0 {
            self.stats.tx_dropped += 1;
            return true;
        }
        let len = frame.len() as u32;
        self.macs[mac].tx.send(t, frame);
        if let Some(mib) = self.soc.fe.mib.at(mac) {
            self.regs.add(Space::Fe, mib.tx_packets.offset(), 1);
            self.regs.add(Space::Fe, mib.tx_bytes.offset(), len);
        }
        self.pump_tx(t);
        true
    }

    fn run_until(&mut self, target: u64) {
        loop {
            let next_rx = self.macs.iter().enumerate().filter_map(|(i, m)| m.rx.front().map(|(t, _)| (*t, i))).min();
            let sent = self.send_one(next_rx.map_or(target, |(t, _)| t.min(target)));
            if sent {
                continue;
            }
            match next_rx {
                Some((t, mac)) if t <= target => {
                    self.now = self.now.max(t);
                    if let Some((_, frame)) = self.macs[mac].rx.pop_front() {
                        self.receive(mac, &frame);
                    }
                }
                _ => break,
            }
        }
        self.now = self.now.max(target);
    }

    /// GDMA + PDMA: a frame from MAC `mac`'s wire into RX ring 0.
    fn receive(&mut self, mac: usize, frame: &[u8]) {
        let soc = self.soc;
        let fe = &soc.fe;
        let mcr = fe.mac.at(mac).map_or(0, |m| self.fe(m.mcr.offset()));
        let Some(gdma) = fe.gdma.at(mac) else { return };
        let fwd = self.fe(gdma.fwd_cfg.offset());
        if self.in_reset
            || mcr & (1 << 13) == 0
            || mcr & 1 == 0
            || fwd & 0xffff == 0x7777
            || self.fe(off(fe.pdma.glo_cfg)) & (1 << 2) == 0
        {
            self.stats.rx_dropped += 1;
            return;
        }
        let base = self.fe(elem(fe.pdma.rx_ptr, 0));
        let size = self.fe(elem(fe.pdma.rx_cnt_cfg, 0));
        let calc = self.fe(elem(fe.pdma.pcrx_ptr, 0));
        let drx = self.fe(elem(fe.pdma.pdrx_ptr, 0));
        let mib = fe.mib.at(mac);
        if size == 0 || drx == calc {
            self.stats.rx_ring_full += 1;
            if let Some(m) = mib {
                self.regs.add(Space::Fe, m.rx_overflow.offset(), 1);
            }
            return;
        }
        let addr = u64::from(base) + u64::from(drx) * 16;
        let words = match self.dma.read_words::<4>(addr) {
            Ok(w) => w,
            Err(v) => {
                self.violate(v);
                return;
            }
        };
        // Checksum checks, only for what GDMA is told to check.
        let (ics, tcs, ucs) = (fwd & (1 << 22) != 0, fwd & (1 << 21) != 0, fwd & (1 << 20) != 0);
        let parsed = packet::parse(frame);
        let mut l4_valid = false;
        let mut csum_error = false;
        if let Some(p) = &parsed {
            let ip_ok = packet::ipv4_checksum_ok(frame).unwrap_or(true);
            let checked = match p.l4_protocol() {
                Some(6) => tcs,
                Some(17) => ucs,
                _ => false,
            };
            if checked {
                match packet::l4_checksum_ok(frame) {
                    Some(true) => l4_valid = !p.is_ipv4() || !ics || ip_ok,
                    Some(false) => csum_error = true,
                    None => {}
                }
            }
            if ics && p.is_ipv4() && !ip_ok {
                csum_error = true;
                l4_valid = false;
            }
        }
        let written = match soc.caps.rx_descriptor {
            DescriptorLayout::RxV2 => {
                let mut d = RxV2 { words };
                if d.done() {
                    self.violate(Violation::DescriptorNotOwned { addr });
                    self.stats.rx_dropped += 1;
                    return;
                }
                let buf = d.plen0() as usize;
                (d.addr0(), buf, {
                    d.set_plen0(frame.len() as u16);
                    d.set_ls0(true);
                    d.set_done(true);
                    d.set_src_port(mac as u8 + 1);
                    d.set_l4_valid(l4_valid);
                    d.words
                })
            }
            _ => {
                let mut d = RxV1 { words };
                if d.done() {
                    self.violate(Violation::DescriptorNotOwned { addr });
                    self.stats.rx_dropped += 1;
                    return;
                }
                let buf = d.plen0() as usize;
                (d.addr0(), buf, {
                    d.set_plen0(frame.len() as u16);
                    d.set_ls0(true);
                    d.set_done(true);
                    d.set_src_port(mac as u8 + 1);
                    d.set_l4_valid(l4_valid);
                    d.words
                })
            }
        };
        let (buf_addr, buf_len, new_words) = written;
        if frame.len() > buf_len {
            self.stats.rx_dropped += 1;
            if let Some(m) = mib {
                self.regs.add(Space::Fe, m.rx_long_errors.offset(), 1);
            }
            return;
        }
        if let Err(v) = self.dma.write(u64::from(buf_addr), frame) {
            self.violate(v);
            return;
        }
        if let Err(v) = self.dma.write_words(addr, &new_words) {
            self.violate(v);
            return;
        }
        self.regs.set(Space::Fe, elem(fe.pdma.pdrx_ptr, 0), (drx + 1) % size);
        let st = off(fe.pdma.irq_status);
        let v = self.fe(st) | (1 << 30);
        self.regs.set(Space::Fe, st, v);
        self.stats.rx_frames += 1;
        if let Some(m) = mib {
            self.regs.add(Space::Fe, m.rx_packets.offset(), 1);
            self.regs.add(Space::Fe, m.rx_bytes.offset(), frame.len() as u32);
            if csum_error {
                self.regs.add(Space::Fe, m.rx_checksum_errors.offset(), 1);
            }
        }
    }
}
