//! Features, statistics and recovery against the simulator, for every bundled board: RX checksum
//! toggled while traffic flows, TX checksum offload, TSO (of linear frames and of frames in
//! pieces), `ethtool -S` counters, and recovery from
//! every simulator fault (TX hang, RX stall and ring exhaustion, link flap, lost interrupts) with
//! no leaked buffer and no illegal access.

mod support_sim;

use fe_driver::dt::Duplex;
use fe_driver::eth::{FQ_SIZE, RX_RING, TX_RING};
use fe_driver::{Eth, EthError, Features, LinkState, RxChecksum, TxError, TxMeta, TxParts};
use fe_regs::bus::Bus;
use fe_sim::packet::{self, TcpSpec, TcpStream, UdpSpec};
use fe_sim::{Fault, Sim};
use support_sim::{SimPlatform, boards, probe};

type Driver<'a> = Eth<SimPlatform<'a>>;

const GIGABIT: LinkState = LinkState { speed: 1000, duplex: Duplex::Full, pause: true };

/// Runs `f` with an opened driver for every bundled board; afterwards checks that the model saw
/// no illegal access and that `close` returns every buffer.
fn each_board(f: impl Fn(&str, &Sim, &mut Driver<'_>, u8)) {
    let mut socs = Vec::new();
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        let sim = Sim::for_board(&board);
        let mut eth = Eth::new(&board, SimPlatform(&sim)).expect(name);
        eth.open().expect(name);
        let macs: Vec<(u8, bool)> = eth.enabled_macs().map(|m| (m.id, m.link.is_some())).collect();
        for &(id, up) in &macs {
            if !up {
                eth.link_up(id, GIGABIT).unwrap();
            }
        }
        socs.push(board.soc.name);
        f(name, &sim, &mut eth, macs[0].0);
        assert!(sim.violations().is_empty(), "{name}: violations: {:?}", sim.violations());
        let s = eth.stats();
        let report = eth.close().expect(name);
        assert_eq!(report.leaked.total(), 0, "{name}: leaked {report:?}");
        let s2 = eth.stats();
        assert_eq!(s2.tx_submitted, s2.tx_frames() + s2.drops.tx_total(), "{name}: TX accounting {s:?}");
    }
    socs.sort_unstable();
    socs.dedup();
    let mut all: Vec<&str> = fe_regs::SOCS.iter().map(|s| s.name).collect();
    all.sort_unstable();
    assert_eq!(socs, all, "every SoC has a bundled board");
}

fn poll_all(eth: &mut Driver<'_>) -> Vec<(Vec<u8>, RxChecksum)> {
    let mut got = Vec::new();
    while eth.poll(64, &mut |f| got.push((f.data.to_vec(), f.checksum))) == 64 {}
    got
}

fn sent(sim: &Sim, mac: u8) -> Vec<Vec<u8>> {
    sim.take_sent(usize::from(mac)).into_iter().map(|(_, f)| f).collect()
}

fn ethtool(eth: &mut Driver<'_>, mac: u8) -> Vec<(&'static str, u64)> {
    let mut v = Vec::new();
    eth.ethtool_stats(mac, &mut |n, x| v.push((n, x)));
    v
}

fn stat(v: &[(&'static str, u64)], name: &str) -> u64 {
    v.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no counter {name}")).1
}

/// The RX checksum bits of MAC `mac` read back through the bus.
fn rx_csum_bits(sim: &Sim, eth: &Driver<'_>, mac: usize) -> u32 {
    let ctl = eth.soc().caps.rx_checksum;
    let off = ctl.reg.at(mac).expect("rx checksum register");
    let v = sim.space(ctl.reg.space).expect("the SoC has the space").read32(off as usize);
    v & ctl.mask
}

/// Good TCP, bad-L4 TCP, good UDP, bad-IPv4 TCP.
fn mixed() -> Vec<(Vec<u8>, bool)> {
    let tcp = packet::build_tcp(&TcpSpec { payload_len: 400, ..TcpSpec::default() });
    let udp = packet::build_udp(&UdpSpec { payload_len: 200, ..UdpSpec::default() });
    let mut bad_l4 = tcp.clone();
    assert!(packet::set_bad_l4_checksum(&mut bad_l4));
    let mut bad_ip = tcp.clone();
    assert!(packet::set_bad_ipv4_checksum(&mut bad_ip));
    vec![(tcp, true), (bad_l4, false), (udp, true), (bad_ip, false)]
}

#[test]
fn rx_checksum_toggles_in_hardware_while_traffic_flows() {
    each_board(|name, sim, eth, mac| {
        let enabled: Vec<usize> = eth.enabled_macs().map(|m| usize::from(m.id)).collect();
        let mask = eth.soc().caps.rx_checksum.mask;
        let mut tx = TcpStream::bulk(false, None);
        let mut queued = 0;
        for on in [true, false, true, false, true] {
            // Frames received before the toggle are still in the ring when it happens.
            let before = mixed();
            for (f, _) in &before {
                sim.send_to_mac(usize::from(mac), f.clone());
            }
            for _ in 0..8 {
                eth.xmit(mac, eth.queue_for_mac(mac), &tx.next_segment()).unwrap();
                queued += 1;
            }
            sim.advance(300_000);
            let prev = eth.features().rx_checksum;
            eth.set_features(Features { rx_checksum: on, ..eth.features() }).unwrap();
            assert_eq!(eth.features().rx_checksum, on);
            for &m in &enabled {
                assert_eq!(rx_csum_bits(sim, eth, m), if on { mask } else { 0 }, "{name}: MAC {m} bits, on={on}");
            }
            let after = mixed();
            for (f, _) in &after {
                sim.send_to_mac(usize::from(mac), f.clone());
            }
            sim.advance(1_000_000);
            let got = poll_all(eth);
            assert_eq!(got.len(), before.len() + after.len(), "{name}");
            for (i, ((data, verdict), (f, good))) in got.iter().zip(before.iter().chain(&after)).enumerate() {
                assert_eq!(data, f, "{name}: frame {i} intact");
                // A frame checked by the GDMA before an off-toggle is no longer trusted; a frame
                // that arrived while checking was off has no verdict after an on-toggle.
                let checked = if i < before.len() { prev && on } else { on };
                let want = if checked && *good { RxChecksum::Verified } else { RxChecksum::Unverified };
                assert_eq!(*verdict, want, "{name}: frame {i}, on={on}");
            }
        }
        sim.advance(2_000_000);
        eth.reclaim();
        assert_eq!(sent(sim, mac).len(), queued, "{name}: TX unaffected by the toggles");
        let s = eth.stats();
        // 5 phases x 8 frames; verified: 2 per checked batch (on after on: 2 before + 2 after).
        assert_eq!(s.rx_csum_verified + s.rx_csum_unverified, 40, "{name}");
        assert_eq!(s.rx_csum_verified, 2 + 2 + 2 + 2, "{name}");
        // The GDMA counts bad checksums only for batches received while it checks: the 3
        // batches after an on-toggle and the 3 received before a toggle from on, 2 bad each.
        let st = ethtool(eth, mac);
        assert_eq!(stat(&st, "rx_checksum_errors"), 2 * 6, "{name}");
    });
}

#[test]
fn tx_checksum_offload_fills_zeroed_checksums() {
    each_board(|name, sim, eth, mac| {
        let tcp4 = packet::build_tcp(&TcpSpec { payload_len: 700, ..TcpSpec::default() });
        let tcp6 = packet::build_tcp(&TcpSpec { ipv6: true, payload_len: 700, ..TcpSpec::default() });
        let udp4 = packet::build_udp(&UdpSpec { payload_len: 300, ..UdpSpec::default() });
        let zero = |mut f: Vec<u8>, fields: &[usize]| {
            for &o in fields {
                f[o..o + 2].copy_from_slice(&[0, 0]);
            }
            f
        };
        let frames = [zero(tcp4.clone(), &[24, 50]), zero(tcp6.clone(), &[70]), zero(udp4.clone(), &[24, 40])];
        for f in &frames {
            // (IPv4 UDP checksum 0 means "absent"; its IPv4 header checksum is zeroed too.)
            assert!(packet::l4_checksum_ok(f) != Some(true) || packet::ipv4_checksum_ok(f) == Some(false));
        }
        let q = eth.queue_for_mac(mac);
        assert!(eth.features().tx_checksum, "{name}: on by default");
        for f in &frames {
            eth.xmit(mac, q, f).unwrap();
        }
        eth.xmit_with(mac, q, &frames[0], TxMeta::CSUM).unwrap();
        sim.advance(1_000_000);
        let out = sent(sim, mac);
        assert_eq!(out.len(), 4, "{name}");
        for (i, (f, want)) in out.iter().zip([&tcp4, &tcp6, &udp4, &tcp4]).enumerate() {
            assert_eq!(packet::l4_checksum_ok(f), Some(true), "{name}: frame {i} L4");
            assert_ne!(packet::ipv4_checksum_ok(f), Some(false), "{name}: frame {i} IPv4");
            assert_eq!(f, want, "{name}: frame {i} as built with checksums");
        }

        // Off: a frame asking for the offload is refused and counted; plain xmit sends as given.
        assert_eq!(eth.set_features(Features { tx_checksum: false, ..eth.features() }), Err(EthError::BadFeatures));
        eth.set_features(Features { tx_checksum: false, tso: false, ..eth.features() }).unwrap();
        let meta = TxMeta::CSUM;
        assert_eq!(eth.xmit_with(mac, q, &frames[0], meta), Err(TxError::OffloadOff));
        assert_eq!(eth.stats().drops.tx_offload_off, 1, "{name}");
        eth.xmit(mac, q, &frames[0]).unwrap();
        sim.advance(1_000_000);
        let out = sent(sim, mac);
        assert_eq!(out, vec![frames[0].clone()], "{name}: no offload asked, none done");
        eth.reclaim();
        let st = ethtool(eth, mac);
        assert_eq!(stat(&st, "tx_drop_offload_off"), 1);
        assert_eq!(stat(&st, "tx_packets"), 5, "{name}");
    });
}

#[test]
fn tso_frame_leaves_as_mss_sized_valid_segments() {
    const MSS: u16 = 1448;
    each_board(|name, sim, eth, mac| {
        let q = eth.queue_for_mac(mac);
        for ipv6 in [false, true] {
            let spec = TcpSpec { ipv6, payload_len: 20 * 1024, seq: 1000, payload_seed: 7, ..TcpSpec::default() };
            let big = packet::build_tcp(&spec);
            assert!(big.len() > 2048);
            let before = eth.stats().tx_frames();
            eth.xmit_tso(mac, q, &big, MSS).unwrap();
            sim.advance(2_000_000);
            let out = sent(sim, mac);
            assert_eq!(out.len(), (20 * 1024usize).div_ceil(usize::from(MSS)), "{name}: ipv6={ipv6}");
            let mut payload = Vec::new();
            for (i, f) in out.iter().enumerate() {
                assert_eq!(packet::l4_checksum_ok(f), Some(true), "{name}: segment {i}");
                assert_ne!(packet::ipv4_checksum_ok(f), Some(false), "{name}: segment {i}");
                let p = packet::parse(f).expect("TCP");
                assert!(p.payload_len <= usize::from(MSS));
                assert_eq!(p.tcp.expect("tcp").seq, 1000 + payload.len() as u32, "{name}: segment {i} seq");
                payload.extend_from_slice(&f[p.payload()]);
            }
            let p = packet::parse(&big).unwrap();
            assert_eq!(payload, big[p.payload()].to_vec(), "{name}: payload intact");
            eth.reclaim();
            assert_eq!(eth.tx_room(), TX_RING - 1, "{name}: every descriptor back");
            assert_eq!(eth.stats().tx_frames(), before + 1, "{name}: one TSO frame");
        }
        // Many multi-descriptor frames: the ring wraps inside frames; each is counted once.
        let before = eth.stats().tx_frames();
        let mut segments = 0;
        for k in 0..60u32 {
            let spec = TcpSpec { payload_len: 8000 + k as usize, seq: k * 10_000, ..TcpSpec::default() };
            while eth.xmit_tso(mac, q, &packet::build_tcp(&spec), MSS) == Err(TxError::RingFull) {
                sim.advance(100_000);
            }
            segments += (8000 + k as usize).div_ceil(usize::from(MSS));
        }
        sim.advance(10_000_000);
        eth.reclaim();
        let out = sent(sim, mac);
        assert_eq!(out.len(), segments, "{name}");
        assert!(out.iter().all(|f| packet::l4_checksum_ok(f) == Some(true)), "{name}");
        assert_eq!(eth.stats().tx_frames(), before + 60, "{name}");
        assert_eq!(eth.tx_room(), TX_RING - 1, "{name}");
        // Not TCP, a zero MSS, TSO off: refused and counted, nothing sent.
        let udp = packet::build_udp(&UdpSpec { payload_len: 3000, ..UdpSpec::default() });
        assert_eq!(eth.xmit_tso(mac, q, &udp, MSS), Err(TxError::BadTso));
        let big = packet::build_tcp(&TcpSpec { payload_len: 5000, ..TcpSpec::default() });
        assert_eq!(eth.xmit_tso(mac, q, &big, 0), Err(TxError::BadTso));
        assert_eq!(eth.xmit(mac, q, &big), Err(TxError::BadLength));
        eth.set_features(Features { tso: false, ..eth.features() }).unwrap();
        assert_eq!(eth.xmit_tso(mac, q, &big, MSS), Err(TxError::OffloadOff));
        sim.advance(1_000_000);
        assert!(sent(sim, mac).is_empty(), "{name}");
        let d = eth.stats().drops;
        assert_eq!((d.tx_bad_tso, d.tx_bad_length, d.tx_offload_off), (2, 1, 1), "{name}");
    });
}

/// A frame's pieces as a socket buffer holds them: the headers and a little payload in the head,
/// then page fragments of `frag` bytes (the last one shorter), one empty piece among them.
fn skb_like(frame: &[u8], head: usize, frag: usize) -> Vec<&[u8]> {
    let mut parts = vec![&frame[..head], &frame[head..head]];
    parts.extend(frame[head..].chunks(frag));
    parts
}

#[test]
fn tso_frame_in_pieces_leaves_as_the_linear_frame_does() {
    const MSS: u16 = 1448;
    each_board(|name, sim, eth, mac| {
        let q = eth.queue_for_mac(mac);
        for ipv6 in [false, true] {
            let spec = TcpSpec { ipv6, payload_len: 30_000, seq: 77, payload_seed: 3, ..TcpSpec::default() };
            let big = packet::build_tcp(&spec);
            let headers = packet::parse(&big).expect("TCP").payload().start;
            eth.xmit_tso(mac, q, &big, MSS).unwrap();
            sim.advance(2_000_000);
            let linear = sent(sim, mac);
            assert!(linear.len() > 1, "{name}");
            // Pieces that do not line up with the driver's 2 KiB buffers or the MSS.
            for (head, frag) in [(headers, 4096), (headers + 100, 1000), (headers + 7, 333)] {
                let parts = skb_like(&big, head, frag);
                eth.xmit_gather(mac, q, TxParts::new(&parts), TxMeta::tso(MSS)).unwrap();
                sim.advance(2_000_000);
                assert_eq!(sent(sim, mac), linear, "{name}: ipv6={ipv6} head {head}, fragments of {frag}");
            }
            // A checksum-offload frame in pieces, too.
            let small = packet::build_tcp(&TcpSpec { ipv6, payload_len: 1200, ..TcpSpec::default() });
            let mut zeroed = small.clone();
            let field = packet::parse(&small).and_then(|p| p.ip).expect("IP").l4_offset + 16;
            zeroed[field..field + 2].copy_from_slice(&[0, 0]);
            let parts = skb_like(&zeroed, 60, 500);
            eth.xmit_gather(mac, q, TxParts::new(&parts), TxMeta::CSUM).unwrap();
            sim.advance(1_000_000);
            assert_eq!(sent(sim, mac), vec![small], "{name}: ipv6={ipv6} checksum filled, bytes as built");
            eth.reclaim();
        }
        // Headers cut across pieces: refused and counted, nothing sent.
        let big = packet::build_tcp(&TcpSpec { payload_len: 5000, ..TcpSpec::default() });
        let drops = eth.stats().drops.tx_bad_tso;
        let parts = skb_like(&big, 20, 1000);
        assert_eq!(eth.xmit_gather(mac, q, TxParts::new(&parts), TxMeta::tso(MSS)), Err(TxError::BadTso));
        assert_eq!(eth.xmit_gather(mac, q, TxParts::new(&[]), TxMeta::CSUM), Err(TxError::BadLength));
        sim.advance(1_000_000);
        assert!(sent(sim, mac).is_empty(), "{name}");
        assert_eq!(eth.stats().drops.tx_bad_tso, drops + 1, "{name}");
        assert_eq!(eth.tx_room(), TX_RING - 1, "{name}");
    });
}

#[test]
fn ethtool_stats_accumulate_read_to_clear_mib() {
    each_board(|name, sim, eth, mac| {
        let q = eth.queue_for_mac(mac);
        let mut stream = TcpStream::bulk(false, None);
        let mut expect = [0u64; 4]; // tx packets, tx bytes, rx packets, rx bytes
        for round in 0..2 {
            for _ in 0..10 + round {
                let f = stream.next_segment();
                eth.xmit(mac, q, &f).unwrap();
                expect[0] += 1;
                expect[1] += f.len() as u64;
            }
            for i in 0..5 + round {
                let f = packet::build_udp(&UdpSpec { payload_len: 100 + i, ..UdpSpec::default() });
                expect[2] += 1;
                expect[3] += f.len() as u64;
                sim.send_to_mac(usize::from(mac), f);
            }
            // One frame with a bad FCS and one runt, counted by the MAC.
            let mut bad = packet::append_fcs(packet::build_udp(&UdpSpec::default()));
            assert!(packet::set_bad_fcs(&mut bad));
            sim.send_raw_to_mac(usize::from(mac), bad);
            sim.send_raw_to_mac(usize::from(mac), packet::append_fcs(vec![0x02; 40]));
            sim.advance(1_000_000);
            assert_eq!(poll_all(eth).len() as u64, 5 + round as u64);
            eth.reclaim();
            let st = ethtool(eth, mac);
            let n = round as u64 + 1;
            assert_eq!(stat(&st, "tx_packets"), expect[0], "{name}: round {round}");
            assert_eq!(stat(&st, "tx_bytes"), expect[1], "{name}");
            assert_eq!(stat(&st, "rx_packets"), expect[2], "{name}");
            assert_eq!(stat(&st, "rx_bytes"), expect[3], "{name}");
            assert_eq!(stat(&st, "rx_fcs_errors"), n, "{name}");
            assert_eq!(stat(&st, "rx_short_errors"), n, "{name}");
            assert_eq!(stat(&st, "rx_overflow"), 0, "{name}");
            assert_eq!(stat(&st, "sw_tx_packets"), expect[0], "{name}");
            assert_eq!(stat(&st, "sw_rx_packets"), expect[2], "{name}");
            assert_eq!(stat(&st, "rx_csum_verified"), expect[2], "{name}");
            // The hardware counters were cleared by the read.
            let m = eth.soc().fe.mib.at(usize::from(mac)).unwrap();
            assert_eq!(sim.fe().read32(m.tx_packets.offset() as usize), 0, "{name}: read-to-clear");
        }
        let st = ethtool(eth, mac);
        let names: Vec<&str> = st.iter().map(|(n, _)| *n).collect();
        for n in fe_driver::ethtool::MIB_NAMES {
            assert!(names.contains(&n), "{name}: {n}");
        }
        assert!(names.contains(&"tx_drop_ring_full") && names.contains(&"tx_timeout_resets"));
        assert_eq!(sim.stats().tx_frames, expect[0], "{name}: the model agrees");
    });
}

#[test]
fn tx_hang_is_detected_and_reset_by_the_watchdog() {
    each_board(|name, sim, eth, mac| {
        let q = eth.queue_for_mac(mac);
        let mut stream = TcpStream::bulk(false, None);
        for _ in 0..20 {
            eth.xmit(mac, q, &stream.next_segment()).unwrap();
        }
        sim.advance(1_000_000);
        assert_eq!(eth.watchdog(), Ok(None), "{name}");
        assert_eq!(sent(sim, mac).len(), 20);
        sim.schedule(sim.now() + 1_000, Fault::TxHang);
        sim.advance(10_000);
        for _ in 0..100 {
            eth.xmit(mac, q, &stream.next_segment()).unwrap();
        }
        let start = sim.now();
        let report = loop {
            sim.advance(10_000_000);
            if let Some(r) = eth.watchdog().expect(name) {
                break r;
            }
            assert!(sim.now() - start < 500_000_000, "{name}: no reset");
        };
        let waited = sim.now() - start;
        assert!((100_000_000..=130_000_000).contains(&waited), "{name}: reset after {waited} ns");
        assert_eq!(report.leaked.total(), 0, "{name}");
        assert_eq!(report.tx_dropped, 100, "{name}: the frames the hung engine never took");
        let held = eth.engine_buffers();
        assert_eq!(
            (held.rx, held.tx, held.fq),
            (support_sim::rx_buffers(eth.soc()), 0, FQ_SIZE),
            "{name}: fresh rings"
        );
        assert!(eth.is_open());
        assert!(eth.mac(mac).unwrap().link.is_some(), "{name}: link kept");
        let st = ethtool(eth, mac);
        assert_eq!(stat(&st, "tx_timeout_resets"), 1);
        assert_eq!(stat(&st, "tx_packets"), 20, "{name}: MIB kept across the cold reset");
        // Traffic resumes both ways.
        let f = stream.next_segment();
        for _ in 0..10 {
            eth.xmit(mac, q, &f).unwrap();
        }
        sim.send_to_mac(usize::from(mac), f.clone());
        sim.advance(1_000_000);
        assert_eq!(sent(sim, mac).len(), 10, "{name}");
        assert_eq!(poll_all(eth).len(), 1, "{name}");
        assert_eq!(eth.watchdog(), Ok(None));
        let s = eth.stats();
        assert_eq!(s.tx_submitted, s.tx_frames() + s.drops.tx_total());
        assert_eq!(s.drops.tx_teardown, 100);
    });
}

#[test]
fn watchdog_leaves_a_slow_but_moving_engine_alone() {
    each_board(|name, sim, eth, mac| {
        // 10 Mbit/s: a full ring takes ~600 ms, but frames keep leaving.
        sim.set_link_speed(usize::from(mac), 10);
        let q = eth.queue_for_mac(mac);
        let mut stream = TcpStream::bulk(false, None);
        while eth.tx_room() > 0 {
            eth.xmit(mac, q, &stream.next_segment()).unwrap();
        }
        for _ in 0..70 {
            sim.advance(10_000_000);
            assert_eq!(eth.watchdog(), Ok(None), "{name}");
        }
        sim.advance(100_000_000);
        eth.reclaim();
        assert_eq!(eth.tx_room(), TX_RING - 1, "{name}");
        assert_eq!(sent(sim, mac).len(), TX_RING - 1);
        sim.set_link_speed(usize::from(mac), 1000);
    });
}

#[test]
fn rx_stall_and_ring_exhaustion_are_counted_and_recover() {
    each_board(|name, sim, eth, mac| {
        let m = usize::from(mac);
        let mut stream = TcpStream::bulk(false, None);
        sim.schedule(sim.now(), Fault::RxStall { ns: 2_000_000 });
        for _ in 0..20 {
            sim.send_to_mac(m, stream.next_segment());
        }
        sim.advance(3_000_000);
        assert_eq!(poll_all(eth).len(), 0, "{name}: stalled");
        assert_eq!(stat(&ethtool(eth, mac), "rx_overflow"), 20, "{name}");
        for _ in 0..20 {
            sim.send_to_mac(m, stream.next_segment());
        }
        sim.advance(1_000_000);
        assert_eq!(poll_all(eth).len(), 20, "{name}: resumed");

        // Real exhaustion: nobody polls while 300 frames arrive; the ring holds RX_RING - 1.
        for _ in 0..300 {
            sim.send_to_mac(m, stream.next_segment());
        }
        sim.advance(10_000_000);
        assert_eq!(poll_all(eth).len(), RX_RING - 1, "{name}");
        let st = ethtool(eth, mac);
        assert_eq!(stat(&st, "rx_overflow"), 20 + 300 - (RX_RING as u64 - 1), "{name}");
        assert_eq!(stat(&st, "rx_overflow"), sim.stats().rx_ring_full, "{name}: the model agrees");
        for _ in 0..100 {
            sim.send_to_mac(m, stream.next_segment());
        }
        sim.advance(2_000_000);
        assert_eq!(poll_all(eth).len(), 100, "{name}: resumed after exhaustion");
        assert_eq!(eth.engine_buffers().rx, support_sim::rx_buffers(eth.soc()), "{name}: every RX buffer posted again");
    });
}

#[test]
fn link_flap_loses_no_buffer_and_traffic_resumes() {
    each_board(|name, sim, eth, mac| {
        let m = usize::from(mac);
        let q = eth.queue_for_mac(mac);
        let mut stream = TcpStream::bulk(false, None);
        for _ in 0..100 {
            eth.xmit(mac, q, &stream.next_segment()).unwrap();
        }
        sim.schedule(sim.now() + 200_000, Fault::LinkDown { mac: m });
        sim.advance(300_000);
        // The PHY reports the loss: the queue stops.
        eth.link_down(mac).unwrap();
        assert_eq!(eth.xmit(mac, q, &stream.next_segment()), Err(TxError::LinkDown));
        sim.send_to_mac(m, stream.next_segment());
        sim.advance(5_000_000);
        // Everything in flight came back from the engine (sent or lost on the dead link).
        eth.reclaim();
        assert_eq!(eth.tx_room(), TX_RING - 1, "{name}: nothing stuck in the ring");
        assert_eq!(eth.engine_buffers().tx, 0);
        let out = sent(sim, mac).len();
        assert!(out < 100, "{name}: the link went down mid-burst ({out} sent)");
        assert!(poll_all(eth).is_empty(), "{name}");
        sim.schedule(sim.now() + 1_000, Fault::LinkUp { mac: m });
        sim.advance(10_000);
        eth.link_up(mac, GIGABIT).unwrap();
        let f = stream.next_segment();
        for _ in 0..10 {
            eth.xmit(mac, q, &f).unwrap();
        }
        sim.send_to_mac(m, f.clone());
        sim.advance(1_000_000);
        assert_eq!(sent(sim, mac).len(), 10, "{name}: TX resumed");
        assert_eq!(poll_all(eth).len(), 1, "{name}: RX resumed");
        assert_eq!(eth.watchdog(), Ok(None));
        let s = eth.stats();
        assert_eq!(s.drops.tx_link_down, 1);
        assert_eq!(s.tx_submitted, s.tx_frames() + s.drops.tx_total(), "{name}");
    });
}

#[test]
fn lost_interrupts_do_not_stop_poll_or_reclaim() {
    each_board(|name, sim, eth, mac| {
        let m = usize::from(mac);
        let q = eth.queue_for_mac(mac);
        let mut stream = TcpStream::bulk(false, None);
        sim.schedule(sim.now(), Fault::LostIrq { count: 1_000 });
        sim.advance(1);
        for _ in 0..20 {
            eth.xmit(mac, q, &stream.next_segment()).unwrap();
            sim.send_to_mac(m, stream.next_segment());
        }
        sim.advance(2_000_000);
        assert!((0..4).all(|l| !sim.irq(l)), "{name}: no interrupt was raised");
        assert_eq!(poll_all(eth).len(), 20, "{name}: poll finds the frames anyway");
        assert_eq!(eth.reclaim(), 20, "{name}: reclaim finds the completions anyway");
        assert_eq!(sent(sim, mac).len(), 20);
        // A spurious interrupt is harmless and acknowledged by poll.
        sim.schedule(sim.now(), Fault::SpuriousIrq { tx: false });
        sim.advance(1);
        assert_eq!(poll_all(eth).len(), 0);
        assert!((0..4).all(|l| !sim.irq(l)), "{name}: poll acknowledged the status");
        sim.schedule(sim.now(), Fault::SpuriousIrq { tx: true });
        sim.advance(1);
        assert!((0..4).any(|l| sim.irq(l)), "{name}: spurious TX done raised");
        assert_eq!(eth.watchdog(), Ok(None));
        assert!((0..4).all(|l| !sim.irq(l)), "{name}: the watchdog acknowledged it");
    });
}

#[test]
fn errors_read_as_words_and_say_what_kind_they_are() {
    each_board(|name, _sim, eth, _mac| {
        let hw = Features { lro: fe_driver::LroMode::Hw, ..eth.features() };
        match eth.set_features(hw) {
            Ok(()) => assert!(eth.soc().caps.hw_lro.is_some(), "{name}"),
            Err(e) => {
                assert!(eth.soc().caps.hw_lro.is_none(), "{name}: {e}");
                assert_eq!(e.to_string(), "this SoC has no hardware LRO", "{name}");
                assert_eq!(e.kind(), fe_driver::eth::ErrorKind::Config, "{name}");
            }
        }
        eth.set_features(Features { lro: fe_driver::LroMode::Off, ..eth.features() }).unwrap();
        let e = eth.open().unwrap_err();
        assert_eq!(
            (e.to_string().as_str(), e.kind()),
            ("the interface is already open", fe_driver::eth::ErrorKind::Misuse)
        );
        let e = eth.link_up(7, GIGABIT).unwrap_err();
        assert_eq!(e.to_string(), "MAC 7 does not exist or is disabled in the device tree", "{name}");
        assert!(!format!("{}", TxError::RingFull).contains("RingFull"), "{name}");
    });
}
