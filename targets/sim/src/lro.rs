//! Hardware LRO (MT7623: the SoCs whose capabilities have `hw_lro`): IPv4 TCP segments to a
//! programmed destination IP are merged into one buffer of an LRO ring (PDMA rings 1..), within
//! the limits the driver programs (segments per aggregate, room left in the buffer, aggregation
//! and age timers), and flushed on relinquish requests.
//!
//! The merged frame keeps the first segment's headers with the total length (and, when
//! `l3_cks_upd_en` is set, the IPv4 header checksum) updated, the last segment's ACK, window and
//! timestamps; its TCP checksum is not recomputed, so the stack relies on the L4-valid bit, which
//! is set only when every merged segment passed the checks.

use crate::engine::{Inner, elem};
use crate::packet::{self, Parsed};
use alloc::vec::Vec;
use fe_regs::Space;
use fe_regs::descriptors::RxV1;
use fe_regs::values::{LroCtrlDw0, LroCtrlDw3, LroRingRingCtrlDw1, LroRingRingCtrlDw2};

/// An aggregation in progress on one LRO ring.
#[derive(Clone, Debug, Default)]
pub(crate) struct Session {
    /// (src ip, dst ip, src port, dst port) of the flow.
    key: ([u8; 4], [u8; 4], u16, u16),
    frame: Vec<u8>,
    segments: u32,
    next_seq: u32,
    started: u64,
    last: u64,
    l4_valid: bool,
    mac: usize,
}

/// Per-ring aggregation state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Lro {
    pub(crate) sessions: [Option<Session>; 4],
    /// Aggregates written to LRO rings.
    pub(crate) flushed: u64,
}

fn ipv4(p: &Parsed) -> Option<([u8; 4], [u8; 4])> {
    let ip = p.ip.as_ref()?;
    (ip.version == 4).then(|| {
        let (mut s, mut d) = ([0; 4], [0; 4]);
        s.copy_from_slice(&ip.src[..4]);
        d.copy_from_slice(&ip.dst[..4]);
        (s, d)
    })
}

impl Inner {
    fn lro_regs(&self) -> Option<(fe_regs::maps::LroMap, fe_regs::bus::BlockArray<fe_regs::maps::LroRingMap>)> {
        let fe = &self.soc.fe;
        Some((fe.lro?, fe.lro_ring?))
    }

    /// Offers a received frame to hardware LRO; `true` if it was absorbed into an aggregate.
    pub(crate) fn lro_offer(&mut self, mac: usize, frame: &[u8], l4_valid: bool) -> bool {
        let Some((lro, rings)) = self.lro_regs() else { return false };
        let Some(caps) = self.soc.caps.hw_lro else { return false };
        if !LroCtrlDw0(self.fe(lro.ctrl_dw0.offset())).lro_en() {
            return false;
        }
        let Some(p) = packet::parse(frame) else { return false };
        let (Some((src, dst)), Some(tcp), Some(ip)) = (ipv4(&p), p.tcp, p.ip) else { return false };
        // Only destination IPs with a valid rule are aggregated.
        let dip_ok = (0..rings.len()).filter_map(|i| rings.at(i)).any(|r| {
            LroRingRingCtrlDw2(self.fe(r.ring_ctrl_dw2.offset())).myip_vld()
                && self.fe(r.ring_dip_dw0.offset()) == u32::from_be_bytes(dst)
        });
        // Segments the hardware does not merge: control flags, IP options, fragments, no payload.
        let plain = tcp.flags & !(packet::TCP_ACK | packet::TCP_PSH) == 0
            && !ip.has_options
            && !ip.fragment
            && p.payload_len > 0;
        let key = (src, dst, tcp.src_port, tcp.dst_port);
        let ring = self.lro.sessions.iter().position(|s| s.as_ref().is_some_and(|s| s.key == key));
        if !dip_ok || !plain || !l4_valid {
            if let Some(r) = ring {
                self.lro_flush(r);
            }
            return false;
        }
        let dw3 = LroCtrlDw3(self.fe(lro.ctrl_dw3.offset()));
        let max_cnt = u32::from(dw3.max_agg_cnt()).clamp(1, u32::from(caps.max_segments));
        let min_room = u32::from(dw3.min_rxd_sdl());
        let payload = &frame[p.payload()];
        if let Some(r) = ring {
            let s = self.lro.sessions[r].as_ref().map(|s| (s.next_seq, s.frame.len()));
            let (next_seq, len) = s.unwrap_or_default();
            let room = caps.buffer_size.saturating_sub((len + payload.len()) as u32);
            if tcp.seq != next_seq || room < min_room {
                self.lro_flush(r);
            } else {
                let now = self.now;
                if let Some(s) = self.lro.sessions[r].as_mut() {
                    s.frame.extend_from_slice(payload);
                    s.segments += 1;
                    s.next_seq = tcp.seq.wrapping_add(payload.len() as u32);
                    s.last = now;
                    // The newest ACK, window and timestamps win (header fields of the first
                    // segment are overwritten in place).
                    let t = ip.l4_offset;
                    let (ack, win) = (t + 8, t + 14);
                    if let (Some(dst), Some(src)) = (s.frame.get_mut(ack..ack + 4), frame.get(ack..ack + 4)) {
                        dst.copy_from_slice(src);
                    }
                    if let (Some(dst), Some(src)) = (s.frame.get_mut(win..win + 2), frame.get(win..win + 2)) {
                        dst.copy_from_slice(src);
                    }
                    if tcp.flags & packet::TCP_PSH != 0 {
                        s.segments = max_cnt;
                    }
                }
                if self.lro.sessions[r].as_ref().is_some_and(|s| s.segments >= max_cnt) {
                    self.lro_flush(r);
                }
                return true;
            }
        }
        // A new aggregate on a free valid LRO ring (1..); none free: the segment goes to ring 0.
        let free = (1..=caps.rings as usize).find(|&i| {
            self.lro.sessions[i].is_none()
                && rings.at(i).is_some_and(|r| LroRingRingCtrlDw2(self.fe(r.ring_ctrl_dw2.offset())).ring_vld())
        });
        let Some(i) = free else { return false };
        self.lro.sessions[i] = Some(Session {
            key,
            frame: frame.to_vec(),
            segments: 1,
            next_seq: tcp.seq.wrapping_add(payload.len() as u32),
            started: self.now,
            last: self.now,
            l4_valid,
            mac,
        });
        if tcp.flags & packet::TCP_PSH != 0 || max_cnt == 1 {
            self.lro_flush(i);
        }
        true
    }

    /// Ring `i`'s timers in simulated ns: (max aggregation time, age time).
    fn lro_timers(&self, i: usize) -> (u64, u64) {
        let Some((_, rings)) = self.lro_regs() else { return (u64::MAX, u64::MAX) };
        let unit = u64::from(self.soc.caps.hw_lro.map_or(20, |l| l.timer_unit_us)) * 1000;
        let Some(r) = rings.at(i) else { return (u64::MAX, u64::MAX) };
        let dw1 = LroRingRingCtrlDw1(self.fe(r.ring_ctrl_dw1.offset()));
        let dw2 = LroRingRingCtrlDw2(self.fe(r.ring_ctrl_dw2.offset()));
        let age = u64::from(dw1.age_time_l()) | (u64::from(dw2.age_time_h()) << 10);
        let agg = u64::from(dw2.max_agg_time());
        let f = |t: u64| if t == 0 { u64::MAX } else { t * unit };
        (f(agg), f(age))
    }

    /// The earliest time an aggregate must be flushed by its timers.
    pub(crate) fn lro_deadline(&self) -> Option<u64> {
        (0..self.lro.sessions.len())
            .filter_map(|i| {
                let s = self.lro.sessions[i].as_ref()?;
                let (agg, age) = self.lro_timers(i);
                Some(s.started.saturating_add(agg).min(s.last.saturating_add(age)))
            })
            .min()
    }

    /// Flushes every aggregate whose timer has expired by now.
    pub(crate) fn lro_expire(&mut self) {
        for i in 0..self.lro.sessions.len() {
            let Some(s) = self.lro.sessions[i].as_ref() else { continue };
            let (agg, age) = self.lro_timers(i);
            if self.now >= s.started.saturating_add(agg) || self.now >= s.last.saturating_add(age) {
                self.lro_flush(i);
            }
        }
    }

    /// Handles a write to `lro.ctrl_dw0`: relinquish requests flush the rings and report done.
    pub(crate) fn lro_relinquish(&mut self, value: u32) {
        let Some((lro, _)) = self.lro_regs() else { return };
        let req = LroCtrlDw0(value).ring_relinquish_req();
        if req == 0 {
            return;
        }
        for i in 0..self.lro.sessions.len() {
            self.lro_flush(i);
        }
        let v = LroCtrlDw0(self.fe(lro.ctrl_dw0.offset())).0 | (u32::from(req) << 29);
        self.regs.set(Space::Fe, lro.ctrl_dw0.offset(), v);
    }

    /// Writes ring `i`'s aggregate into LRO ring `i`.
    pub(crate) fn lro_flush(&mut self, i: usize) {
        let Some(mut s) = self.lro.sessions.get_mut(i).and_then(Option::take) else { return };
        let fe = &self.soc.fe;
        let update_l3 =
            self.lro_regs().is_some_and(|(lro, _)| LroCtrlDw0(self.fe(lro.ctrl_dw0.offset())).l3_cks_upd_en());
        // Fix the IPv4 total length (and checksum) of the merged frame.
        if let Some(p) = packet::parse(&s.frame) {
            let l3 = p.l3_offset;
            let total = (s.frame.len() - l3) as u16;
            if let Some(t) = s.frame.get_mut(l3 + 2..l3 + 4) {
                t.copy_from_slice(&total.to_be_bytes());
            }
            if update_l3 && let Some(h) = s.frame.get(l3..l3 + 20) {
                let c = packet::ipv4_header_checksum(h);
                if let Some(t) = s.frame.get_mut(l3 + 10..l3 + 12) {
                    t.copy_from_slice(&c.to_be_bytes());
                }
            }
        }
        let (base, size, calc, drx) = (
            self.fe(elem(fe.pdma.rx_ptr, i)),
            self.fe(elem(fe.pdma.rx_cnt_cfg, i)),
            self.fe(elem(fe.pdma.pcrx_ptr, i)),
            self.fe(elem(fe.pdma.pdrx_ptr, i)),
        );
        // A dropped aggregate loses every segment in it: each is counted where the driver sees
        // it, in its MAC's overflow counter (as ring 0 does for a single frame).
        let mib = fe.mib.at(s.mac).map(|m| m.rx_overflow.offset());
        let lost = u64::from(s.segments);
        if size == 0 || drx == calc {
            self.stats.rx_ring_full += lost;
            if let Some(m) = mib {
                self.regs.add(Space::Fe, m, s.segments);
            }
            return;
        }
        let addr = u64::from(base) + u64::from(drx) * 16;
        let words = match self.desc_read::<4>(addr) {
            Ok(w) => w,
            Err(v) => {
                self.violate(v);
                return;
            }
        };
        let mut d = RxV1 { words };
        if d.done() {
            self.violate(crate::Violation::DescriptorNotOwned { addr });
            return;
        }
        if s.frame.len() > d.plen0() as usize {
            self.stats.rx_dropped += lost;
            if let Some(m) = mib {
                self.regs.add(Space::Fe, m, s.segments);
            }
            return;
        }
        if let Err(v) = self.dma.write(u64::from(d.addr0()), &s.frame) {
            self.violate(v);
            return;
        }
        d.set_plen0(s.frame.len() as u16);
        d.set_ls0(true);
        d.set_done(true);
        d.set_src_port(s.mac as u8 + 1);
        d.set_l4_valid(s.l4_valid);
        if let Err(v) = self.desc_write(addr, &d.words) {
            self.violate(v);
            return;
        }
        self.regs.set(Space::Fe, elem(fe.pdma.pdrx_ptr, i), (drx + 1) % size);
        self.complete(crate::moderation::Dir::Rx);
        self.lro.flushed += 1;
        self.stats.rx_frames += 1;
        s.frame.clear();
    }
}
