//! The driver core against the simulator, for every bundled board (one per SoC): bring-up with no
//! illegal access, frames both ways on every enabled MAC, RX checksum verdicts, gigabit TX
//! goodput in simulated time, and a close that returns every buffer.

mod support_sim;

use fe_driver::dt::Duplex;
use fe_driver::{Eth, LinkState, RxChecksum, TxError};
use fe_regs::bus::Bus;
use fe_sim::Sim;
use fe_sim::packet::{self, TcpSpec, TcpStream, UdpSpec};
use support_sim::{SimPlatform, boards, probe};

/// A received frame, copied out of the sink.
#[derive(Debug)]
struct Got {
    mac: u8,
    data: Vec<u8>,
    checksum: RxChecksum,
}

const GIGABIT: LinkState = LinkState { speed: 1000, duplex: Duplex::Full, pause: true };

/// Runs `f` with an opened driver on the simulator for every bundled board.
fn each_board(f: impl Fn(&str, &Sim, &mut Eth<SimPlatform<'_>>)) {
    let mut socs = Vec::new();
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        let sim = Sim::for_board(&board);
        let mut eth = Eth::new(&board, SimPlatform(&sim)).expect(name);
        eth.open().expect(name);
        assert!(sim.violations().is_empty(), "{name}: bring-up violations: {:?}", sim.violations());
        socs.push(board.soc.name);
        f(name, &sim, &mut eth);
        assert!(sim.violations().is_empty(), "{name}: violations: {:?}", sim.violations());
    }
    let mut all: Vec<&str> = fe_regs::SOCS.iter().map(|s| s.name).collect();
    socs.sort_unstable();
    socs.dedup();
    all.sort_unstable();
    assert_eq!(socs, all, "every SoC has a bundled board");
}

/// Brings every enabled MAC's link up (fixed links are up from `open`; others at 1000 now).
fn links_up(eth: &mut Eth<SimPlatform<'_>>) -> Vec<u8> {
    let macs: Vec<(u8, bool)> = eth.enabled_macs().map(|m| (m.id, m.link.is_some())).collect();
    for &(id, up) in &macs {
        if !up {
            eth.link_up(id, GIGABIT).unwrap();
        }
    }
    macs.into_iter().map(|(id, _)| id).collect()
}

fn poll_all(eth: &mut Eth<SimPlatform<'_>>) -> Vec<Got> {
    let mut got = Vec::new();
    while eth.poll(64, &mut |f| got.push(Got { mac: f.mac, data: f.data.to_vec(), checksum: f.checksum })) == 64 {}
    got
}

#[test]
fn bring_up_programs_the_engine_from_caps_and_device_tree() {
    each_board(|name, sim, eth| {
        let soc = eth.soc();
        let fe = sim.fe();
        let rr = |off: u32| fe.read32(off as usize);
        for id in 0..soc.fe.gdma.len() {
            let m = eth.mac(id as u8).copied();
            let fwd = rr(soc.fe.gdma.at(id).unwrap().fwd_cfg.offset());
            let mcr = fe_regs::values::MacMcr(rr(soc.fe.mac.at(id).unwrap().mcr.offset()));
            match m.filter(|m| m.enabled) {
                Some(m) => {
                    assert_eq!(fwd & 0xffff, 0, "{name}: GDMA {id} forwards to the CPU");
                    assert_eq!(fwd & soc.caps.rx_checksum.mask, soc.caps.rx_checksum.mask, "{name}: checksum bits");
                    match m.fixed {
                        Some(l) => {
                            assert!(mcr.force_mode() && mcr.force_link() && mcr.tx_en() && mcr.rx_en(), "{name}");
                            assert_eq!(mcr.force_dpx(), l.duplex == Duplex::Full);
                            assert_eq!(mcr.force_tx_fc(), l.pause);
                            assert_eq!(mcr.speed_1000(), l.speed >= 1000);
                        }
                        None => assert_eq!(mcr.0, 1 << 15, "{name}: MAC {id} link-down default"),
                    }
                }
                None => {
                    assert_eq!(fwd & 0xffff, 0x7777, "{name}: GDMA {id} drops");
                    assert_eq!(mcr.0, 1 << 15, "{name}: MAC {id} link-down default");
                }
            }
        }
        // A queue holds its max rate from open only where the device tree shaped its port (a
        // switch port slower than its conduit); every other queue is at the base value.
        let sh = soc.caps.shaper;
        for q in 0..usize::from(soc.caps.tx_queues) {
            let shaped = eth.switch_ports().find_map(|p| match p.shaping {
                fe_driver::dt::Shaping::Shaped { speed } if usize::from(p.queue) == q && p.own_queue => Some(speed),
                _ => None,
            });
            match shaped {
                Some(speed) => {
                    assert_eq!(Some(rr(sh.reg.at(q).unwrap())), sh.value_for(speed), "{name}: queue {q} shaped")
                }
                None => assert_eq!(rr(sh.reg.at(q).unwrap()), sh.base, "{name}: queue {q} unshaped"),
            }
        }
        assert!(soc.fe.qdma.glo_cfg.on(fe).read().tx_dma_en());
        assert!(soc.fe.pdma.glo_cfg.on(fe).read().rx_dma_en());
        assert_eq!(rr(soc.fe.pdma.rx_cnt_cfg.at(0).unwrap().offset()), fe_driver::eth::RX_RING as u32);
        let held = eth.engine_buffers();
        assert_eq!(held.rx, support_sim::rx_buffers(soc));
        assert_eq!(held.tx, 0);
        assert_eq!(held.fq, fe_driver::eth::FQ_SIZE);
    });
}

#[test]
fn frames_both_ways_on_every_enabled_mac() {
    each_board(|name, sim, eth| {
        let macs = links_up(eth);
        assert!(!macs.is_empty(), "{name}: no enabled MAC");
        for &mac in &macs {
            let mut stream = TcpStream::bulk(mac == 1, None);
            let out: Vec<Vec<u8>> = (0..40).map(|_| stream.next_segment()).collect();
            for f in &out {
                eth.xmit(mac, eth.queue_for_mac(mac), f).unwrap();
            }
            sim.advance(2_000_000);
            assert_eq!(eth.reclaim(), out.len(), "{name}: MAC {mac} reclaim");
            let sent: Vec<Vec<u8>> = sim.take_sent(usize::from(mac)).into_iter().map(|(_, f)| f).collect();
            assert_eq!(sent, out, "{name}: MAC {mac} sent what was queued, in order");

            let mut back = TcpStream::bulk(mac == 0, None);
            let inn: Vec<Vec<u8>> = (0..40).map(|_| back.next_segment()).collect();
            for f in &inn {
                sim.send_to_mac(usize::from(mac), f.clone());
            }
            sim.advance(2_000_000);
            let got = poll_all(eth);
            assert_eq!(got.len(), inn.len(), "{name}: MAC {mac} received");
            for (g, f) in got.iter().zip(&inn) {
                assert_eq!(g.mac, mac);
                assert_eq!(&g.data, f);
                assert_eq!(g.checksum, RxChecksum::Verified, "{name}: good TCP is verified");
            }
        }
        let s = eth.stats();
        for &mac in &macs {
            let c = s.mac[usize::from(mac)];
            assert_eq!((c.tx_frames, c.rx_frames), (40, 40), "{name}: MAC {mac} counters");
            assert_eq!(c.tx_bytes, 40 * 1514);
        }
        assert_eq!(s.drops.tx_total() + s.drops.rx_total(), 0, "{name}: {:?}", s.drops);
        assert_eq!(sim.stats().tx_dropped + sim.stats().rx_dropped + sim.stats().rx_ring_full, 0, "{name}");
    });
}

#[test]
fn rx_checksum_verdicts_follow_the_frame() {
    each_board(|name, sim, eth| {
        let mac = links_up(eth)[0];
        let tcp4 = packet::build_tcp(&TcpSpec { payload_len: 500, ..TcpSpec::default() });
        let tcp6 = packet::build_tcp(&TcpSpec { ipv6: true, payload_len: 500, ..TcpSpec::default() });
        let udp4 = packet::build_udp(&UdpSpec { payload_len: 300, ..UdpSpec::default() });
        let mut bad_l4 = tcp4.clone();
        assert!(packet::set_bad_l4_checksum(&mut bad_l4));
        let mut bad_ip = tcp4.clone();
        assert!(packet::set_bad_ipv4_checksum(&mut bad_ip));
        let mut bad_udp = udp4.clone();
        assert!(packet::set_bad_l4_checksum(&mut bad_udp));
        let cases = [
            (tcp4, RxChecksum::Verified),
            (tcp6, RxChecksum::Verified),
            (udp4, RxChecksum::Verified),
            (bad_l4, RxChecksum::Unverified),
            (bad_ip, RxChecksum::Unverified),
            (bad_udp, RxChecksum::Unverified),
        ];
        for (f, _) in &cases {
            sim.send_to_mac(usize::from(mac), f.clone());
        }
        sim.advance(1_000_000);
        let got = poll_all(eth);
        assert_eq!(got.len(), cases.len(), "{name}");
        for (i, (g, (f, want))) in got.iter().zip(&cases).enumerate() {
            assert_eq!(&g.data, f, "{name}: frame {i} intact (bad checksums are delivered, not dropped)");
            assert_eq!(g.checksum, *want, "{name}: frame {i}");
        }
        let s = eth.stats();
        assert_eq!((s.rx_csum_verified, s.rx_csum_unverified), (3, 3), "{name}");
    });
}

#[test]
fn direct_gigabit_tx_reaches_line_rate() {
    const LIMIT_MBPS: f64 = 941.5;
    const RUN_NS: u64 = 20_000_000;
    const STEP_NS: u64 = 20_000;
    each_board(|name, sim, eth| {
        for mac in links_up(eth) {
            sim.set_link_speed(usize::from(mac), 1000);
            let queue = eth.queue_for_mac(mac);
            let mut stream = TcpStream::bulk(false, None);
            let start = sim.now();
            let mut sent = Vec::new();
            while sim.now() - start < RUN_NS {
                eth.reclaim();
                while eth.tx_room() > 0 {
                    eth.xmit(mac, queue, &stream.next_segment()).unwrap();
                }
                sim.advance(STEP_NS);
                sent.extend(sim.take_sent(usize::from(mac)));
            }
            let last = sent.last().map_or(start, |(t, _)| *t);
            let payload: usize =
                sent.iter().map(|(_, f)| packet::parse(f).map(|p| p.payload().len()).expect("TCP frame")).sum();
            let mbps = payload as f64 * 8.0 * 1000.0 / (last - start) as f64;
            println!("{name}: MAC {mac}: {} frames, {mbps:.1} Mbit/s TCP goodput over {} ns", sent.len(), last - start);
            assert!(mbps >= 0.99 * LIMIT_MBPS, "{name}: MAC {mac}: {mbps:.1} Mbit/s < 99 % of {LIMIT_MBPS}");
            assert_eq!(eth.stats().drops.tx_total(), 0, "{name}");
            // Drain (a full ring is ~6.3 ms of frames) before the next MAC's measurement.
            sim.advance(10_000_000);
            sim.take_sent(usize::from(mac));
            eth.reclaim();
            assert_eq!(eth.tx_room(), fe_driver::eth::TX_RING - 1, "{name}: every TX buffer back");
        }
    });
}

#[test]
fn every_frame_is_sent_or_counted_as_dropped() {
    each_board(|name, sim, eth| {
        let mac = links_up(eth)[0];
        let f = packet::build_tcp(&TcpSpec { payload_len: 100, ..TcpSpec::default() });
        assert_eq!(eth.xmit(7, 0, &f), Err(TxError::BadMac));
        assert_eq!(eth.xmit(mac, eth.soc().caps.tx_queues, &f), Err(TxError::BadQueue));
        assert_eq!(eth.xmit(mac, 0, &[]), Err(TxError::BadLength));
        assert_eq!(eth.xmit(mac, 0, &[0u8; 4000]), Err(TxError::BadLength));
        assert!(eth.can_xmit(mac) && !eth.can_xmit(7), "{name}: queue awake on an up link only");
        eth.link_down(mac).unwrap();
        assert!(!eth.can_xmit(mac), "{name}: link down stops the queue");
        assert_eq!(eth.xmit(mac, 0, &f), Err(TxError::LinkDown));
        eth.link_up(mac, GIGABIT).unwrap();
        assert!(eth.can_xmit(mac), "{name}: link up wakes the queue");
        // Fill the ring faster than the engine drains it: the rest is refused as ring-full.
        let mut full = 0;
        for _ in 0..2 * fe_driver::eth::TX_RING {
            if eth.xmit(mac, 0, &f) == Err(TxError::RingFull) {
                full += 1;
            }
        }
        assert!(full > 0, "{name}: the ring filled up");
        assert!(!eth.can_xmit(mac), "{name}: a full ring stops the queue");
        sim.advance(20_000_000);
        eth.reclaim();
        assert!(eth.can_xmit(mac), "{name}: reclaim wakes the queue");
        let s = eth.stats();
        assert_eq!(s.drops.tx_ring_full, full);
        assert_eq!(s.drops.tx_total(), full + 5);
        assert_eq!(s.tx_submitted, s.tx_frames() + s.drops.tx_total(), "{name}: nothing lost");
        assert_eq!(sim.take_sent(usize::from(mac)).len() as u64, s.tx_frames(), "{name}");
    });
}

#[test]
fn close_returns_every_buffer_and_open_works_again() {
    each_board(|name, sim, eth| {
        let mac = links_up(eth)[0];
        let mut stream = TcpStream::bulk(false, None);
        // More TX than the engine takes at once (it buffers as many frames as the free queue
        // has pages), and RX left unpolled.
        let n = fe_driver::eth::TX_RING - 1;
        for _ in 0..n {
            eth.xmit(mac, 0, &stream.next_segment()).unwrap();
        }
        for _ in 0..10 {
            sim.send_to_mac(usize::from(mac), stream.next_segment());
        }
        sim.advance(200_000);
        let report = eth.close().unwrap();
        println!("{name}: {report:?}");
        assert_eq!(report.leaked.total(), 0, "{name}: leaked");
        assert_eq!(eth.engine_buffers().total(), 0, "{name}");
        assert_eq!(report.returned.rx, support_sim::rx_buffers(eth.soc()));
        assert_eq!(report.returned.tx, n);
        assert_eq!(report.returned.fq, fe_driver::eth::FQ_SIZE);
        assert_eq!(report.tx_completed + report.tx_dropped, n as u64, "{name}");
        assert!(report.tx_dropped > 0, "{name}: some frames were still queued");
        assert_eq!(report.rx_dropped, 10, "{name}");
        let s = eth.stats();
        assert_eq!(s.tx_submitted, s.tx_frames() + s.drops.tx_total(), "{name}");
        assert_eq!(eth.xmit(mac, 0, &stream.next_segment()), Err(TxError::NotOpen));
        assert!(sim.violations().is_empty(), "{name}: {:?}", sim.violations());

        // Open again: a cold reset, fresh rings, traffic flows.
        sim.advance(10_000_000);
        sim.take_sent(usize::from(mac));
        eth.open().unwrap();
        links_up(eth);
        let f = stream.next_segment();
        eth.xmit(mac, 0, &f).unwrap();
        sim.send_to_mac(usize::from(mac), f.clone());
        sim.advance(1_000_000);
        assert_eq!(eth.reclaim(), 1);
        assert_eq!(sim.take_sent(usize::from(mac)).into_iter().map(|(_, x)| x).collect::<Vec<_>>(), vec![f.clone()]);
        let got = poll_all(eth);
        assert_eq!(got.len(), 1, "{name}");
        assert_eq!(got[0].data, f);
        let report = eth.close().unwrap();
        assert_eq!(report.leaked.total(), 0);
    });
}

#[test]
fn a_burst_rings_the_doorbell_once_and_stops_at_the_first_frame_it_cannot_take() {
    each_board(|name, sim, eth| {
        let mac = links_up(eth)[0];
        let ctx = eth.soc().fe.qdma.ctx_ptr.offset();
        let mut stream = TcpStream::bulk(false, None);
        let frames: Vec<Vec<u8>> = (0..40).map(|_| stream.next_segment()).collect();
        let refs: Vec<&[u8]> = frames.iter().map(Vec::as_slice).collect();
        let before = sim.fe().read32(ctx as usize);
        let b = eth.xmit_burst(mac, 0, &refs);
        assert_eq!((b.queued, b.stopped), (40, None), "{name}");
        assert_ne!(sim.fe().read32(ctx as usize), before, "{name}: one doorbell after the burst");
        sim.advance(5_000_000);
        eth.reclaim();
        let sent: Vec<Vec<u8>> = sim.take_sent(usize::from(mac)).into_iter().map(|(_, f)| f).collect();
        assert_eq!(sent, frames, "{name}: every frame, in order");
        // A bad frame in the middle: the ones before it go, it and the rest are not taken.
        let bad = [0u8; 4000];
        let mixed: Vec<&[u8]> = vec![refs[0], refs[1], &bad, refs[2]];
        let submitted = eth.stats().tx_submitted;
        let b = eth.xmit_burst(mac, 0, &mixed);
        assert_eq!((b.queued, b.stopped), (2, Some(TxError::BadLength)), "{name}");
        assert_eq!(eth.stats().tx_submitted, submitted + 2, "{name}: only what was taken counts");
        assert_eq!(eth.stats().drops.tx_bad_length, 0, "{name}: frames not taken are not drops");
        // A full ring stops the burst; nothing is lost or counted twice.
        let many: Vec<&[u8]> = (0..2 * fe_driver::eth::TX_RING).map(|k| refs[k % 40]).collect();
        let b = eth.xmit_burst(mac, 0, &many);
        assert!(b.queued > 0 && b.queued < many.len(), "{name}: {b:?}");
        assert_eq!(b.stopped, Some(TxError::RingFull), "{name}");
        sim.advance(50_000_000);
        while eth.reclaim() > 0 {}
        let s = eth.stats();
        assert_eq!(s.tx_submitted, s.tx_frames() + s.drops.tx_total(), "{name}: nothing lost");
        // Nothing to send, or a MAC that cannot send: nothing taken.
        assert_eq!(eth.xmit_burst(mac, 0, &[]).queued, 0);
        eth.link_down(mac).unwrap();
        assert_eq!(eth.xmit_burst(mac, 0, &refs[..3]).stopped, Some(TxError::LinkDown), "{name}");
    });
}
