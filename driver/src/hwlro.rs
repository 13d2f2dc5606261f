//! Hardware LRO, on SoCs whose capabilities have `hw_lro` (MT7623): the PDMA merges IPv4 TCP
//! segments to programmed destination addresses into the big buffers of LRO rings 1..=n.
//!
//! Everything comes from the capabilities (ring count and size, buffer size, segment limit,
//! timers, room that must remain, rules per MAC) and the `lro`/`lro_ring` register blocks; the
//! driver owns the rings from `Eth::new` to the end, programs the engine while the `lro`
//! feature is [`crate::eth::LroMode::Hw`], and relinquishes every flow before turning it off (at
//! `set_features`, `set_forwarding` and `close`), so no aggregate is lost.
//!
//! The hardware reports no segment count, so the RX path derives each aggregate's segment size
//! from the MTU and its own header lengths, and the count from the payload (see
//! [`aggregate_meta`]); a bulk sender's segments are all that size but the last.

use crate::desc::{self, RX_WORDS};
use crate::eth::{Eth, EthError, Owner};
use crate::platform::{DmaError, Platform};
use crate::rx::{RxChecksum, RxFrame};
use fe_regs::caps::HwLro;
use fe_regs::values::{
    LroAltScoreDelta, LroCtrlDw0, LroCtrlDw2, LroRingRingDipDw0, PdmaPcrxPtr, PdmaRxCntCfg, PdmaRxPtr,
};

/// Most LRO rings the core drives.
pub const MAX_LRO_RINGS: usize = 3;
/// Most descriptors per LRO ring.
pub const MAX_LRO_RING_SIZE: usize = 64;
/// Largest LRO buffer (the RX scratch buffer is this big).
pub const MAX_LRO_BUF: usize = 16384;
/// The MTU whose segment size aggregates are assumed to carry.
pub const LRO_MTU: usize = 1500;
/// Auto-learn bandwidth threshold (LRO control word 2), as Linux programs it.
const BW_THRESHOLD: u32 = 3000;
/// Score difference to replace a learned flow, as Linux programs it.
const ALT_SCORE_DELTA: u32 = 1000;
/// Auto-learn mode written to each ring, as Linux programs it.
const AUTO_LEARN_MODE: u8 = 3;
/// How long `relinquish` waits for the engine, in ns.
const RELINQUISH_TIMEOUT_NS: u64 = 1_000_000;

/// The LRO rings, their buffers, and who owns each descriptor.
#[derive(Debug)]
pub(crate) struct LroRings {
    pub(crate) caps: HwLro,
    desc_size: usize,
    base: [u64; MAX_LRO_RINGS],
    bufs: [u64; MAX_LRO_RINGS],
    next: [usize; MAX_LRO_RINGS],
    owner: [[Owner; MAX_LRO_RING_SIZE]; MAX_LRO_RINGS],
}

impl LroRings {
    /// Rings for `caps`, allocated from `alloc` (size, align) -> physical address.
    pub(crate) fn new(
        caps: HwLro,
        desc_size: usize,
        mut alloc: impl FnMut(usize, usize) -> Result<u64, EthError>,
    ) -> Result<Self, EthError> {
        let (rings, size) = (usize::from(caps.rings), usize::from(caps.ring_size));
        if rings == 0 || rings > MAX_LRO_RINGS || size == 0 || size > MAX_LRO_RING_SIZE {
            return Err(EthError::Unsupported("hw_lro ring count or size"));
        }
        if caps.buffer_size as usize > MAX_LRO_BUF || caps.buffer_size >= 1 << 14 {
            return Err(EthError::Unsupported("hw_lro buffer size"));
        }
        let mut r = LroRings {
            caps,
            desc_size,
            base: [0; MAX_LRO_RINGS],
            bufs: [0; MAX_LRO_RINGS],
            next: [0; MAX_LRO_RINGS],
            owner: [[Owner::Driver; MAX_LRO_RING_SIZE]; MAX_LRO_RINGS],
        };
        for k in 0..rings {
            r.base[k] = alloc(desc_size * size, desc_size.max(16))?;
            r.bufs[k] = alloc(caps.buffer_size as usize * size, 64)?;
        }
        Ok(r)
    }

    fn rings(&self) -> usize {
        usize::from(self.caps.rings)
    }

    fn size(&self) -> usize {
        usize::from(self.caps.ring_size)
    }

    fn addr(&self, k: usize, i: usize) -> u64 {
        self.base[k] + (i * self.desc_size) as u64
    }

    fn buf(&self, k: usize, i: usize) -> u32 {
        (self.bufs[k] + (i * self.caps.buffer_size as usize) as u64) as u32
    }

    fn give<P: Platform>(
        &mut self,
        p: &P,
        layout: fe_regs::descriptors::DescriptorLayout,
        k: usize,
        i: usize,
    ) -> Result<(), DmaError> {
        p.dma_write_words(self.addr(k, i), &desc::rx_fresh(layout, self.buf(k, i), self.caps.buffer_size as u16))?;
        self.owner[k][i] = Owner::Engine;
        Ok(())
    }

    /// Buffers the engine holds.
    pub(crate) fn engine_held(&self) -> usize {
        self.owner.iter().flatten().filter(|o| **o == Owner::Engine).count()
    }
}

/// Segment count and size of a frame delivered by an LRO ring: from its IP and TCP header
/// lengths (parsed as SoftLRO parses), the segment size a [`LRO_MTU`] link carries, and the
/// count that payload needs. `(1, 0)` for a frame that holds one segment or is not TCP.
#[must_use]
pub fn aggregate_meta(frame: &[u8]) -> (u16, u16) {
    let Ok(seg) = crate::softlro::parse::parse(frame, 0) else { return (1, 0) };
    let mss = LRO_MTU.saturating_sub(seg.tcp_off - seg.l2_len + seg.tcp_hlen);
    let payload = seg.payload_len();
    if mss == 0 || payload <= mss {
        return (1, 0);
    }
    (payload.div_ceil(mss).min(usize::from(u16::MAX)) as u16, mss as u16)
}

impl<P: Platform> Eth<P> {
    /// Points PDMA rings 1..=n at the LRO rings and gives every descriptor to the DMA (at open).
    pub(crate) fn lro_rings_init(&mut self) -> Result<(), EthError> {
        let Some(mut l) = self.lro.take() else { return Ok(()) };
        let r = self.lro_rings_program(&mut l);
        self.lro = Some(l);
        r
    }

    fn lro_rings_program(&self, l: &mut LroRings) -> Result<(), EthError> {
        let pd = &self.soc.fe.pdma;
        let fe = self.p.fe();
        for k in 0..l.rings() {
            for i in 0..l.size() {
                l.give(&self.p, self.rx_layout, k, i)?;
            }
            l.next[k] = 0;
            let ring = k + 1;
            let regs = (pd.rx_ptr.at(ring), pd.rx_cnt_cfg.at(ring), pd.pcrx_ptr.at(ring));
            let (Some(ptr), Some(cnt), Some(cpu)) = regs else {
                return Err(EthError::Unsupported("hw_lro needs a PDMA ring per LRO ring"));
            };
            ptr.on(&fe).write_value(PdmaRxPtr(l.base[k] as u32));
            cnt.on(&fe).write_value(PdmaRxCntCfg(l.size() as u32));
            cpu.on(&fe).write_value(PdmaPcrxPtr(l.size() as u32 - 1));
        }
        pd.rst_idx.on(&fe).write(|v| {
            v.set_pst_drx_idx1(l.rings() >= 1);
            v.set_pst_drx_idx2(l.rings() >= 2);
            v.set_pst_drx_idx3(l.rings() >= 3);
        });
        Ok(())
    }

    /// Programs the limits and timers of every LRO ring and turns hardware LRO on.
    pub(crate) fn hw_lro_enable(&mut self) {
        let (Some(l), Some(lro), Some(rings)) = (self.lro.as_ref(), self.soc.fe.lro, self.soc.fe.lro_ring) else {
            return;
        };
        let c = l.caps;
        let fe = self.p.fe();
        let unit = c.timer_unit_us.max(1);
        let age = c.age_time_us / unit;
        let agg = (c.max_agg_time_us / unit).min(0xffff) as u16;
        for ring in 1..=l.rings() {
            let Some(r) = rings.at(ring) else { continue };
            r.ring_ctrl_dw1.on(&fe).modify(|v| v.set_age_time_l((age & 0x3ff) as u16));
            r.ring_ctrl_dw2.on(&fe).modify(|v| {
                v.set_age_time_h(((age >> 10) & 0x3f) as u8);
                v.set_auto_learn_mode(AUTO_LEARN_MODE);
                v.set_max_agg_time(agg);
                v.set_max_agg_cnt_l(c.max_segments & 0x3f);
                v.set_ring_vld(true);
            });
            r.ring_ctrl_dw3.on(&fe).modify(|v| v.set_max_agg_cnt_h(c.max_segments >> 6));
        }
        lro.ctrl_dw2.on(&fe).write_value(LroCtrlDw2(BW_THRESHOLD));
        lro.alt_score_delta.on(&fe).write_value(LroAltScoreDelta(ALT_SCORE_DELTA));
        lro.ctrl_dw3.on(&fe).modify(|v| {
            v.set_max_agg_cnt(c.max_segments);
            v.set_min_rxd_sdl(c.min_room.min(0xffff) as u16);
        });
        lro.ctrl_dw0
            .on(&fe)
            .write_value(LroCtrlDw0(0).with_lro_en(true).with_l3_cks_upd_en(true).with_alt_pkt_cnt_mode(true));
    }

    /// Asks the engine to flush every LRO ring's aggregate and give up its flow, waits for it,
    /// then turns hardware LRO off. The flushed aggregates wait in the rings for `poll`.
    pub(crate) fn hw_lro_disable(&mut self) -> Result<(), EthError> {
        let (Some(l), Some(lro)) = (self.lro.as_ref(), self.soc.fe.lro) else { return Ok(()) };
        let fe = self.p.fe();
        if !lro.ctrl_dw0.on(&fe).read().lro_en() {
            return Ok(());
        }
        let mask = ((1u16 << l.rings()) - 1) as u8;
        lro.ctrl_dw0.on(&fe).modify(|v| v.set_ring_relinquish_req(mask));
        let start = self.p.now_ns();
        while lro.ctrl_dw0.on(&fe).read().ring_relinquish_done() & mask != mask {
            if self.p.now_ns().saturating_sub(start) > RELINQUISH_TIMEOUT_NS {
                self.stats.drops.lro_relinquish_timeout += 1;
                break;
            }
            self.p.delay_ns(1_000);
        }
        lro.ctrl_dw0.on(&fe).write_value(LroCtrlDw0(0));
        Ok(())
    }

    /// Programs destination-IP rule `rule` of MAC `mac` (like `ethtool -N ethX flow-type tcp4
    /// dst-ip A loc R`): IPv4 TCP to `dst` is merged by hardware LRO; `None` removes the rule.
    pub fn set_lro_rule(&mut self, mac: u8, rule: u8, dst: Option<[u8; 4]>) -> Result<(), EthError> {
        let (Some(l), Some(rings)) = (self.lro.as_ref(), self.soc.fe.lro_ring) else {
            return Err(EthError::Unsupported("hardware LRO"));
        };
        if self.mac(mac).is_none_or(|m| !m.enabled) {
            return Err(EthError::NoSuchMac(mac));
        }
        let per = l.caps.dip_rules_per_mac;
        let n = usize::from(mac) * usize::from(per) + usize::from(rule);
        let r = rings.at(n).filter(|_| rule < per).ok_or(EthError::Unsupported("no such LRO rule"))?;
        let fe = self.p.fe();
        r.ring_dip_dw0.on(&fe).write_value(LroRingRingDipDw0(dst.map_or(0, u32::from_be_bytes)));
        r.ring_ctrl_dw2.on(&fe).modify(|v| v.set_myip_vld(dst.is_some()));
        Ok(())
    }

    /// Polls the LRO rings for up to `budget` aggregates, as `poll` does ring 0; each goes to
    /// `sink` with its segment count and size. Returns how many descriptors it consumed.
    pub(crate) fn poll_lro(&mut self, budget: usize, sink: &mut dyn FnMut(RxFrame<'_>)) -> usize {
        if budget == 0 || !self.open {
            return 0;
        }
        let Some(mut l) = self.lro.take() else { return 0 };
        let trust = self.features.rx_checksum;
        let mut done = 0;
        for k in 0..l.rings() {
            let mut last = None;
            while done < budget {
                let i = l.next[k];
                let mut w = [0u32; RX_WORDS];
                if self.p.dma_read_words(l.addr(k, i), &mut w).is_err() {
                    self.stats.drops.rx_dma_error += 1;
                    break;
                }
                let d = desc::decode_rx(self.rx_layout, w);
                if !d.done {
                    break;
                }
                l.owner[k][i] = Owner::Driver;
                let len = usize::from(d.len);
                if !d.last || len == 0 || len > l.caps.buffer_size as usize || len > self.scratch.len() {
                    self.stats.drops.rx_bad_descriptor += 1;
                } else if let Some(mac) = self.rx_mac(d.src_port) {
                    if self.p.dma_read(u64::from(l.buf(k, i)), &mut self.scratch[..len]).is_err() {
                        self.stats.drops.rx_dma_error += 1;
                    } else {
                        let data = &self.scratch[..len];
                        let checksum = if trust && d.l4_valid { RxChecksum::Verified } else { RxChecksum::Unverified };
                        let (segs, seg_size) = aggregate_meta(data);
                        self.stats.count_rx(mac, len, checksum);
                        self.stats.hw_lro_frames += 1;
                        self.stats.hw_lro_segments += u64::from(segs);
                        sink(RxFrame { mac, data, checksum, segs, seg_size });
                    }
                } else {
                    self.stats.drops.rx_bad_port += 1;
                }
                if l.give(&self.p, self.rx_layout, k, i).is_err() {
                    self.stats.drops.rx_dma_error += 1;
                }
                last = Some(i);
                l.next[k] = (i + 1) % l.size();
                done += 1;
            }
            if let (Some(i), Some(cpu)) = (last, self.soc.fe.pdma.pcrx_ptr.at(k + 1)) {
                cpu.on(self.p.fe()).write_value(PdmaPcrxPtr(i as u32));
            }
        }
        self.lro = Some(l);
        done
    }

    /// At close, with RX DMA off: counts aggregates not polled as dropped and takes every LRO
    /// buffer back.
    pub(crate) fn lro_teardown(&mut self) -> Result<u64, DmaError> {
        let Some(mut l) = self.lro.take() else { return Ok(0) };
        let mut dropped = 0;
        let mut r = Ok(());
        'rings: for k in 0..l.rings() {
            for n in 0..l.size() {
                let i = (l.next[k] + n) % l.size();
                let mut w = [0u32; RX_WORDS];
                if let Err(e) = self.p.dma_read_words(l.addr(k, i), &mut w) {
                    r = Err(e);
                    break 'rings;
                }
                if !desc::decode_rx(self.rx_layout, w).done {
                    break;
                }
                dropped += 1;
            }
        }
        l.owner = [[Owner::Driver; MAX_LRO_RING_SIZE]; MAX_LRO_RINGS];
        self.lro = Some(l);
        self.stats.drops.rx_teardown += dropped;
        r.map(|()| dropped)
    }
}
