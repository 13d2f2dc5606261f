//! Per-port TX queues and QDMA shaping against the simulator, for every bundled board with two
//! DSA switch user ports behind one MAC (others are skipped, saying so; at least one board must
//! have them): the MACs' own queues are never shaped; a 100 Mbit/s port
//! shaped next to a gigabit port behind the same MAC leaves the gigabit port its rate; left
//! unshaped, the slow port's full buffer pauses the MAC and the gigabit port collapses; the
//! decision is remade when a port's or its conduit's speed changes.
//!
//! The direct 1 Gbit/s link at >= 99 % of the 941.5 Mbit/s TCP goodput limit (no shaping of a
//! MAC's queue) is `direct_gigabit_tx_reaches_line_rate` in `eth_sim.rs`; it is not repeated here.

mod support_sim;

use fe_driver::dt::{Duplex, Shaping};
use fe_driver::shaping::{self, MAX_TAG_PORT};
use fe_driver::{Eth, EthError, LinkState, TxError};
use fe_regs::bus::Bus;
use fe_regs::values::QdmaQtxSch;
use fe_sim::Sim;
use fe_sim::packet::{self, TcpStream};
use support_sim::{SimPlatform, boards, probe};

type Driver<'a> = Eth<SimPlatform<'a>>;

/// The test bed a board offers: a conduit MAC with two switch user ports behind it that have
/// queues of their own (the first two found).
#[derive(Clone, Copy, Debug)]
struct Bed {
    conduit: u8,
    slow: u8,
    fast: u8,
}

/// The first enabled MAC with two tag-addressable user ports on queues of their own behind it.
fn bed(eth: &Driver<'_>) -> Option<Bed> {
    eth.enabled_macs().map(|m| m.id).find_map(|conduit| {
        let ports: Vec<u8> = eth
            .switch_ports()
            .filter(|p| p.conduit_mac == conduit && p.own_queue && p.port <= MAX_TAG_PORT)
            .map(|p| p.port)
            .collect();
        (ports.len() >= 2).then(|| Bed { conduit, slow: ports[0], fast: ports[1] })
    })
}
/// Number of MAC queues (MAC i sends on queue i).
const MAC_QUEUES: u8 = 3;

const fn link(speed: u32) -> LinkState {
    LinkState { speed, duplex: Duplex::Full, pause: true }
}

/// Runs `f` with a driver (not yet open) on the simulator for every bundled board with a
/// [`Bed`] (the others are skipped with a printed reason; none at all fails); afterwards checks
/// that the model saw no illegal access and that closing leaves nothing with the engine.
fn each_board(f: impl Fn(&str, &Sim, &mut Driver<'_>, Bed)) {
    let mut tested = 0;
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        let sim = Sim::for_board(&board);
        let mut eth = Eth::new(&board, SimPlatform(&sim)).expect(name);
        let Some(bed) = bed(&eth) else {
            println!("{name}: skipped, no MAC with two switch user ports on queues of their own");
            continue;
        };
        tested += 1;
        f(name, &sim, &mut eth, bed);
        if eth.is_open() {
            let report = eth.close().expect(name);
            assert_eq!(report.leaked.total(), 0, "{name}: leaked at close: {report:?}");
        }
        assert_eq!(eth.engine_buffers().total(), 0, "{name}");
        let s = eth.stats();
        assert_eq!(s.tx_submitted, s.tx_frames() + s.drops.tx_total(), "{name}: every frame sent or dropped");
        assert!(sim.violations().is_empty(), "{name}: violations: {:?}", sim.violations());
    }
    assert!(tested > 0, "no bundled board has a MAC with two switch user ports on queues of their own");
}

/// Opens the driver and brings every enabled MAC's link up (fixed links are up from `open`).
fn open(eth: &mut Driver<'_>) {
    eth.open().unwrap();
    let down: Vec<u8> = eth.enabled_macs().filter(|m| m.link.is_none()).map(|m| m.id).collect();
    for id in down {
        eth.link_up(id, link(1000)).unwrap();
    }
}

/// Queue `q`'s scheduler word, read back through the simulator's bus.
fn sch(sim: &Sim, eth: &Driver<'_>, q: u8) -> QdmaQtxSch {
    let r = eth.soc().fe.qdma.qtx_sch.at(usize::from(q)).expect("queue register");
    QdmaQtxSch(sim.fe().read32(r.offset() as usize))
}

/// The MAC queues are at the base value: min rate only, max rate off.
fn assert_mac_queues_unshaped(name: &str, sim: &Sim, eth: &Driver<'_>) {
    let base = eth.soc().caps.shaper.base;
    for q in 0..MAC_QUEUES {
        let v = sch(sim, eth, q);
        assert!(!v.max_rate_en(), "{name}: MAC queue {q} has a max rate: {:#x}", v.0);
        assert!(v.min_rate_en(), "{name}: MAC queue {q} keeps its min rate");
        assert_eq!(v.0, base, "{name}: MAC queue {q} at the base value");
    }
}

/// Port `port`'s queue holds the word for `want` (the rate-table value or the base value).
fn assert_port(name: &str, sim: &Sim, eth: &Driver<'_>, port: u8, want: Shaping) {
    let (q, got) = eth.port_queue(port).expect("port");
    assert_eq!(q, port + 3, "{name}: port {port} -> queue {}", port + 3);
    assert_eq!(got, want, "{name}: port {port} decision");
    let sh = eth.soc().caps.shaper;
    let v = sch(sim, eth, q);
    match want {
        Shaping::Shaped { speed } => {
            assert_eq!(Some(v.0), sh.value_for(speed), "{name}: port {port} shaped to {speed}");
            assert!(v.max_rate_en(), "{name}: port {port} max rate on");
        }
        _ => {
            assert_eq!(v.0, sh.base, "{name}: port {port} at the base value");
            assert!(!v.max_rate_en(), "{name}: port {port} max rate off");
        }
    }
    assert_mac_queues_unshaped(name, sim, eth);
}

#[test]
fn tag_frame_puts_the_port_mask_after_the_source_address() {
    let frame: Vec<u8> = (0..60).collect();
    let mut out = [0u8; 64];
    assert_eq!(shaping::tag_frame(&mut out, &frame, 5), Some(64));
    assert_eq!(&out[..12], &frame[..12]);
    assert_eq!(&out[12..16], &[0, 1 << 5, 0, 0]);
    assert_eq!(&out[16..], &frame[12..]);
    assert_eq!(shaping::tag_frame(&mut out, &frame, 8), None, "the mask is one byte");
    assert_eq!(shaping::tag_frame(&mut out[..63], &frame, 1), None, "too small");
    assert_eq!(shaping::tag_frame(&mut out, &frame[..11], 1), None, "no addresses");
}

#[test]
fn queue_map_from_the_device_tree_and_mac_queues_never_shaped() {
    each_board(|name, sim, eth, bed| {
        for m in eth.enabled_macs().map(|m| m.id).collect::<Vec<_>>() {
            assert_eq!(eth.queue_for_mac(m), m, "{name}: MAC {m} -> queue {m}");
        }
        let ports: Vec<_> = eth.switch_ports().copied().collect();
        for p in &ports {
            assert_eq!(p.queue, p.port + 3, "{name}: {} (port {}) -> queue port + 3", p.label(), p.port);
            assert!(p.own_queue && !p.label().is_empty(), "{name}: {p:?}");
        }
        // A slow port decided before open is applied by open, after the base values.
        let slow = bed.slow;
        eth.port_link_changed(bed.conduit, slow, Some(100)).unwrap();
        assert_eq!(eth.port_queue(slow), Some((slow + 3, Shaping::Shaped { speed: 100 })), "{name}");
        open(eth);
        assert_mac_queues_unshaped(name, sim, eth);
        assert_port(name, sim, eth, slow, Shaping::Shaped { speed: 100 });
        // Every other port: shaped where the device tree gives a speed below the conduit's link
        // (and the rate table has it), else min rate only until its link comes up.
        for p in ports.iter().filter(|p| p.port != slow) {
            let conduit = eth.mac(p.conduit_mac).and_then(|m| m.link).map(|l| l.speed);
            let want = match (p.speed, conduit) {
                (Some(s), Some(c)) if s < c && eth.soc().caps.shaper.value_for(s).is_some() => {
                    Shaping::Shaped { speed: s }
                }
                (Some(_), Some(_)) => Shaping::Unshaped,
                _ => Shaping::AtLinkUp,
            };
            assert_port(name, sim, eth, p.port, want);
        }
        // Queues past the ports (and the MACs' own) keep the base value too.
        let base = eth.soc().caps.shaper.base;
        let used: Vec<u8> = ports.iter().map(|p| p.queue).collect();
        for q in (MAC_QUEUES..eth.soc().caps.tx_queues).filter(|q| !used.contains(q)) {
            assert_eq!(sch(sim, eth, q).0, base, "{name}: queue {q}");
        }
    });
}

#[test]
fn xmit_port_tags_frames_for_the_port_and_counts_refusals() {
    each_board(|name, sim, eth, bed| {
        open(eth);
        let (slow, fast) = (bed.slow, bed.fast);
        sim.attach_switch(usize::from(bed.conduit), &[(slow, 100), (fast, 1000)]);
        let mut stream = TcpStream::bulk(false, None);
        let (a, b) = (stream.next_segment(), stream.next_segment());
        eth.xmit_port(bed.conduit, slow, &a).unwrap();
        eth.xmit_port(bed.conduit, fast, &b).unwrap();
        sim.advance(1_000_000);
        assert_eq!(eth.reclaim(), 2, "{name}");
        let got =
            |port| sim.take_port_sent(usize::from(bed.conduit), port).into_iter().map(|(_, f)| f).collect::<Vec<_>>();
        assert_eq!(got(slow), vec![a.clone()], "{name}: the switch untagged it for port {slow}");
        assert_eq!(got(fast), vec![b], "{name}: port {fast}");
        let before = eth.stats().drops;
        let other = if bed.conduit == 0 { 1 } else { 0 };
        assert_eq!(eth.xmit_port(bed.conduit, 15, &a), Err(TxError::BadQueue), "{name}: no such port");
        assert_eq!(eth.xmit_port(other, slow, &a), Err(TxError::BadQueue), "{name}: port not behind another MAC");
        assert_eq!(
            eth.xmit_port(bed.conduit, slow, &[0u8; 2046]),
            Err(TxError::BadLength),
            "{name}: no room for the tag"
        );
        let after = eth.stats().drops;
        assert_eq!((after.tx_bad_queue - before.tx_bad_queue, after.tx_bad_length - before.tx_bad_length), (2, 1));
        assert_eq!(
            eth.port_link_changed(bed.conduit, 15, None),
            Err(EthError::NoSuchPort { mac: bed.conduit, port: 15 })
        );
        assert!(eth.port_link_changed(other, slow, None).is_err(), "{name}: port not behind another MAC");
    });
}

/// What both ports carried while saturated together.
#[derive(Debug)]
struct TwoPorts {
    slow_mbps: f64,
    fast_mbps: f64,
    /// What the fast port can carry: the 1 Gbit/s MAC's time left by the slow port's frames.
    fast_ref_mbps: f64,
    pause_frames: u64,
}

/// Simulated time of each saturation run.
const RUN_NS: u64 = 300_000_000;
/// Simulated time between driver turns.
const STEP_NS: u64 = 20_000;
/// Frames each port keeps outstanding (driver ring, engine queue, switch buffer): more than the
/// switch's pause threshold, and both together well within the engine's free-queue pages, so
/// neither port's frames block the other's in the shared DMA ring.
const OUTSTANDING: usize = 64;
/// MAC wire bytes of a tagged full-size frame: 1514 + 4 (tag) + FCS, preamble and gap.
const TAGGED_WIRE_BYTES: f64 = 1518.0 + 24.0;

/// Saturates ports `slow` and `fast` behind the conduit at once through `xmit_port`, for
/// [`RUN_NS`]; then drains and checks that every frame reached its port.
fn saturate(name: &str, sim: &Sim, eth: &mut Driver<'_>, bed: Bed) -> TwoPorts {
    let (slow, fast) = (bed.slow, bed.fast);
    let ports = [slow, fast];
    let mut streams = [TcpStream::bulk(false, None), TcpStream::bulk(false, None)];
    let (mut submitted, mut delivered, mut payload, mut last) = ([0usize; 2], [0usize; 2], [0usize; 2], [0u64; 2]);
    let pauses_before = sim.stats().pause_frames;
    let start = sim.now();
    let take = |i: usize, delivered: &mut [usize; 2], payload: &mut [usize; 2], last: &mut [u64; 2]| {
        for (t, f) in sim.take_port_sent(usize::from(bed.conduit), ports[i]) {
            delivered[i] += 1;
            payload[i] += packet::parse(&f).map(|p| p.payload().len()).expect("TCP frame");
            last[i] = t;
        }
    };
    while sim.now() - start < RUN_NS {
        eth.reclaim();
        for i in 0..2 {
            while submitted[i] - delivered[i] < OUTSTANDING {
                eth.xmit_port(bed.conduit, ports[i], &streams[i].next_segment()).unwrap();
                submitted[i] += 1;
            }
        }
        sim.advance(STEP_NS);
        for i in 0..2 {
            take(i, &mut delivered, &mut payload, &mut last);
        }
    }
    let mbps = |i: usize| payload[i] as f64 * 8.0 * 1000.0 / (last[i] - start) as f64;
    let (slow_mbps, fast_mbps) = (mbps(0), mbps(1));
    // Share of the MAC's wire time the slow port's frames took (each goes over the MAC tagged).
    // (1 Gbit/s is one bit a nanosecond.)
    let slow_share = delivered[0] as f64 * TAGGED_WIRE_BYTES * 8.0 / (last[0] - start) as f64;
    // A full-size tagged frame on a 1 Gbit/s MAC carries 1448 payload bytes every 1542 wire bytes.
    let fast_ref_mbps = (1.0 - slow_share) * 1448.0 * 8.0 * 1000.0 / (TAGGED_WIRE_BYTES * 8.0);
    let pause_frames = sim.stats().pause_frames - pauses_before;
    // Drain: every frame queued reaches its port; every buffer comes back.
    sim.advance(50_000_000);
    eth.reclaim();
    for i in 0..2 {
        take(i, &mut delivered, &mut payload, &mut last);
    }
    assert_eq!(delivered, submitted, "{name}: every frame reached its port");
    assert_eq!(eth.tx_room(), fe_driver::eth::TX_RING - 1, "{name}: every TX buffer back");
    assert_eq!(sim.stats().tx_dropped, 0, "{name}");
    let r = TwoPorts { slow_mbps, fast_mbps, fast_ref_mbps, pause_frames };
    println!("{name}: {submitted:?} frames (slow port {slow}, fast port {fast}): {r:?}");
    r
}

/// Opens, runs the conduit at 1 Gbit/s (the bundled BPI-R3's 2500base-x link too, so every
/// board is measured the same way), attaches a switch with a 100 Mbit/s and a 1 Gbit/s port.
fn two_port_bed(sim: &Sim, eth: &mut Driver<'_>, bed: Bed) -> (u8, u8) {
    open(eth);
    eth.link_up(bed.conduit, link(1000)).unwrap();
    sim.set_link_speed(usize::from(bed.conduit), 1000);
    let (slow, fast) = (bed.slow, bed.fast);
    sim.attach_switch(usize::from(bed.conduit), &[(slow, 100), (fast, 1000)]);
    (slow, fast)
}

/// TCP goodput of a saturated 100 Mbit/s port: 1448 payload bytes per 1538 wire bytes.
const SLOW_LIMIT_MBPS: f64 = 100.0 * 1448.0 / 1538.0;

#[test]
fn gigabit_port_keeps_its_rate_next_to_a_shaped_100m_port() {
    each_board(|name, sim, eth, bed| {
        let (slow, fast) = two_port_bed(sim, eth, bed);
        eth.port_link_changed(bed.conduit, slow, Some(100)).unwrap();
        eth.port_link_changed(bed.conduit, fast, Some(1000)).unwrap();
        assert_port(name, sim, eth, slow, Shaping::Shaped { speed: 100 });
        assert_port(name, sim, eth, fast, Shaping::Unshaped);
        let r = saturate(name, sim, eth, bed);
        // The fast port's rate is what the shared 1 Gbit/s MAC can carry for it once the slow
        // port's frames have had their wire time (about 941.5 - 94 Mbit/s, less the tag's 4
        // bytes a frame): "the gigabit port keeps at least 95 % of its rate".
        assert!(
            r.fast_mbps >= 0.95 * r.fast_ref_mbps,
            "{name}: fast port {:.1} Mbit/s < 95 % of {:.1} (pause frames {})",
            r.fast_mbps,
            r.fast_ref_mbps,
            r.pause_frames
        );
        assert!(r.slow_mbps >= 0.9 * SLOW_LIMIT_MBPS, "{name}: slow port {:.1} Mbit/s", r.slow_mbps);
        assert_mac_queues_unshaped(name, sim, eth);
    });
}

#[test]
fn unshaped_slow_port_stalls_the_gigabit_port() {
    each_board(|name, sim, eth, bed| {
        let (slow, fast) = two_port_bed(sim, eth, bed);
        // The driver does not know the slow port's speed: its queue stays at the base value.
        eth.port_link_changed(bed.conduit, slow, None).unwrap();
        eth.port_link_changed(bed.conduit, fast, Some(1000)).unwrap();
        assert_port(name, sim, eth, slow, Shaping::AtLinkUp);
        let r = saturate(name, sim, eth, bed);
        assert!(r.pause_frames > 0, "{name}: the slow port's full buffer pauses the MAC");
        assert!(
            r.fast_mbps < 0.5 * r.fast_ref_mbps,
            "{name}: fast port {:.1} Mbit/s of {:.1}: expected the stall",
            r.fast_mbps,
            r.fast_ref_mbps
        );
    });
}

#[test]
fn decision_follows_port_and_conduit_speed() {
    let fixed_conduits = std::cell::Cell::new(0);
    each_board(|name, sim, eth, bed| {
        // The link-down step needs the device tree's fixed link on the conduit.
        let Some(fixed) = eth.mac(bed.conduit).and_then(|m| m.fixed).map(|l| l.speed) else {
            println!("{name}: skipped, conduit MAC {} has no fixed link", bed.conduit);
            return;
        };
        fixed_conduits.set(fixed_conduits.get() + 1);
        open(eth);
        let (slow, fast) = (bed.slow, bed.fast);
        let shaped = |speed| Shaping::Shaped { speed };
        eth.link_up(bed.conduit, link(1000)).unwrap();
        assert_port(name, sim, eth, slow, Shaping::AtLinkUp);
        eth.port_link_changed(bed.conduit, slow, Some(100)).unwrap();
        assert_port(name, sim, eth, slow, shaped(100));
        eth.port_link_changed(bed.conduit, slow, Some(1000)).unwrap();
        assert_port(name, sim, eth, slow, Shaping::Unshaped);
        eth.port_link_changed(bed.conduit, slow, Some(10)).unwrap();
        assert_port(name, sim, eth, slow, shaped(10));
        eth.port_link_changed(bed.conduit, fast, Some(1000)).unwrap();
        assert_port(name, sim, eth, fast, Shaping::Unshaped);
        // A port faster than the conduit, or at a speed without a rate-table entry: unshaped.
        eth.port_link_changed(bed.conduit, fast, Some(2500)).unwrap();
        assert_port(name, sim, eth, fast, Shaping::Unshaped);
        eth.port_link_changed(bed.conduit, fast, Some(1000)).unwrap();

        // The conduit's link changes: every port behind it is decided again.
        eth.link_up(bed.conduit, link(2500)).unwrap();
        assert_port(name, sim, eth, slow, shaped(10));
        assert_port(name, sim, eth, fast, shaped(1000));
        eth.link_up(bed.conduit, link(100)).unwrap();
        assert_port(name, sim, eth, slow, shaped(10));
        assert_port(name, sim, eth, fast, Shaping::Unshaped);
        eth.link_up(bed.conduit, link(10)).unwrap();
        assert_port(name, sim, eth, slow, Shaping::Unshaped);
        // Link down: the device tree's fixed link stands in.
        eth.link_down(bed.conduit).unwrap();
        let want = if 1000 < fixed { shaped(1000) } else { Shaping::Unshaped };
        assert_port(name, sim, eth, fast, want);
        assert_port(name, sim, eth, slow, shaped(10));
        eth.link_up(bed.conduit, link(1000)).unwrap();
        assert_port(name, sim, eth, fast, Shaping::Unshaped);
        // Unknown again: min rate only.
        eth.port_link_changed(bed.conduit, slow, None).unwrap();
        assert_port(name, sim, eth, slow, Shaping::AtLinkUp);

        // Close and open: decisions survive and are applied again after the base values.
        eth.port_link_changed(bed.conduit, slow, Some(100)).unwrap();
        let report = eth.close().unwrap();
        assert_eq!(report.leaked.total(), 0, "{name}");
        open(eth);
        // `open` restores the fixed link; the decision follows it.
        let want = if 100 < fixed { shaped(100) } else { Shaping::Unshaped };
        assert_port(name, sim, eth, slow, want);
    });
    assert!(fixed_conduits.get() > 0, "no bundled board has a conduit MAC with a fixed link");
}
