//! The TAP bridge of `fe netdev` without root: datagram socket pairs stand in for the TAPs (one
//! frame per read and write, as a TAP), the test plays both Linux stacks. Frames Linux would
//! send go through the driver's TX path onto the simulated wire; frames from the wire come up
//! with the virtio-net headers Linux needs, and completing their checksums as Linux would gives
//! valid frames.

use fe_driver::dt;
use fe_driver::softlro::SoftLro;
use fe_linux::netdev::bridge::{Bridge, Port, RunInfo};
use fe_linux::netdev::ctl::Request;
use fe_linux::netdev::frame;
use fe_linux::netdev::pace::{Clock, Pace};
use fe_linux::netdev::tap::{Role, Tap};
use fe_linux::netdev::vnet::{F_NEEDS_CSUM, GSO_NONE, GSO_TCPV4, GSO_TCPV6, HDR_LEN, VnetHdr};
use fe_sim::Sim;
use fe_sim::packet::{self, TcpStream};
use std::os::unix::net::UnixDatagram;
use std::time::Duration;

#[path = "../../../driver/tests/support_boards/mod.rs"]
mod support_boards;

/// The test's ends of one MAC's two TAPs: what Linux on the driver's side and the peer see.
struct Ends {
    host: UnixDatagram,
    peer: UnixDatagram,
    /// The MAC the bridge serves (the board's first enabled MAC with a link).
    mac: u8,
    /// Its link speed in Mbit/s.
    speed: u32,
}

fn pair() -> (UnixDatagram, UnixDatagram) {
    let (a, b) = UnixDatagram::pair().unwrap();
    a.set_nonblocking(true).unwrap();
    b.set_nonblocking(true).unwrap();
    (a, b)
}

/// Runs `f` with a bridge over `board` (unpaced) and the ends of its first enabled MAC with a
/// link; closes the driver after and checks nothing leaked and the model saw nothing illegal.
fn with_bridge(board: &str, f: impl FnOnce(&mut Bridge<'_>, &Ends)) {
    let dtb = fe_linux::dtc::load(&fe_linux::dtc::dts_dir().join(board)).unwrap();
    let plat = dt::probe(&dtb).unwrap();
    let sim = Sim::for_board(&plat);
    let eth = fe_linux::run::bring_up(board, &plat, &sim).unwrap();
    let id =
        eth.enabled_macs().find(|m| m.link.is_some()).map(|m| m.id).unwrap_or_else(|| panic!("{board}: no MAC up"));
    let m = eth.mac(id).copied().unwrap();
    let speed = m.link.unwrap().speed;
    let (host_bridge, host) = pair();
    let (peer_bridge, peer) = pair();
    let ports = vec![Port::new(
        id,
        m.queue,
        speed,
        Tap::from_fd(host_bridge.into(), "test-host0", Role::Host),
        Tap::from_fd(peer_bridge.into(), "test-peer0", Role::Peer),
    )];
    let mut storage = vec![0u8; 8 * 65536];
    let lro = SoftLro::new(&mut storage, 8);
    let mut peer_storage = vec![0u8; 8 * 65536];
    let peer_lro = SoftLro::new(&mut peer_storage, 8);
    let clock = Clock::new(Pace::None, fe_linux::run::POLL_NS, sim.now());
    let info = RunInfo { board: board.to_string(), soc: plat.soc.name };
    let mut bridge = Bridge::new(&sim, eth, lro, peer_lro, ports, clock, info);
    f(&mut bridge, &Ends { host, peer, mac: id, speed });
    let closed = bridge.close().unwrap();
    assert!(closed.contains("none leaked") && closed.contains("0 illegal accesses"), "{closed}");
}

fn turns(b: &mut Bridge<'_>, n: usize) {
    for _ in 0..n {
        b.turn(None, None, Some(Duration::from_millis(1))).unwrap();
    }
}

fn drain(s: &UnixDatagram) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 70_000];
    while let Ok(n) = s.recv(&mut buf) {
        out.push(buf[..n].to_vec());
    }
    out
}

/// What reached the peer, as wire segments: a frame that went up one by one has flags 0 (the
/// peer's kernel checks the full checksum); a GSO frame (coalesced by the peer's SoftLRO) has
/// `NEEDS_CSUM`, and is completed as Linux would and cut back into its segments.
fn drain_peer(e: &Ends) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for d in drain(&e.peer) {
        let hdr = VnetHdr::decode(&d).unwrap();
        let f = &d[HDR_LEN..];
        if hdr.gso_type == GSO_NONE {
            assert_eq!(hdr, VnetHdr::default(), "a single frame up to the peer");
            out.push(f.to_vec());
            continue;
        }
        assert_eq!(hdr.flags, F_NEEDS_CSUM, "{hdr:?}");
        let seen = as_linux_sees(&hdr, f);
        assert_eq!(packet::l4_checksum_ok(&seen), Some(true), "GSO frame up to the peer: {hdr:?}");
        let cut = frame::segment_tcp(&seen, usize::from(hdr.gso_size), &mut Vec::new(), &mut |s| out.push(s.to_vec()));
        assert!(cut.is_some(), "{hdr:?}");
    }
    out
}

/// Sends `f` from the peer's kernel with `hdr`.
fn send_peer(e: &Ends, hdr: &VnetHdr, f: &[u8]) {
    let mut d = hdr.encode().to_vec();
    d.extend_from_slice(f);
    e.peer.send(&d).unwrap();
}

/// Turns the bridge until `want` frames reached the peer (at most `limit` turns).
fn collect(b: &mut Bridge<'_>, e: &Ends, want: usize, limit: usize) -> Vec<Vec<u8>> {
    let mut got = Vec::new();
    for _ in 0..limit {
        turns(b, 1);
        got.extend(drain_peer(e));
        if got.len() >= want {
            break;
        }
    }
    got
}

/// A frame as Linux hands it over with a partial checksum: the field holds the pseudo-header sum.
fn partial(full: &[u8]) -> (VnetHdr, Vec<u8>) {
    let h = frame::parse(full).unwrap();
    let mut f = full.to_vec();
    let field = h.l4 + frame::TCP_CSUM_OFFSET;
    f[field..field + 2].copy_from_slice(&frame::fold(frame::pseudo_sum(full, &h)).to_be_bytes());
    let hdr = VnetHdr {
        flags: F_NEEDS_CSUM,
        csum_start: h.l4 as u16,
        csum_offset: frame::TCP_CSUM_OFFSET as u16,
        hdr_len: h.tcp_headers_end().unwrap() as u16,
        ..VnetHdr::default()
    };
    (hdr, f)
}

fn send_host(e: &Ends, hdr: &VnetHdr, f: &[u8]) -> bool {
    let mut d = hdr.encode().to_vec();
    d.extend_from_slice(f);
    e.host.send(&d).is_ok()
}

fn payload(f: &[u8]) -> &[u8] {
    let p = packet::parse(f).unwrap();
    &f[p.payload_offset..p.payload_offset + p.payload_len]
}

#[test]
fn gso_frames_from_linux_leave_the_wire_as_checksummed_segments() {
    for (v6, gso, board) in [(false, GSO_TCPV4), (true, GSO_TCPV6)]
        .into_iter()
        .flat_map(|(v, g)| boards().into_iter().map(move |b| (v, g, b)))
    {
        with_bridge(&board, |b, e| {
            // The MSS of a 1500-byte MTU with timestamps.
            let mss = if v6 { 1428 } else { 1448 };
            let big = TcpStream::bulk(v6, None).next_segment_with(20_000);
            let (mut hdr, f) = partial(&big);
            hdr.gso_type = gso;
            hdr.gso_size = mss as u16;
            assert!(send_host(e, &hdr, &f));
            let n = 20_000usize.div_ceil(mss);
            let wire = collect(b, e, n, 200);
            assert_eq!(wire.len(), n, "20000 bytes in {mss}-byte segments");
            let mut joined = Vec::new();
            for w in &wire {
                assert!(w.len() <= 1514);
                assert_eq!(packet::l4_checksum_ok(w), Some(true));
                if !v6 {
                    assert_eq!(packet::ipv4_checksum_ok(w), Some(true));
                }
                joined.extend_from_slice(payload(w));
            }
            assert_eq!(joined, payload(&big));
            let c = b.ports[0].c;
            assert_eq!((c.host_tx_frames, c.tx_engine_tso, c.wire_tx_frames), (1, 1, n as u64));
            assert_eq!(c.wire_tx_tcp_payload_bytes, 20_000);
            assert!(c.peer_rx_gso > 0, "the peer's SoftLRO coalesced: {c:?}");
        });
    }
}

#[test]
fn partial_checksums_from_linux_are_completed_by_the_engine() {
    for board in boards() {
        with_bridge(&board, |b, e| {
            let full = TcpStream::bulk(false, None).next_segment();
            let (hdr, f) = partial(&full);
            assert_ne!(f, full);
            assert!(send_host(e, &hdr, &f));
            assert!(send_host(e, &VnetHdr::default(), &full), "a complete frame goes as it is");
            let wire = collect(b, e, 2, 100);
            assert_eq!(wire, vec![full.clone(), full]);
            let c = b.ports[0].c;
            assert_eq!((c.tx_engine_csum, c.tx_plain), (1, 1));
        });
    }
}

/// Feeds `n` bulk segments from the peer and returns what came up to Linux, each with its header.
fn receive(b: &mut Bridge<'_>, e: &Ends, n: usize) -> Vec<(VnetHdr, Vec<u8>)> {
    let mut s = TcpStream::bulk(false, None);
    for _ in 0..n {
        send_peer(e, &VnetHdr::default(), &s.next_segment());
    }
    collect_up(b, e, n)
}

/// Turns the bridge until `n` TCP segments came up to Linux; what came, each with its header.
fn collect_up(b: &mut Bridge<'_>, e: &Ends, n: usize) -> Vec<(VnetHdr, Vec<u8>)> {
    let mut up = Vec::new();
    let mut segs = 0;
    for _ in 0..200 {
        turns(b, 1);
        for d in drain(&e.host) {
            let hdr = VnetHdr::decode(&d).unwrap();
            let f = d[HDR_LEN..].to_vec();
            segs += if hdr.gso_type == GSO_NONE { 1 } else { payload(&f).len().div_ceil(usize::from(hdr.gso_size)) };
            up.push((hdr, f));
        }
        if segs >= n {
            break;
        }
    }
    up
}

/// What Linux makes of a frame written with `hdr`: the completed checksum for NEEDS_CSUM.
fn as_linux_sees(hdr: &VnetHdr, f: &[u8]) -> Vec<u8> {
    let mut f = f.to_vec();
    if hdr.flags & F_NEEDS_CSUM != 0 {
        assert!(frame::complete_checksum(&mut f, usize::from(hdr.csum_start), usize::from(hdr.csum_offset)));
    }
    f
}

#[test]
fn frames_from_the_wire_come_up_as_linux_needs_them() {
    // Every board in every coalescing mode its SoC has (hardware LRO only where the YAML has it).
    let mut runs = Vec::new();
    for bb in support_boards::all() {
        runs.push((bb.file.clone(), "off"));
        runs.push((bb.file.clone(), "soft"));
        if bb.soc.caps.hw_lro.is_some() {
            runs.push((bb.file.clone(), "hw"));
        }
    }
    assert!(runs.iter().any(|r| r.1 == "hw"), "no bundled board's SoC has hardware LRO");
    for (board, lro) in &runs {
        let (board, lro) = (board.as_str(), *lro);
        for rx_csum in [true, false] {
            with_bridge(board, |b, e| {
                if lro == "hw" {
                    // The bulk stream's destination, like `fe ctl lro-dst`.
                    let first = TcpStream::bulk(false, None).next_segment();
                    let dst =
                        packet::parse(&first).and_then(|p| p.ip).map(|ip| [ip.dst[0], ip.dst[1], ip.dst[2], ip.dst[3]]);
                    b.handle(Request::LroDst { mac: e.mac, dst }).unwrap();
                }
                b.handle(Request::RxCsum(rx_csum)).unwrap();
                let mode = match lro {
                    "off" => fe_driver::LroMode::Off,
                    "soft" => fe_driver::LroMode::Soft,
                    _ => fe_driver::LroMode::Hw,
                };
                b.handle(Request::Lro(mode)).unwrap();
                let up = receive(b, e, 40);
                let tag = format!("{board} lro {lro} rx-csum {rx_csum}");
                let mut bytes = 0;
                for (hdr, f) in &up {
                    let seen = as_linux_sees(hdr, f);
                    assert_eq!(packet::l4_checksum_ok(&seen), Some(true), "{tag}: {hdr:?}");
                    assert_eq!(packet::ipv4_checksum_ok(&seen), Some(true), "{tag}");
                    bytes += payload(&seen).len();
                    if hdr.gso_type != GSO_NONE {
                        assert_eq!(hdr.gso_type, GSO_TCPV4, "{tag}");
                        assert_eq!(hdr.gso_size, 1448, "{tag}");
                        assert_eq!(hdr.flags, F_NEEDS_CSUM, "{tag}");
                    } else if rx_csum {
                        assert_eq!(hdr.flags, F_NEEDS_CSUM, "{tag}: verified by the hardware");
                    } else {
                        assert_eq!(hdr.flags, 0, "{tag}: Linux checks it");
                        assert_eq!(&seen, f, "{tag}: untouched");
                    }
                }
                assert_eq!(bytes, 40 * 1448, "{tag}: every byte once");
                let gso = up.iter().filter(|(h, _)| h.gso_type != GSO_NONE).count();
                // Hardware LRO merges only verified segments; SoftLRO merges what it leaves.
                assert_eq!(gso > 0, lro != "off", "{tag}: {} frames up, {gso} GSO", up.len());
                if lro == "off" {
                    assert_eq!(up.len(), 40, "{tag}");
                }
                let c = b.ports[0].c;
                assert_eq!(c.host_rx_segments, 40, "{tag}");
                assert_eq!(c.host_rx_tcp_payload_bytes, 40 * 1448, "{tag}");
            });
        }
    }
}

#[test]
fn a_full_tx_ring_holds_frames_back_and_drops_none() {
    for board in boards() {
        with_bridge(&board, |b, e| {
            let mut s = TcpStream::bulk(false, None);
            let (frames, size) = (40, 60_000);
            let mut written = 0;
            let mut pending: Option<Vec<u8>> = None;
            let mut wire = 0;
            for _ in 0..5000 {
                while written < frames {
                    let d = pending.take().unwrap_or_else(|| {
                        let (mut hdr, f) = partial(&s.next_segment_with(size));
                        hdr.gso_type = GSO_TCPV4;
                        hdr.gso_size = 1448;
                        let mut d = hdr.encode().to_vec();
                        d.extend_from_slice(&f);
                        d
                    });
                    if e.host.send(&d).is_err() {
                        pending = Some(d);
                        break;
                    }
                    written += 1;
                }
                turns(b, 1);
                wire += drain_peer(e).len();
                if written == frames && wire == frames * size.div_ceil(1448) {
                    break;
                }
            }
            assert_eq!(wire, frames * size.div_ceil(1448), "every segment of every frame reached the peer");
            let c = b.ports[0].c;
            assert!(c.tx_ring_backoff > 0, "the ring filled up: {c:?}");
            assert_eq!(c.tx_xmit_errors + c.tx_refused, 0);
            assert_eq!(b.eth.stats().drops.tx_total(), 0);
        });
    }
}

#[test]
fn stats_answer_in_text_and_json_and_refuse_what_the_soc_lacks() {
    let mut refused = 0;
    for bb in support_boards::all() {
        with_bridge(&bb.file, |b, e| {
            let text = b.handle(Request::Stats { json: false }).unwrap();
            let head = format!("mac {} (test-host0 <-> test-peer0, {} Mbit/s):", e.mac, e.speed);
            assert!(text.contains(&head), "{}: {text}", bb.file);
            assert!(text.contains("    rx_csum_verified: 0\n"), "{text}");
            let json: serde_json::Value =
                serde_json::from_str(&b.handle(Request::Stats { json: true }).unwrap()).unwrap();
            assert_eq!(json["soc"], bb.soc.name);
            assert_eq!(json["features"]["lro"], "off");
            assert_eq!(json["macs"][0]["netdev"]["tx_ring_backoff"], 0);
            match b.handle(Request::Lro(fe_driver::LroMode::Hw)) {
                Err(e) => {
                    assert!(bb.soc.caps.hw_lro.is_none(), "{}: {e}", bb.file);
                    assert!(e.contains("no hardware LRO"), "{e}");
                    refused += 1;
                }
                Ok(_) => assert!(bb.soc.caps.hw_lro.is_some(), "{}: hardware LRO accepted without it", bb.file),
            }
            b.handle(Request::Lro(fe_driver::LroMode::Soft)).unwrap();
            let json: serde_json::Value =
                serde_json::from_str(&b.handle(Request::Stats { json: true }).unwrap()).unwrap();
            assert_eq!(json["features"]["lro"], "soft");
        });
    }
    assert!(refused > 0, "no bundled board's SoC lacks hardware LRO: the refusal is untested");
}

#[test]
fn gso_frames_and_partial_checksums_from_the_peer_reach_linux_as_valid_segments() {
    for (v6, gso, mss) in [(false, GSO_TCPV4, 1448usize), (true, GSO_TCPV6, 1428)] {
        for board in boards() {
            with_bridge(&board, |b, e| {
                let mut s = TcpStream::bulk(v6, None);
                let big = s.next_segment_with(20_000);
                let (mut hdr, f) = partial(&big);
                hdr.gso_type = gso;
                hdr.gso_size = mss as u16;
                send_peer(e, &hdr, &f);
                let small = s.next_segment();
                let (hdr_small, f_small) = partial(&small);
                send_peer(e, &hdr_small, &f_small);
                let n = 20_000usize.div_ceil(mss) + 1;
                let up = collect_up(b, e, n);
                let mut joined = Vec::new();
                for (hdr, f) in &up {
                    assert_eq!(hdr.gso_type, GSO_NONE, "coalescing is off");
                    let seen = as_linux_sees(hdr, f);
                    assert_eq!(packet::l4_checksum_ok(&seen), Some(true), "v6 {v6}: {hdr:?}");
                    if !v6 {
                        assert_eq!(packet::ipv4_checksum_ok(&seen), Some(true));
                    }
                    joined.extend_from_slice(payload(&seen));
                }
                assert_eq!(up.len(), n, "v6 {v6}");
                let mut want = payload(&big).to_vec();
                want.extend_from_slice(payload(&small));
                assert_eq!(joined, want, "v6 {v6}: every byte once, in order");
                let c = b.ports[0].c;
                assert_eq!((c.peer_tx_frames, c.peer_tx_segmented, c.peer_tx_csum, c.peer_tx_refused), (2, 1, 1, 0));
                assert_eq!(c.wire_rx_frames, n as u64);
            });
        }
    }
}

/// Every bundled board (found by compatible: `support_boards`), by file name.
fn boards() -> Vec<String> {
    support_boards::all().into_iter().map(|b| b.file).collect()
}

/// Linux turns LRO off on a device that starts forwarding (dev_disable_lro); the bridge does the
/// same for coalescing when a forwarding sysctl of the namespace reads 1, refuses to turn it back
/// on meanwhile, and restores the mode it had (soft, or hardware where the SoC has it) when
/// forwarding stops. Files stand in for the sysctls.
#[test]
fn coalescing_is_off_while_the_namespace_forwards_and_comes_back_after() {
    use fe_driver::LroMode;
    use fe_linux::netdev::watch::Watch;
    let dir = std::env::temp_dir().join(format!("fe-fwd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (v4, v6) = (dir.join("ip_forward"), dir.join("ipv6_forwarding"));
    for board in boards() {
        with_bridge(&board, |b, _| {
            std::fs::write(&v4, "0\n").unwrap();
            std::fs::write(&v6, "0\n").unwrap();
            b.set_watch(
                Watch::from_files(&[("net.ipv4.ip_forward", &v4), ("net.ipv6.conf.all.forwarding", &v6)]).unwrap(),
            );
            let mode = if b.eth.soc().caps.hw_lro.is_some() { LroMode::Hw } else { LroMode::Soft };
            b.handle(Request::Lro(mode)).unwrap();
            b.check_watch().unwrap();
            assert_eq!(b.eth.features().lro, mode, "{board}: not forwarding, coalescing stays");
            for (file, name) in [(&v4, "net.ipv4.ip_forward = 1"), (&v6, "net.ipv6.conf.all.forwarding = 1")] {
                std::fs::write(file, "1\n").unwrap();
                b.check_watch().unwrap();
                assert_eq!(b.eth.features().lro, LroMode::Off, "{board}: {name}: coalescing off");
                assert!(b.eth.forwarding(), "{board}");
                let e = b.handle(Request::Lro(LroMode::Soft)).unwrap_err();
                assert!(e.contains("stays off while the namespace forwards") && e.contains(name), "{board}: {e}");
                b.handle(Request::RxCsum(false)).unwrap();
                b.handle(Request::RxCsum(true)).unwrap();
                let json: serde_json::Value =
                    serde_json::from_str(&b.handle(Request::Stats { json: true }).unwrap()).unwrap();
                assert_eq!(json["features"]["forwarding"], true, "{board}");
                std::fs::write(file, "0\n").unwrap();
                b.check_watch().unwrap();
                assert_eq!(b.eth.features().lro, mode, "{board}: forwarding stopped, coalescing restored");
                assert!(!b.eth.forwarding(), "{board}");
            }
            assert_eq!(b.loops.forwarding_started, 2);
            assert_eq!(b.loops.forwarding_stopped, 2);
        });
    }
    std::fs::remove_dir_all(&dir).ok();
}
