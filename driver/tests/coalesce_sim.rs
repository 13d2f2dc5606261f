//! Receive coalescing through the driver on the simulator: hardware LRO on the SoC whose YAML has
//! it (MT7623: rules, limits, relinquish at teardown), SoftLRO on every SoC, the `lro` feature's
//! refusals, and no coalescing while the interface forwards.

mod support_sim;

use fe_driver::softlro::SoftLro;
use fe_driver::{Eth, EthError, Features, LroMode, RxChecksum};
use fe_sim::Sim;
use fe_sim::packet::{self, TcpSpec, TcpStream};
use support_sim::{SimPlatform, each_open_board};

/// A delivered frame: its TCP payload and metadata.
#[derive(Debug)]
struct Up {
    payload: Vec<u8>,
    segs: u16,
    seg_size: u16,
    checksum: RxChecksum,
    len: usize,
}

/// `soft`: the frame came through SoftLRO or as received, so its checksums must be correct
/// (hardware LRO aggregates keep the head's TCP checksum; they go up as verified).
fn up(f: fe_driver::RxFrame<'_>, soft: bool) -> Up {
    let p = packet::parse(f.data).expect("delivered frames parse");
    // Aggregates built by the driver's copy-once fast path carry correct lengths and checksums.
    if soft {
        assert_ne!(packet::ipv4_checksum_ok(f.data), Some(false), "IPv4 header checksum ({} segs)", f.segs);
        assert_eq!(packet::l4_checksum_ok(f.data), Some(true), "TCP checksum ({} segs)", f.segs);
    }
    let payload = f.data[p.payload()].to_vec();
    Up { payload, segs: f.segs, seg_size: f.seg_size, checksum: f.checksum, len: f.data.len() }
}

/// Opens every bundled board with its first enabled MAC's link up and runs `f`.
fn each_board(f: impl Fn(&str, &Sim, &mut Eth<SimPlatform<'_>>, u8)) {
    each_open_board(f);
}

/// Sends `n` full segments of `stream` on `mac`'s wire and lets them arrive.
fn send(sim: &Sim, mac: u8, stream: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for _ in 0..n {
        let f = stream.next_segment();
        bytes.extend_from_slice(&f[packet::parse(&f).unwrap().payload()]);
        sim.send_to_mac(usize::from(mac), f);
    }
    sim.advance(3_000_000);
    bytes
}

fn poll_coalesced(eth: &mut Eth<SimPlatform<'_>>, lro: &mut SoftLro<'_>) -> Vec<Up> {
    let mut got = Vec::new();
    let hw = eth.features().lro == LroMode::Hw;
    while eth.poll_coalesced(64, lro, &mut |f| got.push(up(f, !hw))) == 64 {}
    assert_eq!(lro.held(), 0, "nothing is held past a poll");
    got
}

/// Asserts `got` carries exactly `sent`, naming the first difference (not printing megabytes).
fn same_bytes(name: &str, got: &[Up], sent: &[u8]) {
    let bytes: Vec<u8> = got.iter().flat_map(|u| u.payload.clone()).collect();
    let first = bytes.iter().zip(sent).position(|(a, b)| a != b);
    let sizes: Vec<(usize, u16)> = got.iter().map(|u| (u.payload.len(), u.segs)).collect();
    assert!(
        bytes.len() == sent.len() && first.is_none(),
        "{name}: {} bytes up, {} sent, first difference at {first:?}; frames (payload, segs): {sizes:?}",
        bytes.len(),
        sent.len()
    );
}

/// Turns hardware LRO on with a rule for the bulk stream it returns (the SoC has hardware LRO).
fn hw_lro_on(eth: &mut Eth<SimPlatform<'_>>, mac: u8) -> TcpStream {
    eth.set_features(Features { lro: LroMode::Hw, ..eth.features() }).unwrap();
    let mut stream = TcpStream::bulk(false, None);
    eth.set_lro_rule(mac, 0, Some(dst_ip(&mut stream))).unwrap();
    stream
}

fn dst_ip(stream: &mut TcpStream) -> [u8; 4] {
    let f = stream.clone().next_segment();
    f[30..34].try_into().unwrap()
}

#[test]
fn hardware_lro_merges_flows_to_a_programmed_address_on_the_soc_that_has_it() {
    each_board(|name, sim, eth, mac| {
        if eth.soc().caps.hw_lro.is_none() {
            let r = eth.set_features(Features { lro: LroMode::Hw, ..eth.features() });
            assert_eq!(r, Err(EthError::Unsupported("this SoC has no hardware LRO")), "{name}");
            assert_eq!(
                eth.set_lro_rule(mac, 0, Some([10, 0, 0, 2])),
                Err(EthError::Unsupported("this SoC has no hardware LRO"))
            );
            return;
        }
        let caps = eth.soc().caps.hw_lro.unwrap();
        let mut stream = hw_lro_on(eth, mac);
        let mut storage = vec![0u8; 4 * 65536];
        let mut lro = SoftLro::new(&mut storage, 4);
        // NAPI polls as the interrupts come: every 10 segments (an LRO ring has few descriptors).
        let (mut sent, mut got) = (Vec::new(), Vec::new());
        for _ in 0..6 {
            sent.extend(send(sim, mac, &mut stream, 10));
            got.extend(poll_coalesced(eth, &mut lro));
        }
        same_bytes(name, &got, &sent);
        assert!(got.len() < 20, "{name}: {} frames for 60 segments", got.len());
        assert_eq!(got.iter().map(|u| u64::from(u.segs)).sum::<u64>(), 60, "{name}: segment counts add up");
        for u in &got {
            assert!(u.len <= caps.buffer_size as usize, "{name}: an aggregate fits an LRO buffer");
            assert_eq!(u.checksum, RxChecksum::Verified, "{name}");
            if u.segs > 1 {
                assert_eq!(usize::from(u.seg_size), stream.mss(), "{name}: segment size for the stack (B7)");
            }
        }
        assert!(eth.stats().hw_lro_frames > 0 && eth.stats().hw_lro_segments >= 60 - 8, "{name}: {:?}", eth.stats());
        // No rule: nothing goes to the LRO rings.
        eth.set_lro_rule(mac, 0, None).unwrap();
        let before = eth.stats().hw_lro_frames;
        send(sim, mac, &mut stream, 20);
        let got = poll_coalesced(eth, &mut lro);
        assert_eq!(eth.stats().hw_lro_frames, before, "{name}: no rule, no hardware LRO");
        assert!(got.len() < 20, "{name}: SoftLRO still merges ring-0 frames");
    });
}

#[test]
fn hardware_lro_is_relinquished_at_close_and_every_buffer_returns() {
    each_board(|name, sim, eth, mac| {
        if eth.soc().caps.hw_lro.is_none() {
            return;
        }
        let mut stream = hw_lro_on(eth, mac);
        for _ in 0..5 {
            sim.send_to_mac(usize::from(mac), stream.next_segment());
        }
        sim.advance(60_000); // inside the aggregation timer: an aggregate is still open
        let report = eth.close().unwrap();
        assert_eq!(report.leaked.total(), 0, "{name}");
        assert!(report.rx_dropped >= 1, "{name}: the relinquished aggregate is accounted for: {report:?}");
        assert_eq!(eth.stats().drops.lro_relinquish_timeout, 0, "{name}");
        eth.open().unwrap();
        assert_eq!(eth.features().lro, LroMode::Hw, "{name}: the feature survives close/open");
    });
}

#[test]
fn soft_lro_through_the_driver_on_every_soc_ipv4_and_ipv6() {
    each_board(|name, sim, eth, mac| {
        eth.set_features(Features { lro: LroMode::Soft, ..eth.features() }).unwrap();
        let mut storage = vec![0u8; 4 * 65536];
        let mut lro = SoftLro::new(&mut storage, 4);
        for ipv6 in [false, true] {
            let mut stream = TcpStream::bulk(ipv6, None);
            let sent = send(sim, mac, &mut stream, 40);
            let got = poll_coalesced(eth, &mut lro);
            same_bytes(&format!("{name} ipv6={ipv6}"), &got, &sent);
            assert!(got.len() <= 4, "{name} ipv6={ipv6}: {} frames for 40 segments", got.len());
            assert_eq!(got.iter().map(|u| u64::from(u.segs)).sum::<u64>(), 40, "{name}");
            assert!(got.iter().all(|u| u.checksum == RxChecksum::Verified), "{name}: hardware-verified segments");
        }
        // Off: frames go up one by one.
        eth.set_features(Features { lro: LroMode::Off, ..eth.features() }).unwrap();
        let mut stream = TcpStream::bulk(false, None);
        send(sim, mac, &mut stream, 10);
        assert_eq!(poll_coalesced(eth, &mut lro).len(), 10, "{name}: off");
    });
}

#[test]
fn nothing_is_coalesced_while_the_interface_forwards() {
    each_board(|name, sim, eth, mac| {
        let mode = if eth.soc().caps.hw_lro.is_some() { LroMode::Hw } else { LroMode::Soft };
        eth.set_features(Features { lro: mode, ..eth.features() }).unwrap();
        let mut stream = TcpStream::bulk(false, None);
        if mode == LroMode::Hw {
            eth.set_lro_rule(mac, 0, Some(dst_ip(&mut stream))).unwrap();
        }
        eth.set_forwarding(true).unwrap();
        assert_eq!(eth.features().lro, LroMode::Off, "{name}: forwarding turns coalescing off");
        let r = eth.set_features(Features { lro: LroMode::Soft, ..eth.features() });
        assert_eq!(r, Err(EthError::LroWhileForwarding), "{name}: and keeps it off (B6)");
        let mut storage = vec![0u8; 65536];
        let mut lro = SoftLro::new(&mut storage, 1);
        send(sim, mac, &mut stream, 20);
        let got = poll_coalesced(eth, &mut lro);
        assert_eq!(got.len(), 20, "{name}: every segment forwarded as received");
        assert!(got.iter().all(|u| u.segs == 1), "{name}");
        eth.set_forwarding(false).unwrap();
        eth.set_features(Features { lro: LroMode::Soft, ..eth.features() }).unwrap();
    });
}

#[test]
fn soft_lro_counts_every_frame_across_polls_and_other_traffic() {
    each_board(|name, sim, eth, mac| {
        eth.set_features(Features { lro: LroMode::Soft, ..eth.features() }).unwrap();
        let mut storage = vec![0u8; 4 * 65536];
        let mut lro = SoftLro::new(&mut storage, 4);
        let before = eth.stats();
        let mut stream = TcpStream::bulk(false, None);
        let udp = packet::build_udp(&packet::UdpSpec { payload_len: 100, ..Default::default() });
        let (mut sent, mut frames, mut bytes) = (Vec::new(), 0u64, 0u64);
        // 200 segments with a UDP datagram after every 37th (it ends the fast path's run),
        // polled 16 frames at a time (runs end with the poll).
        for k in 0..200 {
            let f = stream.next_segment();
            sent.extend_from_slice(&f[packet::parse(&f).unwrap().payload()]);
            (frames, bytes) = (frames + 1, bytes + f.len() as u64);
            sim.send_to_mac(usize::from(mac), f);
            if k % 37 == 36 {
                (frames, bytes) = (frames + 1, bytes + udp.len() as u64);
                sim.send_to_mac(usize::from(mac), udp.clone());
            }
            if k % 16 == 15 {
                sim.advance(300_000);
            }
        }
        sim.advance(3_000_000);
        let mut got = Vec::new();
        while eth.poll_coalesced(16, &mut lro, &mut |f| got.push(f.data.to_vec())) == 16 {}
        let tcp: Vec<Up> = got
            .iter()
            .filter(|d| packet::parse(d).is_some_and(|p| p.tcp.is_some()))
            .map(|d| up(fe_driver::RxFrame::new(mac, d, RxChecksum::Verified), true))
            .collect();
        same_bytes(name, &tcp, &sent);
        assert_eq!(got.len() - tcp.len(), 5, "{name}: every UDP datagram up as received");
        let (s, l) = (eth.stats(), lro.stats());
        let m = usize::from(mac);
        assert_eq!(s.mac[m].rx_frames - before.mac[m].rx_frames, frames, "{name}: every frame counted once");
        assert_eq!(s.mac[m].rx_bytes - before.mac[m].rx_bytes, bytes, "{name}: with its bytes");
        assert_eq!(l.frames_in, frames, "{name}");
        assert!(l.fast_merged + l.fast_started >= 190, "{name}: the fast path took the stream: {l:?}");
    });
}

#[test]
fn hardware_lro_aggregates_lost_to_a_full_ring_are_counted_segment_by_segment() {
    each_board(|name, sim, eth, mac| {
        if eth.soc().caps.hw_lro.is_none() {
            return;
        }
        let mut stream = hw_lro_on(eth, mac);
        let overflow = |eth: &mut Eth<SimPlatform<'_>>| {
            let mut n = 0;
            eth.ethtool_stats(mac, &mut |k, v| {
                if k == "rx_overflow" {
                    n = v;
                }
            });
            n
        };
        let before = overflow(eth);
        // No poll while 600 segments arrive: the LRO rings (and ring 0) fill up.
        for _ in 0..6 {
            send(sim, mac, &mut stream, 100);
        }
        let mut storage = vec![0u8; 4 * 65536];
        let mut lro = SoftLro::new(&mut storage, 4);
        let got = poll_coalesced(eth, &mut lro);
        let delivered: u64 = got.iter().map(|u| u64::from(u.segs)).sum();
        let lost = overflow(eth) - before;
        assert!(lost > 0, "{name}: the rings did fill");
        assert_eq!(delivered + lost, 600, "{name}: every segment delivered or counted as lost");
    });
}

/// One field of one segment in the middle of a bulk stream that the prediction must refuse.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Break {
    /// DF clear and the IP ID skips one (the sequence number is right).
    IdSkipped,
    /// TSval goes back.
    TsvalOlder,
    /// A segment is missing before it.
    SeqGap,
}

#[test]
fn the_driver_never_merges_a_segment_the_prediction_refuses_into_a_running_aggregate() {
    each_board(|name, sim, eth, mac| {
        eth.set_features(Features { lro: LroMode::Soft, ..eth.features() }).unwrap();
        let mut storage = vec![0u8; 4 * 65536];
        let mut lro = SoftLro::new(&mut storage, 4);
        let cases = [
            (Break::IdSkipped, false),
            (Break::TsvalOlder, false),
            (Break::TsvalOlder, true),
            (Break::SeqGap, false),
            (Break::SeqGap, true),
        ];
        for (brk, ipv6) in cases {
            let what = format!("{name} {brk:?} ipv6={ipv6}");
            let mut spec = TcpSpec {
                ipv6,
                dont_fragment: brk != Break::IdSkipped,
                timestamp: Some((100, 7)),
                payload_seed: 9,
                seq: 5000,
                ..TcpSpec::default()
            };
            if ipv6 {
                spec.src_ip = [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
                spec.dst_ip = [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
            }
            spec.payload_len = if ipv6 { 1428 } else { 1448 };
            let mut broken = 0;
            for k in 0..12 {
                if k == 6 {
                    match brk {
                        Break::IdSkipped => spec.ip_id = spec.ip_id.wrapping_add(1),
                        Break::TsvalOlder => spec.timestamp = Some((90, 7)),
                        Break::SeqGap => spec.seq = spec.seq.wrapping_add(spec.payload_len as u32),
                    }
                    broken = spec.seq;
                }
                sim.send_to_mac(usize::from(mac), packet::build_tcp(&spec));
                spec.seq = spec.seq.wrapping_add(spec.payload_len as u32);
                spec.ip_id = spec.ip_id.wrapping_add(1);
                spec.timestamp = spec.timestamp.map(|(v, e)| (v + 1, e));
            }
            sim.advance(3_000_000);
            let mut starts = Vec::new();
            let mut segs = 0;
            while eth.poll_coalesced(64, &mut lro, &mut |f| {
                let p = packet::parse(f.data).expect("delivered frames parse");
                let t = p.tcp.expect("TCP");
                assert!(packet::payload_matches(&f.data[p.payload()], 9, t.seq), "{what}: payload at seq {}", t.seq);
                assert_eq!(packet::l4_checksum_ok(f.data), Some(true), "{what}: TCP checksum");
                starts.push(t.seq);
                segs += u64::from(f.segs);
            }) == 64
            {}
            assert_eq!(segs, 12, "{what}: every segment up once");
            assert!(starts.contains(&broken), "{what}: the refused segment starts a frame; frames start at {starts:?}");
            assert!(starts.len() < 12, "{what}: the rest merged; frames start at {starts:?}");
        }
    });
}
