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

use crate::desc::{RX_WORDS, RxCodec};
use crate::eth::{Eth, EthError};
use crate::frame::{RxChecksum, RxFrame};
use crate::handles::{EthCtl, EthRx};
use crate::platform::{DmaError, Platform};
pub use crate::ring::lro::{MAX_LRO_BUF, MAX_LRO_RING_SIZE, MAX_LRO_RINGS};
use fe_regs::descriptors::{DescriptorLayout, RxV1, RxV2};
use fe_regs::values::{LroAltScoreDelta, LroCtrlDw0, LroCtrlDw2, LroRingRingDipDw0, PdmaRstIdx};

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
        let Eth { lro, p, soc, .. } = self;
        if !lro.present() {
            return Ok(());
        }
        for r in lro.rings_mut() {
            r.reset(p)?;
        }
        let n = lro.count();
        soc.fe.bind(&p.fe()).pdma().rst_idx().write(|v| {
            // The LRO rings are rings 1..: reset the DMA index of those in use.
            for ring in 1..PdmaRstIdx::PST_DRX_IDX_COUNT {
                let _ = v.set_pst_drx_idx(ring, ring <= n);
            }
        });
        Ok(())
    }

    /// Programs the limits and timers of every LRO ring and turns hardware LRO on.
    pub(crate) fn hw_lro_enable(&mut self) {
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        let (Some(c), Some(lro), Some(rings)) = (self.lro.caps(), fe.lro(), fe.lro_ring()) else {
            return;
        };
        let l = &self.lro;
        let unit = c.timer_unit_us.max(1);
        let age = c.age_time_us / unit;
        let agg = (c.max_agg_time_us / unit).min(0xffff) as u16;
        for ring in 1..=l.count() {
            let Some(r) = rings.at(ring) else { continue };
            r.ring_ctrl_dw1().modify(|v| v.set_age_time_l((age & 0x3ff) as u16));
            r.ring_ctrl_dw2().modify(|v| {
                v.set_age_time_h(((age >> 10) & 0x3f) as u8);
                v.set_auto_learn_mode(AUTO_LEARN_MODE);
                v.set_max_agg_time(agg);
                v.set_max_agg_cnt_l(c.max_segments & 0x3f);
                v.set_ring_vld(true);
            });
            r.ring_ctrl_dw3().modify(|v| v.set_max_agg_cnt_h(c.max_segments >> 6));
        }
        lro.ctrl_dw2().write_value(LroCtrlDw2(BW_THRESHOLD));
        lro.alt_score_delta().write_value(LroAltScoreDelta(ALT_SCORE_DELTA));
        lro.ctrl_dw3().modify(|v| {
            v.set_max_agg_cnt(c.max_segments);
            v.set_min_rxd_sdl(c.min_room.min(0xffff) as u16);
        });
        lro.ctrl_dw0()
            .write_value(LroCtrlDw0(0).with_lro_en(true).with_l3_cks_upd_en(true).with_alt_pkt_cnt_mode(true));
    }

    /// Asks the engine to flush every LRO ring's aggregate and give up its flow, waits for it,
    /// then turns hardware LRO off. The flushed aggregates wait in the rings for `poll`.
    pub(crate) fn hw_lro_disable(&mut self) -> Result<(), EthError> {
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        let (true, Some(lro)) = (self.lro.present(), fe.lro()) else { return Ok(()) };
        let l = &self.lro;
        if !lro.ctrl_dw0().read().lro_en() {
            return Ok(());
        }
        let mask = ((1u16 << l.count()) - 1) as u8;
        lro.ctrl_dw0().modify(|v| v.set_ring_relinquish_req(mask));
        let start = self.p.now_ns();
        while lro.ctrl_dw0().read().ring_relinquish_done() & mask != mask {
            if self.p.now_ns().saturating_sub(start) > RELINQUISH_TIMEOUT_NS {
                self.shared.stats.drops.lro_relinquish_timeout.add(1);
                break;
            }
            self.p.delay_ns(1_000);
        }
        lro.ctrl_dw0().write_value(LroCtrlDw0(0));
        Ok(())
    }

    /// [`EthCtl::set_lro_rule`] on the whole engine.
    pub fn set_lro_rule(&mut self, mac: u8, rule: u8, dst: Option<[u8; 4]>) -> Result<(), EthError> {
        self.ctl_handle().set_lro_rule(mac, rule, dst)
    }

    /// At close, with RX DMA off: counts aggregates not polled as dropped and takes every LRO
    /// buffer back.
    pub(crate) fn lro_teardown(&mut self) -> Result<u64, DmaError> {
        let Eth { lro, p, shared, .. } = self;
        let mut dropped = 0;
        for r in lro.rings_mut() {
            dropped += r.teardown(p)?;
        }
        shared.stats.drops.rx_teardown.add(dropped);
        Ok(dropped)
    }
}

impl<P: Platform> EthCtl<'_, P> {
    /// Programs destination-IP rule `rule` of MAC `mac` (like `ethtool -N ethX flow-type tcp4
    /// dst-ip A loc R`): IPv4 TCP to `dst` is merged by hardware LRO; `None` removes the rule.
    pub fn set_lro_rule(&mut self, mac: u8, rule: u8, dst: Option<[u8; 4]>) -> Result<(), EthError> {
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        let (Some(caps), Some(rings)) = (self.soc.caps.hw_lro.filter(|_| self.hw_lro), fe.lro_ring()) else {
            return Err(EthError::Unsupported("this SoC has no hardware LRO"));
        };
        if self.mac(mac).is_none_or(|m| !m.enabled) {
            return Err(EthError::NoSuchMac(mac));
        }
        let per = caps.dip_rules_per_mac;
        let n = usize::from(mac) * usize::from(per) + usize::from(rule);
        let r = rings
            .at(n)
            .filter(|_| rule < per)
            .ok_or(EthError::Unsupported("no such hardware LRO rule for that MAC"))?;
        r.ring_dip_dw0().write_value(LroRingRingDipDw0(dst.map_or(0, u32::from_be_bytes)));
        r.ring_ctrl_dw2().modify(|v| v.set_myip_vld(dst.is_some()));
        Ok(())
    }
}

impl<P: Platform> EthRx<'_, P> {
    /// Polls the LRO rings for up to `budget` aggregates, as `poll` does ring 0; each goes to
    /// `sink` with its segment count and size. Returns how many descriptors it consumed.
    pub(crate) fn poll_lro(&mut self, budget: usize, sink: &mut dyn FnMut(RxFrame<'_>)) -> usize {
        if budget == 0 || !self.open || !self.lro.present() {
            return 0;
        }
        match self.rx_layout {
            DescriptorLayout::RxV2 => self.poll_lro_in::<RxV2>(budget, sink),
            _ => self.poll_lro_in::<RxV1>(budget, sink),
        }
    }

    /// [`EthRx::poll_lro`] in layout `C`.
    fn poll_lro_in<C: RxCodec>(&mut self, budget: usize, sink: &mut dyn FnMut(RxFrame<'_>)) -> usize {
        let trust = self.sh.rx_checksum();
        let EthRx { lro, p, sh, scratch, rx_port, .. } = self;
        let stats = &sh.stats;
        let mut done = 0;
        for ring in lro.rings_mut() {
            let mut cur = ring.begin();
            while done + cur.done < budget {
                let mut w = [0u32; RX_WORDS];
                match ring.read::<C, P>(p, &cur, &mut w) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(_) => {
                        stats.drops.rx_dma_error.add(1);
                        break;
                    }
                }
                let d = C::decode(&w);
                let len = usize::from(d.len);
                let mac = crate::eth::port_mac(rx_port, d.src_port);
                if !d.last || len == 0 || len > ring.buf_size() || len > scratch.len() {
                    stats.drops.rx_bad_descriptor.add(1);
                } else if let Some(mac) = mac {
                    if p.dma_read(ring.buf_addr(cur.i), &mut scratch[..len]).is_err() {
                        stats.drops.rx_dma_error.add(1);
                    } else {
                        let data = &scratch[..len];
                        let checksum = if trust && d.l4_valid { RxChecksum::Verified } else { RxChecksum::Unverified };
                        let (segs, seg_size) = aggregate_meta(data);
                        stats.count_rx(mac, len, checksum);
                        stats.hw_lro_frames.add(1);
                        stats.hw_lro_segments.add(u64::from(segs));
                        sink(RxFrame::new(mac, data, checksum).coalesced(segs, seg_size));
                    }
                } else {
                    stats.drops.rx_bad_port.add(1);
                }
                if !ring.refill::<C, P>(*p, &mut cur) {
                    stats.drops.rx_dma_error.add(1);
                }
            }
            done += ring.publish(*p, cur);
        }
        done
    }
}
