//! Hardware LRO in the model: only on SoCs whose YAML has `hw_lro` (MT7623), within the limits
//! the driver programs (64 segments, buffer room, aggregation and age timers), flushed on a
//! relinquish request; merged frames carry contiguous payload and correct IPv4 lengths.

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
    bufs: Vec<Vec<u64>>,
    rings: Vec<u64>,
}

fn lro_rig() -> Lro {
    let soc = fe_regs::by_compatible("mediatek,mt7623-eth").unwrap();
    let caps = soc.caps.hw_lro.expect("MT7623 has hardware LRO");
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
        // Timers in 20 us units: age 50 = 1 ms, aggregation 10 = 200 us; ring valid.
        let r = rings_regs.at(ring).unwrap();
        w(&rig.sim, r.ring_ctrl_dw1.offset(), LroRingRingCtrlDw1(0).with_age_time_l(50).0);
        w(
            &rig.sim,
            r.ring_ctrl_dw2.offset(),
            LroRingRingCtrlDw2(0).with_ring_vld(true).with_auto_learn_mode(3).with_max_agg_time(10).0,
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
    Lro { rig, bufs, rings }
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
        assert_eq!(soc.caps.hw_lro.is_some(), soc.name == "mt7623");
    }
}

#[test]
fn full_segments_are_limited_by_buffer_room() {
    let l = lro_rig();
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
        assert!(a.len() <= 12288 - 1522 + 1514, "room rule: {}", a.len());
        assert_eq!(p.tcp.unwrap().seq, seq);
        assert!(packet::payload_matches(&a[p.payload()], seed, seq), "payload contiguous and in order");
        seq = seq.wrapping_add(p.payload_len as u32);
    }
    assert_eq!(seq.wrapping_sub(seq0), 21 * 1448, "nothing lost");
    assert_eq!((aggs[0].len() - 66) / 1448, 7, "7 full segments fit with 1522 bytes of room left");
}

#[test]
fn at_most_64_segments() {
    let l = lro_rig();
    let mut s = stream(100);
    for _ in 0..130 {
        l.rig.sim.send_to_mac(0, s.next_segment());
    }
    l.rig.sim.advance(10_000_000);
    let counts: Vec<usize> =
        aggregates(&l, 1).iter().chain(aggregates(&l, 2).iter()).map(|a| (a.len() - 66) / 100).collect();
    assert!(counts.iter().all(|&c| c <= 64), "{counts:?}");
    assert!(counts.contains(&64), "{counts:?}");
    assert_eq!(counts.iter().sum::<usize>(), 130);
}

#[test]
fn timers_flush_an_idle_aggregate() {
    let l = lro_rig();
    let mut s = stream(1448);
    for _ in 0..3 {
        l.rig.sim.send_to_mac(0, s.next_segment());
    }
    l.rig.sim.advance(100_000);
    assert!(aggregates(&l, 1).is_empty(), "still aggregating");
    l.rig.sim.advance(1_000_000);
    let aggs = aggregates(&l, 1);
    assert_eq!(aggs.len(), 1, "flushed by the aggregation timer (200 us)");
    assert_eq!(aggs[0].len(), 66 + 3 * 1448);
}

#[test]
fn other_destinations_and_flags_are_not_aggregated() {
    let l = lro_rig();
    let mut spec = *TcpStream::bulk(false, None).spec();
    spec.dst_ip = packet::ip4([10, 0, 0, 99]); // no LRO rule for this destination
    let mut other = TcpStream::new(spec, 1448);
    for _ in 0..3 {
        l.rig.sim.send_to_mac(0, other.next_segment());
    }
    l.rig.sim.advance(1_000_000);
    assert!(aggregates(&l, 1).is_empty());
    assert_eq!(l.rig.sim.stats().rx_frames, 3, "delivered one by one on ring 0");
}

#[test]
fn relinquish_flushes_and_reports_done() {
    let l = lro_rig();
    let soc = l.rig.sim.soc();
    let mut s = stream(1448);
    l.rig.sim.send_to_mac(0, s.next_segment());
    l.rig.sim.advance(20_000);
    let dw0 = soc.fe.lro.unwrap().ctrl_dw0.offset();
    let v = r(&l.rig.sim, dw0);
    l.rig.sim.fe().write32(dw0 as usize, LroCtrlDw0(v).with_ring_relinquish_req(0b111).0);
    assert_eq!(aggregates(&l, 1).len(), 1);
    assert_eq!(LroCtrlDw0(r(&l.rig.sim, dw0)).ring_relinquish_done(), 0b111);
}
