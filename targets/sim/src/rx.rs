//! GDMA and PDMA RX: frames from a MAC's wire, checked as GDMA is told, into RX ring 0.

use crate::engine::{Inner, elem, off};
use crate::packet;
use crate::violation::Violation;
use alloc::vec::Vec;
use fe_regs::Space;
use fe_regs::descriptors::{DescriptorLayout, RxV1, RxV2};

impl Inner {
    /// GDMA + PDMA: a frame from MAC `mac`'s wire into RX ring 0; its buffer is reused.
    pub(crate) fn receive(&mut self, mac: usize, mut frame: Vec<u8>, has_fcs: bool) {
        self.receive_in(mac, &mut frame, has_fcs);
        self.buffers.give(frame);
    }

    fn receive_in(&mut self, mac: usize, frame: &mut Vec<u8>, has_fcs: bool) {
        let soc = self.soc;
        let fe = &soc.fe;
        // The MAC: FCS, runts, and frames longer than MCR's max_rx (FCS included).
        let mib = fe.mib.at(mac);
        let count = |s: &mut Self, off: Option<u32>| {
            s.stats.rx_dropped += 1;
            if let Some(o) = off {
                s.regs.add(Space::Fe, o, 1);
            }
        };
        if !self.path_open(mac) {
            // The MAC's path mux is not set up for its interface: nothing reaches the engine.
            self.stats.rx_dropped += 1;
            return;
        }
        if has_fcs {
            if !packet::fcs_ok(frame) {
                count(self, mib.map(|m| m.rx_fcs_errors.offset()));
                return;
            }
            frame.truncate(frame.len().saturating_sub(4));
        }
        let max_rx = fe.mac.at(mac).map_or(1518, |m| {
            match fe_regs::values::MacMcr(self.fe(m.mcr.offset())).max_rx().to_bits() {
                0 => 1518,
                1 => 1536,
                2 => 1552,
                _ => 2048,
            }
        });
        if frame.len() < packet::MIN_FRAME {
            count(self, mib.map(|m| m.rx_short_errors.offset()));
            return;
        }
        // Tags do not count against the limit: 4 bytes per VLAN tag, and the switch's tag.
        let vlan = |o: usize| frame.get(o..o + 2).is_some_and(|t| t == [0x81, 0x00] || t == [0x88, 0xa8]);
        let tagged = self.switches.iter().any(|sw| sw.mac == mac);
        let first = if tagged { 16 } else { 12 };
        let allowance =
            4 * (usize::from(tagged) + usize::from(vlan(first)) + usize::from(vlan(first) && vlan(first + 4)));
        if frame.len() + 4 > max_rx + allowance {
            count(self, mib.map(|m| m.rx_long_errors.offset()));
            return;
        }
        if let Some(c) = self.macs[mac].capture_rx.as_mut() {
            c.record(self.now, frame);
        }
        if self.macs[mac].corrupt_next > 0 {
            self.macs[mac].corrupt_next -= 1;
            if let Some(b) = frame.last_mut() {
                *b ^= 0x5a;
            }
        }
        let frame = &frame[..];
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
        if size == 0 || drx == calc || self.now < self.rx_stall_until {
            self.stats.rx_ring_full += 1;
            if let Some(m) = mib {
                self.regs.add(Space::Fe, m.rx_overflow.offset(), 1);
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
        // Checksum checks, only for what GDMA is told to check.
        let (ics, tcs, ucs) = (fwd & (1 << 22) != 0, fwd & (1 << 21) != 0, fwd & (1 << 20) != 0);
        let parsed = packet::parse(frame);
        let mut l4_valid = false;
        let mut csum_error = false;
        if let Some(p) = &parsed {
            let ip_ok = p.ipv4_checksum_ok(frame).unwrap_or(true);
            let checked = match p.l4_protocol() {
                Some(6) => tcs,
                Some(17) => ucs,
                _ => false,
            };
            if checked {
                match p.l4_checksum_ok(frame) {
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
        if self.lro_offer(mac, frame, l4_valid) {
            if let Some(m) = mib {
                self.regs.add(Space::Fe, m.rx_packets.offset(), 1);
                self.regs.add64(Space::Fe, m.rx_bytes.offset(), m.rx_bytes_hi.offset(), frame.len() as u32);
            }
            return;
        }
        // The two RX layouts have the same field names at different bits; one body serves both.
        macro_rules! fill {
            ($d:expr) => {{
                let mut d = $d;
                if d.done() {
                    None
                } else {
                    let slot = (d.addr0(), d.plen0() as usize);
                    d.set_plen0(frame.len() as u16);
                    d.set_ls0(true);
                    d.set_done(true);
                    d.set_src_port(mac as u8 + 1);
                    d.set_l4_valid(l4_valid);
                    Some((slot.0, slot.1, d.words))
                }
            }};
        }
        let written = match soc.caps.rx_descriptor {
            DescriptorLayout::RxV2 => fill!(RxV2 { words }),
            _ => fill!(RxV1 { words }),
        };
        let Some(written) = written else {
            self.violate(Violation::DescriptorNotOwned { addr });
            self.stats.rx_dropped += 1;
            return;
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
        if let Err(v) = self.desc_write(addr, &new_words) {
            self.violate(v);
            return;
        }
        self.regs.set(Space::Fe, elem(fe.pdma.pdrx_ptr, 0), (drx + 1) % size);
        self.complete(crate::moderation::Dir::Rx);
        self.stats.rx_frames += 1;
        if let Some(m) = mib {
            self.regs.add(Space::Fe, m.rx_packets.offset(), 1);
            self.regs.add64(Space::Fe, m.rx_bytes.offset(), m.rx_bytes_hi.offset(), frame.len() as u32);
            if csum_error {
                self.regs.add(Space::Fe, m.rx_checksum_errors.offset(), 1);
            }
        }
    }
}
