//! GDMA and PDMA RX: frames from a MAC's wire, checked as GDMA is told, into RX ring 0.

use crate::engine::{Inner, elem, off, reg_of};
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
                count(self, reg_of!(fe.mib, mac, rx_fcs_errors));
                return;
            }
            frame.truncate(frame.len().saturating_sub(4));
        }
        let max_rx = reg_of!(fe.mac, mac, mcr).map_or(1518, |mcr| {
            match fe_regs::values::MacMcr(self.fe(mcr)).max_rx().to_bits() {
                0 => 1518,
                1 => 1536,
                2 => 1552,
                _ => 2048,
            }
        });
        if frame.len() < packet::MIN_FRAME {
            count(self, reg_of!(fe.mib, mac, rx_short_errors));
            return;
        }
        // Tags do not count against the limit: 4 bytes per VLAN tag, and the switch's tag.
        let vlan = |o: usize| frame.get(o..o + 2).is_some_and(|t| t == [0x81, 0x00] || t == [0x88, 0xa8]);
        let tagged = self.switches.iter().any(|sw| sw.mac == mac);
        let first = if tagged { 16 } else { 12 };
        let allowance =
            4 * (usize::from(tagged) + usize::from(vlan(first)) + usize::from(vlan(first) && vlan(first + 4)));
        if frame.len() + 4 > max_rx + allowance {
            count(self, reg_of!(fe.mib, mac, rx_long_errors));
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
        let mcr = reg_of!(fe.mac, mac, mcr).map_or(0, |o| self.fe(o));
        let Some(fwd_cfg) = reg_of!(fe.gdma, mac, fwd_cfg) else { return };
        let fwd = self.fe(fwd_cfg);
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
            if let Some(o) = reg_of!(fe.mib, mac, rx_overflow) {
                self.regs.add(Space::Fe, o, 1);
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
        let mut l4_valid = false;
        let mut csum_error = false;
        if let Some(p) = packet::parse_ip(frame) {
            let ip_ok = p.ipv4_checksum_ok(frame).unwrap_or(true);
            let checked = match p.ip.protocol {
                packet::IPPROTO_TCP => tcs,
                packet::IPPROTO_UDP => ucs,
                _ => false,
            };
            if checked {
                match p.l4_checksum_ok(frame) {
                    Some(true) => l4_valid = p.ip.version != 4 || !ics || ip_ok,
                    Some(false) => csum_error = true,
                    None => {}
                }
            }
            if ics && p.ip.version == 4 && !ip_ok {
                csum_error = true;
                l4_valid = false;
            }
        }
        if self.lro_offer(mac, frame, l4_valid) {
            self.count_received(mac, frame.len(), false);
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
            if let Some(o) = reg_of!(fe.mib, mac, rx_long_errors) {
                self.regs.add(Space::Fe, o, 1);
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
        self.count_received(mac, frame.len(), csum_error);
    }

    /// MAC `mac`'s MIB counts a frame of `len` bytes received (and a checksum error).
    fn count_received(&mut self, mac: usize, len: usize, csum_error: bool) {
        let mib = &self.soc.fe.mib;
        if let (Some(packets), Some(lo), Some(hi)) =
            (reg_of!(mib, mac, rx_packets), reg_of!(mib, mac, rx_bytes), reg_of!(mib, mac, rx_bytes_hi))
        {
            self.regs.add(Space::Fe, packets, 1);
            self.regs.add64(Space::Fe, lo, hi, len as u32);
        }
        if let Some(o) = reg_of!(mib, mac, rx_checksum_errors).filter(|_| csum_error) {
            self.regs.add(Space::Fe, o, 1);
        }
    }
}
