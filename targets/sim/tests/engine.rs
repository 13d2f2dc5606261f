//! The model itself, per SoC, driven through its registers (not through the driver): register
//! semantics, a TX and an RX round trip per descriptor layout, checksum-bit behaviour, line rate,
//! cold reset, ring exhaustion, and each refused driver mistake.

mod common;

use common::*;
use fe_regs::SocInfo;
use fe_regs::bus::Bus;
use fe_regs::descriptors::{DescriptorLayout, RxV1, RxV2, TxV1, TxV2};
use fe_sim::packet;
use fe_sim::{Sim, Violation};

#[test]
fn registers_start_at_reset_and_follow_their_access_kinds() {
    each_soc(|soc| {
        let sim = Sim::new(soc);
        for m in
            soc.registers.iter().filter(|m| m.space == fe_regs::Space::Fe && m.access == fe_regs::meta::AccessKind::Rw)
        {
            assert_eq!(r(&sim, m.offset), m.reset & !m.wo_mask, "{}: {}", soc.name, m.name);
        }
        // Read-only register: the write is refused and recorded.
        let msr = soc.fe.mac.at(0).unwrap().msr.offset();
        w(&sim, msr, 0xffff);
        assert!(matches!(sim.violations().last(), Some((_, Violation::ReadOnlyWrite { register: "mac.msr", .. }))));
        assert_eq!(r(&sim, msr), 0);
        // Setting a read-only bit of a read-write register is refused; the writable bits land.
        let glo = soc.fe.pdma.glo_cfg.offset();
        let n = sim.violations().len();
        w(&sim, glo, 1 << 1 | 1 << 6); // tx_dma_busy (ro) and tx_wb_ddone (rw)
        assert_eq!(sim.violations().len(), n + 1);
        assert_eq!(r(&sim, glo), 1 << 6);
        // Unknown offset.
        w(&sim, 0x7ffc, 1);
        assert!(matches!(sim.violations().last(), Some((_, Violation::UnknownRegister { offset: 0x7ffc, .. }))));
        // Write-only register read.
        let _ = r(&sim, soc.fe.pdma.rst_idx.offset());
        assert!(matches!(sim.violations().last(), Some((_, Violation::WriteOnlyRead { .. }))));
    });
}

#[test]
fn tx_round_trip_per_layout() {
    each_soc(|soc| {
        let mut rig = new_rig(soc);
        let frame = tcp_frame(1000, false);
        send(&mut rig, 0, 0, &frame);
        rig.sim.advance(100_000);
        let sent = rig.sim.take_sent(0);
        assert_eq!(sent.len(), 1, "{}", soc.name);
        assert_eq!(sent[0].1, frame);
        let fe = &soc.fe;
        assert_eq!(
            r(&rig.sim, fe.qdma.drx_ptr.offset()),
            rig.tx_ring as u32,
            "release pointer at the completed descriptor"
        );
        let d = rig.sim.dma_read(rig.tx_ring, 16).unwrap();
        let owner = u32::from_le_bytes(d[8..12].try_into().unwrap()) >> 31;
        assert_eq!(owner, 1, "completed descriptor handed back to the CPU");
        assert!(rig.sim.irq(match soc.caps.irq.layout {
            fe_regs::caps::IrqLayout::Shared { line } => line,
            fe_regs::caps::IrqLayout::Split { tx, .. } => tx,
        }));
        assert_eq!(r(&rig.sim, fe.mib.at(0).unwrap().tx_packets.offset()), 1);
        assert_eq!(r(&rig.sim, fe.mib.at(0).unwrap().tx_packets.offset()), 0, "MIB counters clear on read");
        assert!(rig.sim.violations().is_empty(), "{:?}", rig.sim.violations());
    });
}

fn rx_desc(rig: &Rig, i: u32) -> (bool, usize, bool, u8) {
    let soc = info(&rig.sim);
    let b = rig.sim.dma_read(rig.rx_ring + u64::from(i) * 16, 16).unwrap();
    let words: [u32; 4] = core::array::from_fn(|k| u32::from_le_bytes(b[k * 4..k * 4 + 4].try_into().unwrap()));
    match soc.caps.rx_descriptor {
        DescriptorLayout::RxV2 => {
            let d = RxV2 { words };
            (d.done(), d.plen0() as usize, d.l4_valid(), d.src_port())
        }
        _ => {
            let d = RxV1 { words };
            (d.done(), d.plen0() as usize, d.l4_valid(), d.src_port())
        }
    }
}

#[test]
fn rx_round_trip_and_checksum_bit() {
    each_soc(|soc| {
        let rig = new_rig(soc);
        let good = tcp_frame(500, false);
        let mut bad = good.clone();
        packet::set_bad_l4_checksum(&mut bad);
        let v6 = tcp_frame(700, true);
        for f in [&good, &bad, &v6] {
            rig.sim.send_to_mac(0, f.clone());
        }
        rig.sim.advance(1_000_000);
        let (done, len, l4, port) = rx_desc(&rig, 0);
        assert!(done && len == good.len() && l4 && port == 1, "{}: good frame {done} {len} {l4} {port}", soc.name);
        assert_eq!(rig.sim.dma_read(rig.rx_bufs[0], good.len()).unwrap(), good);
        assert!(!rx_desc(&rig, 1).2, "{}: bad checksum is not marked valid", soc.name);
        assert!(rx_desc(&rig, 2).2, "{}: IPv6 TCP verified", soc.name);
        assert_eq!(r(&rig.sim, soc.fe.mib.at(0).unwrap().rx_checksum_errors.offset()), 1);
        assert_eq!(r(&rig.sim, soc.fe.pdma.pdrx_ptr.at(0).unwrap().offset()), 3);
        let rx_line = match soc.caps.irq.layout {
            fe_regs::caps::IrqLayout::Shared { line } => line,
            fe_regs::caps::IrqLayout::Split { rx, .. } => rx,
        };
        assert!(rig.sim.irq(rx_line));
        // Turn RX checksum checking off in hardware: a good frame is no longer marked valid.
        w(&rig.sim, soc.fe.gdma.at(0).unwrap().fwd_cfg.offset(), 0);
        rig.sim.send_to_mac(0, good.clone());
        rig.sim.advance(1_000_000);
        assert!(rx_desc(&rig, 3).0 && !rx_desc(&rig, 3).2, "{}: checking off, bit clear", soc.name);
        assert!(rig.sim.violations().is_empty(), "{:?}", rig.sim.violations());
    });
}

#[test]
fn rx_ring_exhaustion_drops_and_counts() {
    each_soc(|soc| {
        let rig = new_rig(soc);
        for _ in 0..RX_RING + 3 {
            rig.sim.send_to_mac(0, tcp_frame(100, false));
        }
        rig.sim.advance(10_000_000);
        // size - 1 descriptors are usable before the DMA index meets the CPU index.
        assert_eq!(rig.sim.stats().rx_frames, u64::from(RX_RING - 1));
        assert_eq!(r(&rig.sim, soc.fe.mib.at(0).unwrap().rx_overflow.offset()), 4);
    });
}

#[test]
fn line_rate_goodput_at_1g() {
    each_soc(|soc| {
        let mut rig = new_rig(soc);
        let frame = tcp_frame(1448, false);
        assert_eq!(frame.len(), 1514);
        let n = 2000u64;
        for _ in 0..n {
            send(&mut rig, 0, 0, &frame);
            if rig.next_tx == 0 {
                // Less than the 16 frames' wire time (197 us), so the wire never idles.
                rig.sim.advance(150_000);
            }
        }
        rig.sim.advance(100_000_000);
        let sent = rig.sim.take_sent(0);
        assert_eq!(sent.len() as u64, n);
        let first_start = sent[0].0 - fe_sim::wire::frame_time_ns(1514, 1000);
        let dur = sent.last().unwrap().0 - first_start;
        let goodput = (n * 1448 * 8) as f64 / dur as f64 * 1000.0; // Mbit/s
        assert!((goodput - 941.5).abs() < 0.5, "{}: {goodput} Mbit/s", soc.name);
    });
}

#[test]
fn cold_reset_restores_reset_values_and_drops_frames() {
    each_soc(|soc| {
        let rig = new_rig(soc);
        rig.sim.send_to_mac(0, tcp_frame(100, false));
        let rst = soc.caps.cold_reset.reg.offset as usize;
        rig.sim.ethsys().write32(rst, soc.caps.cold_reset.mask);
        rig.sim.ethsys().write32(rst, 0);
        rig.sim.advance(1_000_000);
        assert_eq!(rig.sim.stats().rx_frames, 0);
        assert_eq!(r(&rig.sim, soc.fe.pdma.glo_cfg.offset()), soc.fe.pdma.glo_cfg.reset().0);
        assert_eq!(r(&rig.sim, soc.fe.pdma.rx_ptr.at(0).unwrap().offset()), 0);
    });
}

#[test]
fn refused_driver_mistakes() {
    each_soc(|soc| {
        let fe = &soc.fe;
        // DMA enabled before the ring is set.
        let sim = Sim::new(soc);
        w(&sim, fe.pdma.glo_cfg.offset(), 1 << 2);
        assert!(sim.violations().iter().any(|(_, v)| matches!(v, Violation::DmaEnabledWithoutRing { .. })));
        // CPU index past the ring.
        let rig = new_rig(soc);
        w(&rig.sim, fe.pdma.pcrx_ptr.at(0).unwrap().offset(), RX_RING + 5);
        assert!(rig.sim.violations().iter().any(|(_, v)| matches!(v, Violation::RingIndexOutOfRange { .. })));
        // A TX descriptor still owned by the CPU.
        let rig = new_rig(soc);
        let next = (rig.tx_ring + tx_size(soc)) as u32;
        w(&rig.sim, fe.qdma.ctx_ptr.offset(), next);
        rig.sim.advance(1000);
        assert!(rig.sim.violations().iter().any(|(_, v)| matches!(v, Violation::DescriptorNotOwned { .. })));
        // A buffer address outside DMA memory.
        let mut rig2 = rig_with_bad_buffer(soc);
        send(&mut rig2, 0, 0, &[0u8; 64]);
        rig2.sim.advance(1000);
        assert!(rig2.sim.violations().iter().any(|(_, v)| matches!(v, Violation::DmaOutOfRange { .. })));
    });
}

fn rig_with_bad_buffer(soc: &'static SocInfo) -> Rig {
    let mut r = new_rig(soc);
    r.tx_bufs[0] = 0x10;
    // Writing the frame there fails on the CPU side; patch the descriptor by hand instead.
    r.tx_bufs[0] = r.tx_bufs[1];
    let ds = tx_size(soc);
    let next = (r.tx_ring + ds) as u32;
    let words: Vec<u32> = match soc.caps.tx_descriptor {
        DescriptorLayout::TxV2 => {
            TxV2::new().with_addr0(0x10).with_next(next).with_plen0(64).with_ls0(true).with_fport(1).words.to_vec()
        }
        _ => TxV1::new().with_addr0(0x10).with_next(next).with_plen0(64).with_ls0(true).with_fport(1).words.to_vec(),
    };
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    r.sim.dma_write(r.tx_ring, &bytes).unwrap();
    w(&r.sim, soc.fe.qdma.ctx_ptr.offset(), next);
    r.next_tx = 1;
    r
}

#[test]
fn tx_checksum_insertion_and_tso_when_the_descriptor_asks() {
    each_soc(|soc| {
        let mut rig = new_rig(soc);
        // Checksum offload: the driver leaves the checksums zero, the engine fills them.
        let mut f = tcp_frame(800, false);
        let ip = 14;
        f[ip + 10] = 0;
        f[ip + 11] = 0;
        let tcp = ip + 20;
        f[tcp + 16] = 0;
        f[tcp + 17] = 0;
        send_with(&mut rig, 0, 0, &f, true, false);
        // TSO: one 3000-byte segment with the MSS (1000) in the TCP checksum field.
        let mut big = tcp_frame(3000, false);
        big[tcp + 16..tcp + 18].copy_from_slice(&1000u16.to_be_bytes());
        send_with(&mut rig, 0, 0, &big, false, true);
        rig.sim.advance(1_000_000);
        let sent = rig.sim.take_sent(0);
        assert_eq!(sent.len(), 4, "{}: 1 + 3 segments", soc.name);
        assert_eq!(packet::ipv4_checksum_ok(&sent[0].1), Some(true));
        assert_eq!(packet::l4_checksum_ok(&sent[0].1), Some(true));
        for s in &sent[1..] {
            let p = packet::parse(&s.1).unwrap();
            assert_eq!(p.payload_len, 1000);
            assert_eq!(packet::l4_checksum_ok(&s.1), Some(true), "{}", soc.name);
            assert_eq!(packet::ipv4_checksum_ok(&s.1), Some(true));
        }
    });
}

#[test]
fn gdma_forward_drop() {
    each_soc(|soc| {
        let rig = new_rig(soc);
        w(&rig.sim, soc.fe.gdma.at(0).unwrap().fwd_cfg.offset(), 0x7777);
        rig.sim.send_to_mac(0, tcp_frame(100, false));
        rig.sim.advance(1_000_000);
        assert_eq!(rig.sim.stats().rx_frames, 0, "{}", soc.name);
        assert_eq!(rig.sim.stats().rx_dropped, 1);
    });
}

#[test]
fn mib_byte_counters_carry_into_their_high_words() {
    each_soc(|soc| {
        let mut regs = fe_sim::regfile::RegFile::new(soc);
        let mib = soc.fe.mib.at(1).unwrap();
        let (lo, hi) = (mib.rx_bytes.offset(), mib.rx_bytes_hi.offset());
        regs.set(fe_regs::Space::Fe, lo, 0xffff_fff0);
        regs.add64(fe_regs::Space::Fe, lo, hi, 0x20);
        assert_eq!(regs.get(fe_regs::Space::Fe, lo), 0x10, "{}", soc.name);
        assert_eq!(regs.get(fe_regs::Space::Fe, hi), 1, "{}", soc.name);
    });
}

#[test]
fn the_gmac_pads_short_frames_to_the_ethernet_minimum() {
    // Linux's driver hands 42-byte ARP replies to the engine unpadded (mtk_start_xmit): the
    // GMAC pads them in hardware, and counts the padded length.
    each_soc(|soc| {
        let mut rig = new_rig(soc);
        let short: Vec<u8> = (0..42u8).collect();
        send(&mut rig, 0, 0, &short);
        rig.sim.advance(100_000);
        let sent = rig.sim.take_sent(0);
        assert_eq!(sent.len(), 1, "{}", soc.name);
        assert_eq!(sent[0].1.len(), packet::MIN_FRAME, "{}", soc.name);
        assert_eq!(&sent[0].1[..42], &short[..], "{}", soc.name);
        assert!(sent[0].1[42..].iter().all(|b| *b == 0), "{}: padding is zeros", soc.name);
        let mib = soc.fe.mib.at(0).unwrap();
        assert_eq!(r(&rig.sim, mib.tx_bytes.offset()), packet::MIN_FRAME as u32, "{}", soc.name);
        assert!(rig.sim.violations().is_empty(), "{:?}", rig.sim.violations());
    });
}

#[test]
fn a_frames_offloads_come_from_its_first_descriptor() {
    // Linux 6.12 (mtk_tx_set_dma_desc_v1/v2) sets TX_DMA_CHKSUM and TX_DMA_TSO on a frame's
    // first descriptor only; its fragments' descriptors carry neither. Found when Linux's own
    // driver ran on the QEMU device: TCP data went out with bad checksums.
    each_soc(|soc| {
        let mut rig = new_rig(soc);
        let tcp = 14 + 20;
        let mut f = tcp_frame(800, false);
        f[tcp + 16..tcp + 18].copy_from_slice(&[0xde, 0xad]); // what the engine must overwrite
        send_parts(&mut rig, 0, 0, &[(&f[..66], true, false), (&f[66..], false, false)]);
        let mut big = tcp_frame(3000, false);
        big[tcp + 16..tcp + 18].copy_from_slice(&1000u16.to_be_bytes());
        send_parts(
            &mut rig,
            0,
            0,
            &[(&big[..66], false, true), (&big[66..2000], false, false), (&big[2000..], false, false)],
        );
        rig.sim.advance(1_000_000);
        let sent = rig.sim.take_sent(0);
        assert_eq!(sent.len(), 4, "{}: 1 + 3 segments", soc.name);
        for s in &sent {
            assert_eq!(packet::l4_checksum_ok(&s.1), Some(true), "{}", soc.name);
        }
        assert!(rig.sim.violations().is_empty(), "{:?}", rig.sim.violations());
    });
}
