//! One board's run: probe, bring-up on the simulator, MAC A's wire crossed to MAC B's (or to a
//! software partner when the board has one MAC), a TCP stream of a checkable pattern between two
//! `smoltcp` interfaces, every byte checked, a summary with counters.

use crate::peer::WirePeer;
use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use fe_driver::adapters::smoltcp::{AdapterStats, SmoltcpEth};
use fe_driver::dt::{self, Duplex};
use fe_driver::{Eth, Features, LinkState};
use fe_sim::Sim;
use fe_sim::driver_platform::SimPlatform;
use smoltcp::iface::{Config, Interface, SocketHandle, SocketSet};
use smoltcp::socket::tcp;
use smoltcp::time::Instant;
use smoltcp::wire::{EthernetAddress, HardwareAddress, IpAddress, IpCidr};

/// Bytes moved per run (1 MiB).
pub const BYTES: usize = 1 << 20;
/// Simulated time between two polls of the interfaces.
pub const STEP_NS: u64 = 10_000;
/// A run that has not finished after this much simulated time fails.
pub const DEADLINE_NS: u64 = 10_000_000_000;
const PORT: u16 = 5000;

/// How one run is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Case {
    /// The driver's RX checksum feature during the run.
    pub rx_checksum: bool,
    /// The driver's TX checksum offload during the run (off: the adapter fills checksums).
    pub tx_checksum: bool,
    /// Corrupt one byte of every n-th data frame on the wire into a MAC (0: none).
    pub corrupt_every: u32,
}

/// The cases the image runs on every board: RX checksum on with a clean wire (the goodput
/// figure), then both checksum offloads off with corrupted frames on the wire (the adapter fills
/// checksums in software and must drop every corrupted frame).
pub const CASES: [Case; 2] = [
    Case { rx_checksum: true, tx_checksum: true, corrupt_every: 0 },
    Case { rx_checksum: false, tx_checksum: false, corrupt_every: 100 },
];

/// What one run measured.
#[derive(Clone, Debug)]
pub struct Report {
    /// Board file name (without `.dts`).
    pub board: String,
    /// SoC name.
    pub soc: &'static str,
    /// The case.
    pub case: Case,
    /// MAC ids: (receiving side, sending side); the sender is `None` for the software partner.
    pub macs: (u8, Option<u8>),
    /// Payload bytes received and checked.
    pub bytes: usize,
    /// Bytes that differed from the pattern.
    pub bad_bytes: usize,
    /// Simulated time from connect to the last byte, ns.
    pub sim_ns: u64,
    /// Frames corrupted on the wire.
    pub corrupted: u64,
    /// The adapter's counters.
    pub adapter: AdapterStats,
    /// Driver: frames delivered checksum-verified / unverified.
    pub verdicts: (u64, u64),
    /// Driver drops (TX, RX).
    pub drops: (u64, u64),
    /// Illegal accesses the simulator saw.
    pub violations: usize,
}

impl Report {
    /// TCP goodput in simulated time, Mbit/s.
    #[must_use]
    pub fn goodput_mbps(&self) -> f64 {
        if self.sim_ns == 0 { 0.0 } else { self.bytes as f64 * 8.0 * 1000.0 / self.sim_ns as f64 }
    }

    /// Whether the run passed: every byte right, every corrupted frame dropped by the adapter (and
    /// no other), no illegal access.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.bad_bytes == 0 && self.violations == 0 && self.adapter.rx_csum_bad == self.corrupted
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = &self.adapter;
        let pair = match self.macs {
            (rx, Some(tx)) => format!("{tx}->{rx}"),
            (rx, None) => format!("peer->{rx}"),
        };
        write!(
            f,
            "fw board={} soc={} macs={} rx_csum={} tx_csum={} bytes={} bad_bytes={} sim_us={} goodput_mbps={:.1} \
             hw_verified={} sw_verified={} csum_bad={} unverifiable={} corrupted={} coalesced={} coalesced_segs={} \
             tx_sw_csum={} drv_verified={} drv_unverified={} drops_tx={} drops_rx={} tx_refused={} violations={} result={}",
            self.board,
            self.soc,
            pair,
            if self.case.rx_checksum { "on" } else { "off" },
            if self.case.tx_checksum { "on" } else { "off" },
            self.bytes,
            self.bad_bytes,
            self.sim_ns / 1000,
            self.goodput_mbps(),
            a.rx_hw_verified,
            a.rx_sw_verified,
            a.rx_csum_bad,
            a.rx_unverifiable,
            self.corrupted,
            a.rx_coalesced,
            a.rx_coalesced_segs,
            a.tx_sw_csum,
            self.verdicts.0,
            self.verdicts.1,
            self.drops.0,
            self.drops.1,
            a.tx_refused,
            self.violations,
            if self.passed() { "PASS" } else { "FAIL" },
        )
    }
}

/// The byte at offset `i` of the stream.
fn pattern(i: usize) -> u8 {
    (i ^ (i >> 8) ^ (i >> 16).wrapping_mul(7)) as u8
}

/// One end of the TCP connection: a MAC through the adapter, or the software partner.
enum End<'s> {
    Port(u8),
    Peer(WirePeer<'s>),
}

type Adapter<'s> = SmoltcpEth<SimPlatform<'s>>;

fn iface(end: &mut End<'_>, eth: &mut Adapter<'_>, ip: [u8; 4], now: Instant) -> Result<Interface, String> {
    let mac = EthernetAddress([0x02, 0xfe, 0, 0, 0, ip[3]]);
    let mut config = Config::new(HardwareAddress::Ethernet(mac));
    config.random_seed = u64::from(ip[3]);
    let mut i = match end {
        End::Port(m) => Interface::new(config, &mut eth.port(*m), now),
        End::Peer(p) => Interface::new(config, p, now),
    };
    let mut pushed = Ok(());
    i.update_ip_addrs(|a| pushed = a.push(IpCidr::new(IpAddress::v4(ip[0], ip[1], ip[2], ip[3]), 24)));
    pushed.map_err(|_| String::from("no room for an IP address"))?;
    Ok(i)
}

fn poll(end: &mut End<'_>, eth: &mut Adapter<'_>, i: &mut Interface, set: &mut SocketSet<'_>, now: Instant) {
    match end {
        End::Port(m) => {
            i.poll(now, &mut eth.port(*m), set);
        }
        End::Peer(p) => {
            p.collect();
            i.poll(now, p, set);
        }
    }
}

fn socket() -> tcp::Socket<'static> {
    let mut s =
        tcp::Socket::new(tcp::SocketBuffer::new(vec![0; 64 * 1024]), tcp::SocketBuffer::new(vec![0; 64 * 1024]));
    s.set_nagle_enabled(false);
    s.set_ack_delay(None);
    s
}

/// Puts `frame` on the wire into MAC `mac`, corrupting one payload byte of every
/// `case.corrupt_every`-th full-size frame.
fn deliver(sim: &Sim, mac: usize, mut frame: Vec<u8>, case: Case, seen: &mut u64, corrupted: &mut u64) {
    if case.corrupt_every > 0 && frame.len() > 1000 {
        *seen += 1;
        if seen.is_multiple_of(u64::from(case.corrupt_every)) {
            let last = frame.len() - 1;
            frame[last] ^= 0x5a;
            *corrupted += 1;
        }
    }
    sim.send_to_mac(mac, frame);
}

/// Runs one board: `dtb` is its compiled device tree, `board` its name for the report;
/// `bytes` bytes go from one end to the other.
pub fn run_board(board: &str, dtb: &[u8], case: Case, bytes: usize) -> Result<Report, String> {
    let plat = dt::probe(dtb).map_err(|e| format!("{board}: probe: {e}"))?;
    let soc = plat.soc;
    let sim = Sim::for_board(&plat);
    for m in plat.enabled_macs() {
        if let Some(speed) = m.link.fixed_speed() {
            sim.set_link_speed(usize::from(m.id), speed);
        }
    }
    let mut eth = Eth::new(&plat, SimPlatform(&sim)).map_err(|e| format!("{board}: {e}"))?;
    eth.open().map_err(|e| format!("{board}: open: {e}"))?;
    eth.set_features(Features {
        rx_checksum: case.rx_checksum,
        tx_checksum: case.tx_checksum,
        tso: false,
        ..eth.features()
    })
    .map_err(|e| format!("{board}: features: {e}"))?;
    // A MAC without a fixed link (SFP cage, PHY) comes up when its partner answers, at the
    // PHY mode's natural speed, as in `fe run`.
    for m in plat.enabled_macs().filter(|m| m.link.fixed_speed().is_none()) {
        let speed = match m.phy_mode {
            "2500base-x" => 2500,
            "mii" | "rmii" => 100,
            _ => 1000,
        };
        sim.set_link_speed(usize::from(m.id), speed);
        eth.link_up(m.id, LinkState { speed, duplex: Duplex::Full, pause: true })
            .map_err(|e| format!("{board}: link up mac {}: {e}", m.id))?;
    }
    let macs: Vec<u8> = eth.enabled_macs().filter(|m| m.link.is_some()).map(|m| m.id).collect();
    // Two MACs: the first sends, the second receives, wires crossed. One MAC: a software partner
    // on its wire sends, so the data still crosses the driver's RX path.
    let (mut a, mut b, pair) = match macs.as_slice() {
        [] => return Err(format!("{board}: no enabled MAC with a link")),
        [only] => (End::Peer(WirePeer::new(&sim, usize::from(*only))), End::Port(*only), (*only, None)),
        [x, y, ..] => (End::Port(*x), End::Port(*y), (*y, Some(*x))),
    };
    let mut eth = SmoltcpEth::new(eth);
    let t = |sim: &Sim| Instant::from_micros((sim.now() / 1000) as i64);
    let mut if_a = iface(&mut a, &mut eth, [10, 0, 0, 1], t(&sim))?;
    let mut if_b = iface(&mut b, &mut eth, [10, 0, 0, 2], t(&sim))?;
    let mut set_a = SocketSet::new(vec![]);
    let mut set_b = SocketSet::new(vec![]);
    let client: SocketHandle = set_a.add(socket());
    let server: SocketHandle = set_b.add(socket());
    set_b.get_mut::<tcp::Socket>(server).listen(PORT).map_err(|e| format!("{board}: listen: {e:?}"))?;
    set_a
        .get_mut::<tcp::Socket>(client)
        .connect(if_a.context(), (IpAddress::v4(10, 0, 0, 2), PORT), 49152)
        .map_err(|e| format!("{board}: connect: {e:?}"))?;

    let start = sim.now();
    let (mut sent, mut got, mut bad, mut closed) = (0usize, 0usize, 0usize, false);
    let (mut seen, mut corrupted) = (0u64, 0u64);
    while got < bytes {
        if sim.now() - start > DEADLINE_NS {
            return Err(format!(
                "{board}: timeout after {} ms simulated: {sent} bytes sent, {got} received, client {}, server {}; \
                 adapter {:?}; driver {:?}; simulator {:?}",
                DEADLINE_NS / 1_000_000,
                set_a.get::<tcp::Socket>(client).state(),
                set_b.get::<tcp::Socket>(server).state(),
                eth.stats(),
                eth.eth().stats(),
                sim.stats(),
            ));
        }
        let c = set_a.get_mut::<tcp::Socket>(client);
        if c.can_send() && sent < bytes {
            let n = c
                .send(|buf| {
                    let n = buf.len().min(bytes - sent);
                    for (k, x) in buf[..n].iter_mut().enumerate() {
                        *x = pattern(sent + k);
                    }
                    (n, n)
                })
                .map_err(|e| format!("{board}: send: {e:?}"))?;
            sent += n;
        }
        if sent == bytes && !closed {
            c.close();
            closed = true;
        }
        let s = set_b.get_mut::<tcp::Socket>(server);
        while s.can_recv() {
            let n = s
                .recv(|buf| {
                    bad += buf.iter().enumerate().filter(|&(k, &x)| x != pattern(got + k)).count();
                    (buf.len(), buf.len())
                })
                .map_err(|e| format!("{board}: recv: {e:?}"))?;
            got += n;
        }
        let now = t(&sim);
        poll(&mut a, &mut eth, &mut if_a, &mut set_a, now);
        poll(&mut b, &mut eth, &mut if_b, &mut set_b, now);
        // The wires: A's frames into B and B's into A (or the partner's into its MAC).
        match (&mut a, pair.1) {
            (End::Port(x), Some(_)) => {
                let (x, y) = (usize::from(*x), usize::from(pair.0));
                for (_, f) in sim.take_sent(x) {
                    deliver(&sim, y, f, case, &mut seen, &mut corrupted);
                }
                for (_, f) in sim.take_sent(y) {
                    deliver(&sim, x, f, case, &mut seen, &mut corrupted);
                }
            }
            (End::Peer(p), _) => {
                for f in p.take_out() {
                    deliver(&sim, p.mac(), f, case, &mut seen, &mut corrupted);
                }
            }
            _ => {}
        }
        sim.advance(STEP_NS);
        eth.eth_mut().reclaim();
    }
    let sim_ns = sim.now() - start;
    let drv = eth.eth().stats();
    let report = Report {
        board: board.into(),
        soc: soc.name,
        case,
        macs: pair,
        bytes: got,
        bad_bytes: bad,
        sim_ns,
        corrupted,
        adapter: eth.stats(),
        verdicts: (drv.rx_csum_verified, drv.rx_csum_unverified),
        drops: (drv.drops.tx_total(), drv.drops.rx_total()),
        violations: sim.violations().len(),
    };
    eth.into_inner().close().map_err(|e| format!("{board}: close: {e}"))?;
    Ok(report)
}

/// Runs every case on every embedded board, printing one line per run to `out`; returns how
/// many runs failed.
pub fn run_all(out: &mut dyn fmt::Write, bytes: usize) -> usize {
    let mut failed = 0;
    for &(board, dtb) in crate::boards::BOARDS {
        for case in CASES {
            match run_board(board, dtb, case, bytes) {
                Ok(r) => {
                    failed += usize::from(!r.passed());
                    let _ = writeln!(out, "{r}");
                }
                Err(e) => {
                    failed += 1;
                    let _ = writeln!(out, "fw board={board} result=FAIL error=\"{e}\"");
                }
            }
        }
    }
    let _ = writeln!(out, "fw summary runs={} failed={failed}", crate::boards::BOARDS.len() * CASES.len());
    failed
}
