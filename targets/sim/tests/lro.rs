//! Hardware LRO in the model: only on SoCs whose YAML has `hw_lro`, within the limits the
//! driver programs from those capabilities (segments, buffer room, aggregation and age timers),
//! flushed on a relinquish request; merged frames carry contiguous payload and correct IPv4
//! lengths. Every test runs on every SoC of `fe_regs::SOCS` with hardware LRO.

mod common;

use common::*;
use fe_regs::bus::Bus;
use fe_regs::descriptors::RxV1;
use fe_regs::values::{LroCtrlDw0, LroCtrlDw3, LroRingRingCtrlDw1, LroRingRingCtrlDw2};
use fe_sim::packet::{self, TcpStream};

const LRO_RING: u32 = 8;
const DIP: [u8; 4] = [10, 0, 0, 2];

struct Lro {
    rig: Rig,
    caps: fe_regs::caps::HwLro,
    bufs: Vec<Vec<u64>>,
    rings: Vec<u64>,
}

/// One rig per SoC with hardware LRO (the rig writes RX descriptors in the v1 layout; a SoC with
/// another layout is skipped, saying so). Fails when no SoC qualifies.
fn lro_rigs() -> Vec<Lro> {
    let mut out = Vec::new();
    for soc in fe_regs::SOCS {
        match (soc.caps.hw_lro, soc.caps.rx_descriptor) {
            (None, _) => {}
            (Some(caps), fe_regs::descriptors::DescriptorLayout::RxV1) => out.push(lro_rig(soc, caps)),
            (Some(_), other) => println!("{}: skipped, the rig writes RxV1 descriptors, not {other:?}", soc.name),
        }
    }
    assert!(!out.is_empty(), "no SoC with hardware LRO and RxV1 descriptors in fe_regs::SOCS");
    out
}

fn lro_rig(soc: &'static fe_regs::SocInfo, caps: fe_regs::caps::HwLro) -> Lro {
    let rig = new_rig(soc);
    let fe = &soc.fe;
    let (lro, rings_regs) = (fe.lro.unwrap(), fe.lro_ring.unwrap());
    let mut bufs = vec![Vec::new()];
    let mut rings = vec![0];
    for ring in 1..=caps.rings as usize {
        let base = rig.sim.dma_alloc(16 * LRO_RING as usize, 16).unwrap();
        let mut b = Vec::new();
        for i in 0..LRO_RING {
            let buf = rig.sim.dma_alloc(caps.buffer_size as usize, 64).unwrap();
            let d = RxV1::new().with_addr0(buf as u32).with_plen0(caps.buffer_size as u16);
            let bytes: Vec<u8> = d.words.iter().flat_map(|w| w.to_le_bytes()).collect();
            rig.sim.dma_write(base + u64::from(i) * 16, &bytes).unwrap();
            b.push(buf);
        }
        w(&rig.sim, fe.pdma.rx_ptr.at(ring).unwrap().offset(), base as u32);
        w(&rig.sim, fe.pdma.rx_cnt_cfg.at(ring).unwrap().offset(), LRO_RING);
        w(&rig.sim, fe.pdma.pcrx_ptr.at(ring).unwrap().offset(), LRO_RING - 1);
        // Timers in the SoC's unit, as the capabilities give them; ring valid.
        let r = rings_regs.at(ring).unwrap();
        let age = (caps.age_time_us / caps.timer_unit_us) as u16;
        let agg = (caps.max_agg_time_us / caps.timer_unit_us) as u16;
        w(&rig.sim, r.ring_ctrl_dw1.offset(), LroRingRingCtrlDw1(0).with_age_time_l(age & 0x3ff).0);
        w(
            &rig.sim,
            r.ring_ctrl_dw2.offset(),
            LroRingRingCtrlDw2(0)
                .with_age_time_h((age >> 10) as u8)
                .with_ring_vld(true)
                .with_auto_learn_mode(3)
                .with_max_agg_time(agg)
                .0,
        );
        bufs.push(b);
        rings.push(base);
    }
    // Destination-IP rule 0 (MAC 0, rule 0).
    let r0 = rings_regs.at(0).unwrap();
    w(&rig.sim, r0.ring_dip_dw0.offset(), u32::from_be_bytes(DIP));
    let dw2 = r(&rig.sim, r0.ring_ctrl_dw2.offset());
    w(&rig.sim, r0.ring_ctrl_dw2.offset(), LroRingRingCtrlDw2(dw2).with_myip_vld(true).0);
    w(
        &rig.sim,
        lro.ctrl_dw3.offset(),
        LroCtrlDw3(0).with_max_agg_cnt(caps.max_segments).with_min_rxd_sdl(caps.min_room as u16).with_adma_mode(true).0,
    );
    w(&rig.sim, lro.ctrl_dw0.offset(), LroCtrlDw0(0).with_lro_en(true).with_l3_cks_upd_en(true).0);
    Lro { rig, caps, bufs, rings }
}

fn stream(mss: usize) -> TcpStream {
    let mut s = TcpStream::bulk(false, None);
    let mut spec = *s.spec();
    spec.dst_ip = packet::ip4(DIP);
    s = TcpStream::new(spec, mss);
    s
}

/// The aggregates written to LRO ring `ring`: (length, frame).
fn aggregates(l: &Lro, ring: usize) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for i in 0..LRO_RING {
        let b = l.rig.sim.dma_read(l.rings[ring] + u64::from(i) * 16, 16).unwrap();
        let d = RxV1 { words: core::array::from_fn(|k| u32::from_le_bytes(b[k * 4..k * 4 + 4].try_into().unwrap())) };
        if d.done() {
            out.push(l.rig.sim.dma_read(l.bufs[ring][i as usize], d.plen0() as usize).unwrap());
        }
    }
    out
}

#[test]
fn only_socs_with_hw_lro_have_it() {
    for soc in fe_regs::SOCS {
        assert_eq!(soc.caps.hw_lro.is_some(), soc.fe.lro.is_some(), "{}", soc.name);
        assert_eq!(soc.caps.hw_lro.is_some(), soc.fe.lro_ring.is_some(), "{}", soc.name);
    }
}

#[test]
fn full_segments_are_limited_by_buffer_room() {
    for l in lro_rigs() {
        let name = l.rig.sim.soc().name;
        let mut s = stream(1448);
        let seed = s.spec().payload_seed;
        let seq0 = s.next_seq();
        for _ in 0..21 {
            l.rig.sim.send_to_mac(0, s.next_segment());
        }
        l.rig.sim.advance(10_000_000);
        let aggs = aggregates(&l, 1);
        assert!(!aggs.is_empty());
        let mut seq = seq0;
        for a in &aggs {
            let p = packet::parse(a).unwrap();
            let ip = p.ip.unwrap();
            assert_eq!(ip.total_len as usize, a.len() - 14, "IPv4 total length covers the merged payload");
            assert_eq!(packet::ipv4_checksum_ok(a), Some(true), "IPv4 header checksum updated");
            let room = (l.caps.buffer_size - l.caps.min_room) as usize;
            assert!(a.len() <= room + 1514, "{name}: room rule: {}", a.len());
            assert_eq!(p.tcp.unwrap().seq, seq);
            assert!(packet::payload_matches(&a[p.payload()], seed, seq), "payload contiguous and in order");
            seq = seq.wrapping_add(p.payload_len as u32);
        }
        assert_eq!(seq.wrapping_sub(seq0), 21 * 1448, "nothing lost");
        // Segments are added while the aggregate stays within the buffer less the room rule.
        let fit = ((l.caps.buffer_size - l.caps.min_room) as usize - 66) / 1448;
        let fit = fit.min(usize::from(l.caps.max_segments));
        assert_eq!(
            (aggs[0].len() - 66) / 1448,
            fit,
            "{name}: {fit} full segments fit with {} bytes of room left",
            l.caps.min_room
        );
    }
}

#[test]
fn at_most_64_segments() {
    for l in lro_rigs() {
        let name = l.rig.sim.soc().name;
        let mut s = stream(100);
        let max = usize::from(l.caps.max_segments);
        for _ in 0..2 * max + 2 {
            l.rig.sim.send_to_mac(0, s.next_segment());
        }
        l.rig.sim.advance(10_000_000);
        let counts: Vec<usize> =
            aggregates(&l, 1).iter().chain(aggregates(&l, 2).iter()).map(|a| (a.len() - 66) / 100).collect();
        assert!(counts.iter().all(|&c| c <= max), "{name}: {counts:?}");
        assert!(counts.contains(&max), "{name}: {counts:?}");
        assert_eq!(counts.iter().sum::<usize>(), 2 * max + 2, "{name}");
    }
}

#[test]
fn timers_flush_an_idle_aggregate() {
    for l in lro_rigs() {
        let name = l.rig.sim.soc().name;
        let mut s = stream(1448);
        for _ in 0..3 {
            l.rig.sim.send_to_mac(0, s.next_segment());
        }
        let agg_ns = u64::from(l.caps.max_agg_time_us) * 1000;
        l.rig.sim.advance(agg_ns / 2);
        assert!(aggregates(&l, 1).is_empty(), "{name}: still aggregating");
        l.rig.sim.advance(u64::from(l.caps.max_agg_time_us.max(l.caps.age_time_us)) * 2000);
        let aggs = aggregates(&l, 1);
        assert_eq!(aggs.len(), 1, "{name}: flushed by the aggregation timer ({} us)", l.caps.max_agg_time_us);
        assert_eq!(aggs[0].len(), 66 + 3 * 1448);
    }
}

#[test]
fn other_destinations_and_flags_are_not_aggregated() {
    for l in lro_rigs() {
        let name = l.rig.sim.soc().name;
        let mut spec = *TcpStream::bulk(false, None).spec();
        spec.dst_ip = packet::ip4([10, 0, 0, 99]); // no LRO rule for this destination
        let mut other = TcpStream::new(spec, 1448);
        for _ in 0..3 {
            l.rig.sim.send_to_mac(0, other.next_segment());
        }
        l.rig.sim.advance(1_000_000);
        assert!(aggregates(&l, 1).is_empty(), "{name}");
        assert_eq!(l.rig.sim.stats().rx_frames, 3, "{name}: delivered one by one on ring 0");
    }
}

#[test]
fn relinquish_flushes_and_reports_done() {
    for l in lro_rigs() {
        let name = l.rig.sim.soc().name;
        let soc = l.rig.sim.soc();
        let mut s = stream(1448);
        l.rig.sim.send_to_mac(0, s.next_segment());
        l.rig.sim.advance(20_000);
        let dw0 = soc.fe.lro.unwrap().ctrl_dw0.offset();
        let v = r(&l.rig.sim, dw0);
        // One request bit per LRO ring.
        let all = (1u8 << l.caps.rings) - 1;
        l.rig.sim.fe().write32(dw0 as usize, LroCtrlDw0(v).with_ring_relinquish_req(all).0);
        assert_eq!(aggregates(&l, 1).len(), 1, "{name}");
        assert_eq!(LroCtrlDw0(r(&l.rig.sim, dw0)).ring_relinquish_done(), all, "{name}");
    }
}
