//! SoftLRO through the driver, on the simulator, against random traffic: interleaved flows,
//! losses, retransmissions, short and pushed segments, moved ACKs and timestamps, other
//! protocols, any poll budget. Every flow's bytes come up exactly as they were sent, in order
//! and each at its own sequence number (a merge across a loss would keep the order), every frame is counted once, and every delivered frame's checksums are correct. This covers
//! the driver's own fast path (the run held by the poll loop), which `softlro.rs`'s proptest of
//! `SoftLro::push` does not reach.

mod support_sim;

use fe_driver::softlro::SoftLro;
use fe_driver::{Eth, Features, LroMode};
use fe_sim::Sim;
use fe_sim::packet::{self, TcpSpec, UdpSpec};
use proptest::prelude::*;
use std::collections::BTreeMap;
use support_sim::{SimPlatform, boards, probe};

/// What happens next on the wire.
#[derive(Clone, Copy, Debug)]
enum Op {
    /// The flow's next full segment.
    Next(usize),
    /// Its next segment with PSH.
    Push(usize),
    /// A short one.
    Short(usize),
    /// A segment lost before the wire (the flow skips it).
    Lose(usize),
    /// The last segment again (a retransmission).
    Again(usize),
    /// The next one acknowledges more and carries a newer TSecr.
    Moved(usize),
    /// A UDP datagram between the same hosts.
    Udp,
}

fn op() -> impl Strategy<Value = Op> {
    let flow = 0usize..3;
    prop_oneof![
        6 => flow.clone().prop_map(Op::Next),
        1 => flow.clone().prop_map(Op::Push),
        1 => flow.clone().prop_map(Op::Short),
        1 => flow.clone().prop_map(Op::Lose),
        1 => flow.clone().prop_map(Op::Again),
        1 => flow.prop_map(Op::Moved),
        1 => Just(Op::Udp),
    ]
}

/// One flow's sender state.
struct Flow {
    spec: TcpSpec,
    last: Option<Vec<u8>>,
}

impl Flow {
    fn new(n: usize, ipv6: bool) -> Flow {
        let spec = TcpSpec {
            ipv6,
            src_port: 40000 + n as u16,
            seq: 1000 * n as u32,
            timestamp: Some((100, 7)),
            payload_seed: n as u32,
            ..TcpSpec::default()
        };
        Flow { spec, last: None }
    }

    /// The next segment of `len` payload bytes with `flags`; advances the flow.
    fn segment(&mut self, len: usize, flags: u8) -> Vec<u8> {
        let mss = if self.spec.ipv6 { 1428 } else { 1448 };
        self.spec.payload_len = len.min(mss);
        self.spec.flags = flags;
        let f = packet::build_tcp(&self.spec);
        self.spec.seq = self.spec.seq.wrapping_add(self.spec.payload_len as u32);
        self.spec.ip_id = self.spec.ip_id.wrapping_add(1);
        if let Some((v, e)) = self.spec.timestamp {
            self.spec.timestamp = Some((v + 1, e));
        }
        self.last = Some(f.clone());
        f
    }
}

/// One bundled board per SoC of `fe_regs::SOCS` (the first in file order), device trees compiled
/// once: the property draws a SoC, so every SoC's receive path is covered whatever the number of
/// boards each has.
fn boards_once() -> &'static [(&'static str, Vec<u8>)] {
    static BOARDS: std::sync::OnceLock<Vec<(&'static str, Vec<u8>)>> = std::sync::OnceLock::new();
    BOARDS.get_or_init(|| {
        let all = boards();
        let per_soc: Vec<_> = fe_regs::SOCS
            .iter()
            .filter_map(|soc| all.iter().find(|(name, dtb)| probe(name, dtb).soc.name == soc.name).cloned())
            .collect();
        assert_eq!(per_soc.len(), fe_regs::SOCS.len(), "a SoC without a bundled board");
        per_soc
    })
}

/// Runs `ops` through a freshly opened board with SoftLRO on, polling `budget` at a time.
fn run(name: &str, dtb: &[u8], ops: &[Op], budget: usize, ipv6: bool) {
    let board = probe(name, dtb);
    let sim = Sim::for_board(&board);
    let mut eth = Eth::new(&board, SimPlatform(&sim)).expect(name);
    eth.open().expect(name);
    let mac = eth.enabled_macs().next().unwrap().id;
    if eth.mac(mac).unwrap().link.is_none() {
        let up = fe_driver::LinkState { speed: 1000, duplex: fe_driver::dt::Duplex::Full, pause: true };
        eth.link_up(mac, up).unwrap();
    }
    eth.set_features(Features { lro: LroMode::Soft, ..eth.features() }).unwrap();
    let mut storage = vec![0u8; 4 * 65536];
    let mut lro = SoftLro::new(&mut storage, 4);
    let mut flows: Vec<Flow> = (0..3).map(|n| Flow::new(n, ipv6)).collect();
    let udp = packet::build_udp(&UdpSpec { ipv6, payload_len: 80, ..Default::default() });
    // What each flow sent, by source port, and what came up.
    let (mut sent, mut got) = (BTreeMap::<u16, Vec<u8>>::new(), BTreeMap::<u16, Vec<u8>>::new());
    let (mut frames, mut udp_up, mut udp_sent) = (0u64, 0, 0);
    let deliver = |d: &[u8], segs: u16, got: &mut BTreeMap<u16, Vec<u8>>, udp_up: &mut usize| {
        let p = packet::parse(d).expect("delivered frames parse");
        match p.tcp {
            Some(t) => {
                assert_ne!(packet::ipv4_checksum_ok(d), Some(false), "{name}: IPv4 header checksum");
                assert_eq!(packet::l4_checksum_ok(d), Some(true), "{name}: TCP checksum ({segs} segs)");
                // Each byte sits at its own sequence number: nothing merged across a gap.
                let seed = u32::from(t.src_port - 40000);
                assert!(packet::payload_matches(&d[p.payload()], seed, t.seq), "{name}: payload at seq {}", t.seq);
                got.entry(t.src_port).or_default().extend_from_slice(&d[p.payload()]);
            }
            None => *udp_up += 1,
        }
    };
    let poll = |eth: &mut Eth<SimPlatform<'_>>,
                lro: &mut SoftLro<'_>,
                got: &mut BTreeMap<u16, Vec<u8>>,
                udp_up: &mut usize| {
        sim.advance(2_000_000);
        while eth.poll_coalesced(budget, lro, &mut |f| deliver(f.data, f.segs, got, udp_up)) == budget {}
        assert_eq!(lro.held(), 0, "{name}: nothing held past a poll");
    };
    let before = eth.stats().mac[usize::from(mac)].rx_frames;
    for (k, op) in ops.iter().enumerate() {
        let frame = match *op {
            Op::Next(n) => Some((n, flows[n].segment(1448, packet::TCP_ACK))),
            Op::Push(n) => Some((n, flows[n].segment(1448, packet::TCP_ACK | packet::TCP_PSH))),
            Op::Short(n) => Some((n, flows[n].segment(300, packet::TCP_ACK))),
            Op::Lose(n) => {
                flows[n].segment(1448, packet::TCP_ACK);
                None
            }
            Op::Again(n) => flows[n].last.clone().map(|f| (n, f)),
            Op::Moved(n) => {
                flows[n].spec.ack = flows[n].spec.ack.wrapping_add(1000);
                flows[n].spec.timestamp = flows[n].spec.timestamp.map(|(v, e)| (v, e + 1));
                Some((n, flows[n].segment(1448, packet::TCP_ACK)))
            }
            Op::Udp => {
                udp_sent += 1;
                frames += 1;
                sim.send_to_mac(usize::from(mac), udp.clone());
                None
            }
        };
        if let Some((n, f)) = frame {
            let p = packet::parse(&f).unwrap();
            sent.entry(flows[n].spec.src_port).or_default().extend_from_slice(&f[p.payload()]);
            frames += 1;
            sim.send_to_mac(usize::from(mac), f);
        }
        // Poll before the ring (256) could fill.
        if k % 150 == 149 {
            poll(&mut eth, &mut lro, &mut got, &mut udp_up);
        }
    }
    poll(&mut eth, &mut lro, &mut got, &mut udp_up);
    assert_eq!(got, sent, "{name}: every flow's bytes, in order");
    assert_eq!(udp_up, udp_sent, "{name}: other protocols pass");
    assert_eq!(eth.stats().mac[usize::from(mac)].rx_frames - before, frames, "{name}: every frame counted once");
    assert_eq!(lro.stats().frames_in, frames, "{name}: SoftLRO saw every frame once");
    assert!(sim.violations().is_empty(), "{name}: {:?}", sim.violations());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn every_flow_comes_up_whole_and_in_order(
        ops in proptest::collection::vec(op(), 1..400),
        budget in 1usize..80,
        ipv6 in any::<bool>(),
        soc in 0usize..boards_once().len(),
    ) {
        let (name, dtb) = &boards_once()[soc];
        run(name, dtb, &ops, budget, ipv6);
    }
}
