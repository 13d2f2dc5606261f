//! When SoftLRO's aggregates leave a poll, through the driver on the simulator (every bundled
//! board): as Linux GRO, they are kept across a poll that used its whole budget and flushed when
//! a poll drains the ring or when they are older than the flush timeout (simulated clock), and a
//! caller that stops coalescing loses nothing.

mod support_sim;

use fe_driver::softlro::{FLUSH_TIMEOUT_NS, FlushReason, MAX_SEGS, SoftLro};
use fe_driver::{Eth, Features, LroMode};
use fe_sim::Sim;
use fe_sim::packet::{self, TcpStream};
use support_sim::{SimPlatform, each_open_board};

/// Payload bytes per segment: small, so the segment cap (not the IP length) ends aggregates.
const SEG: usize = 200;

/// Opens every bundled board with its first enabled MAC's link up and SoftLRO on, and runs `f`.
fn each_board(f: impl Fn(&str, &Sim, &mut Eth<SimPlatform<'_>>, u8)) {
    each_open_board(|name, sim, eth, mac| {
        eth.set_features(Features { lro: LroMode::Soft, ..eth.features() }).unwrap();
        f(name, sim, eth, mac);
    });
}

/// Sends `n` segments of [`SEG`] bytes of `stream` on `mac`'s wire and lets them arrive (time
/// passes only here and where a test advances it); returns their payload.
fn send(sim: &Sim, mac: u8, stream: &mut TcpStream, n: usize) -> Vec<u8> {
    let mut bytes = Vec::new();
    for _ in 0..n {
        let f = stream.next_segment_with(SEG);
        bytes.extend_from_slice(&f[packet::parse(&f).unwrap().payload()]);
        sim.send_to_mac(usize::from(mac), f);
    }
    sim.advance(1_000_000);
    bytes
}

/// What went up: each frame's segment count and payload.
#[derive(Default)]
struct Got {
    segs: Vec<u16>,
    bytes: Vec<u8>,
}

impl Got {
    fn take(&mut self, f: fe_driver::RxFrame<'_>) {
        let p = packet::parse(f.data).expect("delivered frames parse");
        assert_eq!(packet::l4_checksum_ok(f.data), Some(true), "TCP checksum ({} segs)", f.segs);
        self.segs.push(f.segs);
        self.bytes.extend_from_slice(&f.data[p.payload()]);
    }
}

#[test]
fn a_full_budget_poll_keeps_its_aggregates_until_the_ring_drains() {
    each_board(|name, sim, eth, mac| {
        let mut storage = vec![0u8; 4 * 65536];
        let mut lro = SoftLro::new(&mut storage, 4);
        let mut stream = TcpStream::bulk(false, None);
        let sent = send(sim, mac, &mut stream, 100);
        let mut got = Got::default();
        let budget = 32;
        // Polls in a row (no time passes), as NAPI repolls after a full budget.
        let mut polls = vec![];
        loop {
            let n = eth.poll_coalesced(budget, &mut lro, &mut |f| got.take(f));
            polls.push((n, lro.held()));
            if n < budget {
                break;
            }
        }
        assert_eq!(polls.first(), Some(&(budget, 1)), "{name}: held across the first full-budget poll");
        assert_eq!(lro.held(), 0, "{name}: flushed when the ring drained");
        assert_eq!(got.bytes, sent, "{name}: every byte, in order");
        // Aggregates end at the segment cap, not at poll boundaries (they were 32, 32, 32, 4).
        assert_eq!(got.segs, [MAX_SEGS, 100 - MAX_SEGS], "{name}: {polls:?}");
        assert_eq!(lro.stats().flushes(FlushReason::SegmentLimit), 1, "{name}");
        assert_eq!(lro.stats().flushes(FlushReason::PollEnd), 1, "{name}");
    });
}

#[test]
fn an_aggregate_held_across_full_polls_leaves_at_the_flush_timeout() {
    each_board(|name, sim, eth, mac| {
        let mut storage = vec![0u8; 4 * 65536];
        let mut lro = SoftLro::new(&mut storage, 4);
        assert_eq!(lro.flush_timeout(), FLUSH_TIMEOUT_NS);
        let timeout = 30_000;
        lro.set_flush_timeout(timeout);
        let mut stream = TcpStream::bulk(true, None);
        let sent = send(sim, mac, &mut stream, 60);
        let mut got = Got::default();
        let budget = 12;
        // 10 µs of simulated time between polls that each use the whole budget: the aggregate
        // started in the first (at t0) is closed by the poll ending at t0 + 30 µs, the fourth.
        let mut after = vec![];
        loop {
            sim.advance(10_000);
            let n = eth.poll_coalesced(budget, &mut lro, &mut |f| got.take(f));
            after.push(got.segs.clone());
            if n < budget {
                break;
            }
        }
        let empty: Vec<u16> = vec![];
        assert_eq!(after[..3], [empty.clone(), empty.clone(), empty], "{name}: held while younger than 30 µs");
        assert_eq!(after[3], [48], "{name}: closed when 30 µs old");
        // The next one started at the fifth poll and left when the sixth drained the ring.
        assert_eq!(got.segs, [48, 12], "{name}");
        assert_eq!(lro.stats().flushes(FlushReason::Timeout), 1, "{name}");
        assert_eq!(got.bytes, sent, "{name}: every byte, in order");
        assert_eq!(lro.held(), 0, "{name}");
    });
}

#[test]
fn turning_coalescing_off_after_a_full_poll_delivers_what_was_held_first() {
    each_board(|name, sim, eth, mac| {
        let mut storage = vec![0u8; 4 * 65536];
        let mut lro = SoftLro::new(&mut storage, 4);
        let mut stream = TcpStream::bulk(false, None);
        let mut sent = send(sim, mac, &mut stream, 16);
        let mut got = Got::default();
        assert_eq!(eth.poll_coalesced(16, &mut lro, &mut |f| got.take(f)), 16, "{name}");
        assert_eq!((lro.held(), got.segs.len()), (1, 0), "{name}: the aggregate is held");
        eth.set_features(Features { lro: LroMode::Off, ..eth.features() }).unwrap();
        sent.extend(send(sim, mac, &mut stream, 4));
        while eth.poll_coalesced(16, &mut lro, &mut |f| got.take(f)) == 16 {}
        assert_eq!(got.segs, [16, 1, 1, 1, 1], "{name}: the held aggregate first, then frames as received");
        assert_eq!(got.bytes, sent, "{name}: every byte, in order");
        assert_eq!(lro.held(), 0, "{name}");
    });
}

#[test]
fn a_caller_that_stops_polling_after_a_full_poll_flushes_everything() {
    each_board(|name, sim, eth, mac| {
        let mut storage = vec![0u8; 4 * 65536];
        let mut lro = SoftLro::new(&mut storage, 4);
        let mut stream = TcpStream::bulk(false, None);
        let sent = send(sim, mac, &mut stream, 20);
        let mut got = Got::default();
        assert_eq!(eth.poll_coalesced(20, &mut lro, &mut |f| got.take(f)), 20, "{name}");
        assert_eq!(lro.held(), 1, "{name}");
        // The interface closes; polling a closed interface consumes nothing and flushes.
        eth.close().unwrap();
        assert_eq!(eth.poll_coalesced(20, &mut lro, &mut |f| got.take(f)), 0, "{name}");
        assert_eq!((lro.held(), got.segs.as_slice()), (0, &[20][..]), "{name}");
        assert_eq!(got.bytes, sent, "{name}");
    });
}
