//! QDMA TX: descriptors to per-queue buffers, queues to the MAC wires through the shaper.

use crate::engine::{DEFAULT_FQ_FRAMES, Inner, QUEUES, off, reg_of};
use crate::packet;
use crate::violation::Violation;
use alloc::vec::Vec;
use fe_regs::Space;
use fe_regs::descriptors::{DescriptorLayout, TxV1, TxV2};

/// The most a scatter-gather frame reserves up front (a GSO frame is at most 64 KiB plus
/// headers); a longer chain grows as it is read.
const MAX_RESERVE: usize = 128 * 1024;

/// A TX descriptor in layout-independent form.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct TxDesc {
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

impl Inner {
    pub(crate) fn read_tx(&mut self, addr: u64) -> Result<TxDesc, Violation> {
        let layout = self.soc.caps.tx_descriptor;
        let align = layout.size() as u64;
        if !addr.is_multiple_of(align.min(16)) {
            return Err(Violation::DmaUnaligned { addr });
        }
        // The two TX layouts have the same field names at different bits; one body serves both.
        macro_rules! desc {
            ($d:expr) => {{
                let d = $d;
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
            }};
        }
        Ok(match layout {
            DescriptorLayout::TxV2 => desc!(TxV2 { words: self.desc_read::<8>(addr)? }),
            _ => desc!(TxV1 { words: self.desc_read::<4>(addr)? }),
        })
    }

    pub(crate) fn complete_tx(&mut self, addr: u64) -> Result<(), Violation> {
        match self.soc.caps.tx_descriptor {
            DescriptorLayout::TxV2 => {
                let mut d = TxV2 { words: self.desc_read::<8>(addr)? };
                d.set_owner_cpu(true);
                self.desc_write(addr, &d.words)
            }
            _ => {
                let mut d = TxV1 { words: self.desc_read::<4>(addr)? };
                d.set_owner_cpu(true);
                self.desc_write(addr, &d.words)
            }
        }
    }

    fn buffered(&self) -> usize {
        self.queues.frames()
    }

    /// QDMA: takes descriptors from `dtx_ptr` up to `ctx_ptr` while internal buffers are free.
    pub(crate) fn pump_tx(&mut self) {
        let fe = &self.soc.fe;
        if self.in_reset || self.tx_hung || self.fe(off(fe.qdma.glo_cfg)) & 1 == 0 {
            return;
        }
        let fq = match fe_regs::values::QdmaFqCount(self.fe(off(fe.qdma.fq_count))).cnt() as usize {
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
            if self.partial.is_empty() {
                self.partial_first = d;
                // A frame's first buffer: gathered into a spare buffer, the large one for a
                // scatter-gather frame (a GSO frame's head and page fragments) with room for
                // all of it at once, not a reallocation per fragment.
                let spare = if d.last { self.buffers.small() } else { self.buffers.large() };
                let old = core::mem::replace(&mut self.partial, spare);
                self.buffers.give(old);
                if !d.last {
                    let total = self.frame_len_from(d).min(MAX_RESERVE);
                    self.partial.reserve_exact(total);
                }
            }
            match self.dma.read(u64::from(d.addr), d.len) {
                Ok(b) => self.partial.extend_from_slice(b),
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
                // Offloads come from the frame's first descriptor (mtk_tx_set_dma_desc_v1/v2 in
                // Linux 6.12 write TX_DMA_CHKSUM and TX_DMA_TSO only when `info->first`); the
                // queue and forward port from the last, which Linux writes on every descriptor.
                let first = self.partial_first;
                self.enqueue_tx(TxDesc { chksum: first.chksum, tso: first.tso, ..d }, frame);
            }
            self.complete(crate::moderation::Dir::Tx);
        }
    }

    /// The length of the frame whose first descriptor is `first`: its buffers up to the one
    /// marked last, looked ahead along `next` (at most 64 descriptors; a descriptor that cannot
    /// be read ends the look, and is reported when the engine takes it).
    fn frame_len_from(&mut self, first: TxDesc) -> usize {
        let ctx = self.fe(off(self.soc.fe.qdma.ctx_ptr));
        let (mut total, mut d) = (first.len, first);
        for _ in 0..64 {
            if d.last || d.next == ctx {
                break;
            }
            match self.read_tx(u64::from(d.next)) {
                Ok(n) if !n.owner_cpu => {
                    total += n.len;
                    d = n;
                }
                _ => break,
            }
        }
        total
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
        let q = d.qid.min(QUEUES - 1);
        if d.tso {
            // The MSS travels in the TCP checksum field of a TSO frame.
            let mss = packet::parse(&frame).and_then(|p| p.tcp_checksum_field()).unwrap_or(0) as usize;
            let (buffers, queues) = (&mut self.buffers, &mut self.queues);
            if packet::tso_segment_with(&frame, mss, || buffers.small(), |f| queues.push(q, mac, f)) {
                // Cut into segments: the gathered frame's buffer holds the next one.
                self.buffers.give(frame);
            } else {
                self.queues.push(q, mac, frame);
            }
        } else {
            if d.chksum {
                packet::insert_checksums(&mut frame);
            }
            self.queues.push(q, mac, frame);
        }
    }

    /// The rate (kbit/s) queue `q` is capped at, if its max-rate shaper is on.
    fn max_rate_kbps(&self, q: usize) -> Option<u64> {
        let sh = &self.soc.caps.shaper;
        let v = self.fe(sh.reg.at(q)?);
        let field = |p: fe_regs::caps::FieldPos| (v & p.mask()) >> p.lsb;
        if field(sh.max_rate_en) == 0 {
            return None;
        }
        let rate = u64::from(field(sh.max_rate_man)).saturating_mul(10u64.saturating_pow(field(sh.max_rate_exp)));
        (rate > 0).then_some(rate)
    }

    /// Queue `q`'s scheduler settings: (min rate in kbit/s if enabled, WFQ weight >= 1).
    fn min_rate_and_weight(&self, q: usize) -> (Option<u64>, u64) {
        let Some(off) = self.soc.fe.qdma.qtx_sch.at(q) else { return (None, 1) };
        let v = fe_regs::values::QdmaQtxSch(self.fe(off.offset()));
        let min = v
            .min_rate_en()
            .then(|| u64::from(v.min_rate_man()).saturating_mul(10u64.saturating_pow(u32::from(v.min_rate_exp()))));
        (min.filter(|&r| r > 0), u64::from(v.max_rate_weight()).max(1))
    }

    /// The earliest time a queued frame may leave (wire, pause and shaper allowing), if any
    /// queue holds one.
    pub(crate) fn tx_ready_time(&self) -> Option<u64> {
        self.queues
            .occupied_from(0)
            .filter_map(|q| {
                let m = &self.macs[self.queues.front_mac(q)?];
                Some(self.now.max(m.tx.busy_until).max(m.paused_until).max(self.shaper_next[q]))
            })
            .min()
    }

    /// Sends the next frame of some queue on its MAC's wire at the earliest time allowed by the
    /// wire, a pause from the link partner and the queue's max-rate shaper, if that is
    /// `<= target`; returns false when nothing can be sent by then. Among queues ready at the same
    /// time, one still below its min rate goes first, then the one with the least weighted
    /// service (WFQ by the queue's weight), then round-robin.
    pub(crate) fn send_one(&mut self, target: u64) -> bool {
        let mut best: Option<((u64, bool, u64), usize)> = None;
        // With one queue busy there is nothing to order (no min-rate register to read).
        let contested = self.queues.busy() > 1;
        for q in self.queues.occupied_from(self.rr) {
            if let Some(mac) = self.queues.front_mac(q) {
                let m = &self.macs[mac];
                let t = self.now.max(m.tx.busy_until).max(m.paused_until).max(self.shaper_next[q]);
                if t > target {
                    continue;
                }
                let below_min = contested && self.min_rate_and_weight(q).0.is_some() && t >= self.min_next[q];
                let key = (t, !below_min, self.queues.service(q));
                if best.is_none_or(|(bk, _)| key < bk) {
                    best = Some((key, q));
                }
            }
        }
        let Some(((t, _, _), q)) = best else { return false };
        let Some((mac, frame)) = self.queues.pop(q) else { return false };
        self.rr = (q + 1) % QUEUES;
        self.now = t;
        let mcr = reg_of!(self.soc.fe.mac, mac, mcr).map_or(0, |o| self.fe(o));
        if mcr & (1 << 14) == 0 || mcr & 1 == 0 || !self.macs[mac].link_up || !self.path_open(mac) {
            self.stats.tx_dropped += 1;
            self.pump_tx();
            return true;
        }
        // The shaper meters frame bytes including FCS.
        let bits = (frame.len() as u64 + 4) * 8;
        if let Some(kbps) = self.max_rate_kbps(q) {
            self.shaper_next[q] = self.shaper_next[q].max(t) + (bits * 1_000_000).div_ceil(kbps);
        }
        let (min, weight) = self.min_rate_and_weight(q);
        if let Some(kbps) = min {
            self.min_next[q] = self.min_next[q].max(t) + (bits * 1_000_000).div_ceil(kbps);
        }
        // Weighted service: a queue's share of a busy MAC is proportional to its weight (idle
        // queues come back at the floor: TxQueues).
        self.queues.charge(q, bits * 16 / weight);
        // The GMAC pads a short frame to the 60-byte minimum in hardware (Linux's driver does not
        // pad in software: mtk_start_xmit hands 42-byte ARP replies to the engine as they are).
        let mut frame = frame;
        if frame.len() < crate::packet::MIN_FRAME {
            frame.resize(crate::packet::MIN_FRAME, 0);
        }
        let len = frame.len() as u32;
        if let Some(c) = self.macs[mac].capture_tx.as_mut() {
            c.record(t, &frame);
        }
        let arrive = self.macs[mac].tx.send(t, frame);
        if let Some(sw) = self.switches.iter_mut().find(|s| s.mac == mac) {
            // The switch takes the frame off the wire and queues it on its user port.
            if let Some((_, f)) = self.macs[mac].tx.frames.pop_back() {
                let before = sw.pause_frames;
                if let Some(until) = sw.from_cpu(arrive, &f) {
                    self.macs[mac].paused_until = self.macs[mac].paused_until.max(until);
                }
                let pauses = sw.pause_frames - before;
                self.stats.pause_frames += pauses;
                if let Some(o) = reg_of!(self.soc.fe.mib, mac, rx_flow_control_packets) {
                    self.regs.add(Space::Fe, o, pauses as u32);
                }
            }
        }
        let mib = &self.soc.fe.mib;
        if let (Some(packets), Some(lo), Some(hi)) =
            (reg_of!(mib, mac, tx_packets), reg_of!(mib, mac, tx_bytes), reg_of!(mib, mac, tx_bytes_hi))
        {
            self.regs.add(Space::Fe, packets, 1);
            self.regs.add64(Space::Fe, lo, hi, len);
        }
        self.pump_tx();
        true
    }
}
