//! The main job: bring the driver core up on the simulator for a board, push bulk TCP both ways
//! with RX checksum on or off and receive coalescing off, soft or hw, and report goodput
//! (simulated time), host cost, checksum verdicts and frames per aggregate.
//!
//! By default the driver polls RX every [`POLL_NS`] of simulated time and reclaims TX when the
//! ring fills. With [`Drive::Irq`] (`fe run --irq`) both directions run only from the model's
//! interrupts, NAPI style: on an RX interrupt the handler masks it, the poll loop runs to budget
//! until a poll returns less than the budget, then unmasks; TX is reclaimed only on its interrupt.

use fe_driver::dt;
use fe_driver::dt::Duplex;
use fe_driver::eth::{Eth, Features, LinkState, LroMode};
use fe_driver::frame::RxChecksum;
use fe_driver::softlro::SoftLro;
use fe_regs::caps::IrqLayout;
use fe_sim::Sim;
use fe_sim::driver_platform::SimPlatform;
use fe_sim::packet::{self, TcpStream};
use serde_json::{Value, json};
use std::time::Instant;

/// Frames sent in each direction per MAC.
pub const FRAMES: usize = 4000;
/// Simulated time between two RX polls (interrupt moderation): about 8 full frames at 1 Gbit/s.
pub const POLL_NS: u64 = 100_000;
/// Simulated time between two looks at the interrupt lines in [`Drive::Irq`] runs.
pub const IRQ_STEP_NS: u64 = 1_000;
/// NAPI budget: frames one RX poll may deliver.
pub const BUDGET: usize = 64;
/// One in this many received frames carries a bad TCP checksum.
pub const BAD_EVERY: usize = 50;

/// What one direction of one MAC measured.
#[derive(Clone, Debug, Default)]
pub struct Direction {
    /// Frames that made it (TX: on the wire; RX: delivered to the stack).
    pub frames: u64,
    /// TCP payload goodput in simulated time, Mbit/s.
    pub goodput_mbps: f64,
    /// Host nanoseconds per frame (driver and model together).
    pub host_ns_per_frame: f64,
    /// Host nanoseconds per KB of payload.
    pub host_ns_per_kb: f64,
    /// RX: frames delivered as checksum-verified.
    pub verified: u64,
    /// RX: frames delivered unverified (the stack checks them).
    pub unverified: u64,
    /// RX: TCP segments those frames carry (more than `frames` when coalesced).
    pub segments: u64,
    /// Interrupts of this direction the driver handled ([`Drive::Irq`] runs; 0 when polling).
    pub irqs: u64,
}

impl Direction {
    /// Segments per delivered frame (1.0 without coalescing).
    #[must_use]
    pub fn per_aggregate(&self) -> f64 {
        if self.frames == 0 { 0.0 } else { self.segments as f64 / self.frames as f64 }
    }

    /// Interrupts per frame that made it.
    #[must_use]
    pub fn irqs_per_frame(&self) -> f64 {
        if self.frames == 0 { 0.0 } else { self.irqs as f64 / self.frames as f64 }
    }
}

/// How a run drives the driver.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Drive {
    /// RX polled every [`POLL_NS`], TX reclaimed when the ring is full (the default).
    Poll,
    /// Only from the model's interrupts, NAPI style.
    Irq {
        /// Interrupt moderation as the SoC's YAML gives it (on) or off (every completion interrupts).
        moderation: bool,
    },
}

/// SoftLRO flows the run's coalescer holds (64 KiB each).
pub const LRO_FLOWS: usize = 8;

/// The coalescing modes a SoC offers: off, soft, and hw where its YAML has hardware LRO.
#[must_use]
pub fn lro_modes(soc: &fe_regs::SocInfo) -> Vec<LroMode> {
    let mut m = vec![LroMode::Off, LroMode::Soft];
    if soc.caps.hw_lro.is_some() {
        m.push(LroMode::Hw);
    }
    m
}

/// The name `ethtool`-style output and the CLI use for a mode.
#[must_use]
pub fn lro_name(m: LroMode) -> &'static str {
    match m {
        LroMode::Off => "off",
        LroMode::Soft => "soft",
        LroMode::Hw => "hw",
    }
}

/// One MAC's results.
#[derive(Clone, Debug)]
pub struct MacResult {
    /// MAC id.
    pub id: u8,
    /// Final value of the MAC's GDMA forwarding register (RX checksum bits included).
    pub gdma_fwd_cfg: u32,
    /// The interface (`phy-mode`) the MAC's path was set up for.
    pub interface: &'static str,
    /// The path-setup writes the driver made for it, each with the register read back after the run.
    pub path_setup: Vec<(fe_regs::caps::PathWrite, u32)>,
    /// Driver to wire.
    pub tx: Direction,
    /// Wire to driver.
    pub rx: Direction,
}

/// One run of one board.
#[derive(Clone, Debug)]
pub struct Report {
    /// SoC name.
    pub soc: &'static str,
    /// Board file name.
    pub board: String,
    /// RX checksum feature during the run.
    pub rx_checksum: bool,
    /// Receive coalescing during the run.
    pub lro: LroMode,
    /// Per MAC with a link.
    pub macs: Vec<MacResult>,
    /// Driver drop counters by cause, as `ethtool -S`-like pairs.
    pub drops: Vec<(String, u64)>,
    /// Illegal accesses the model saw (must be 0).
    pub violations: usize,
    /// How the run drove the driver.
    pub drive: Drive,
    /// Interrupts the driver took that had no cause pending.
    pub spurious_irqs: u64,
}

fn goodput(payload_bytes: u64, ns: u64) -> f64 {
    if ns == 0 { 0.0 } else { payload_bytes as f64 * 8.0 / ns as f64 * 1000.0 }
}

/// Brings the driver up on `sim` for the probed board `plat` (named `board` in errors): fixed links at their speed, open, and every MAC without a fixed link (an SFP
/// cage, a PHY) linked up at its PHY mode's natural speed.
pub fn bring_up<'a>(board: &str, plat: &dt::Board<'_>, sim: &'a Sim) -> Result<Eth<SimPlatform<'a>>, String> {
    for m in plat.enabled_macs() {
        if let Some(speed) = m.link.fixed_speed() {
            sim.set_link_speed(m.id as usize, speed);
        }
    }
    let mut eth = Eth::new(plat, SimPlatform(sim)).map_err(|e| format!("{board}: {e}"))?;
    eth.open().map_err(|e| format!("{board}: open: {e}"))?;
    for m in plat.enabled_macs().filter(|m| m.link.fixed_speed().is_none()) {
        let speed = match m.phy_mode {
            "2500base-x" => 2500,
            "mii" | "rmii" => 100,
            _ => 1000,
        };
        sim.set_link_speed(m.id as usize, speed);
        eth.link_up(m.id, LinkState { speed, duplex: Duplex::Full, pause: true })
            .map_err(|e| format!("{board}: link up mac {}: {e}", m.id))?;
    }
    Ok(eth)
}

/// Runs one board: `dtb` is the compiled device tree, `board` its name for the report.
pub fn run(board: &str, dtb: &[u8], rx_checksum: bool, lro: LroMode) -> Result<Report, String> {
    run_with(board, dtb, rx_checksum, lro, Drive::Poll)
}

/// [`run`], driving the driver as `drive` says.
pub fn run_with(board: &str, dtb: &[u8], rx_checksum: bool, lro: LroMode, drive: Drive) -> Result<Report, String> {
    let plat = dt::probe(dtb).map_err(|e| format!("{board}: {e}"))?;
    let soc = plat.soc;
    let sim = Sim::for_board(&plat);
    let mut eth = bring_up(board, &plat, &sim)?;
    if drive == (Drive::Irq { moderation: false }) {
        eth.set_irq_moderation(None);
    }
    eth.set_features(Features { rx_checksum, lro, ..eth.features() })
        .map_err(|e| format!("{board}: features rx-csum {rx_checksum} lro {}: {e}", lro_name(lro)))?;
    let macs: Vec<u8> = eth.enabled_macs().filter(|m| m.link.is_some()).map(|m| m.id).collect();
    let mut results = Vec::new();
    for &mac in &macs {
        let (tx, rx) = match drive {
            Drive::Poll => (
                tx_run(&sim, &mut eth, mac),
                rx_run(&sim, &mut eth, mac).map_err(|e| format!("{board}: mac {mac}: {e}"))?,
            ),
            Drive::Irq { .. } => {
                let mut n = Napi::new(soc.caps.irq.layout);
                let tx = n.tx_run(&sim, &mut eth, mac);
                (tx, n.rx_run(&sim, &mut eth, mac).map_err(|e| format!("{board}: mac {mac}: {e}"))?)
            }
        };
        let fwd = soc
            .fe
            .gdma
            .at(mac as usize)
            .map_or(0, |g| fe_regs::bus::Bus::read32(&sim.fe(), g.fwd_cfg.offset() as usize));
        let interface = eth.mac(mac).map_or("", |m| m.interface);
        let path_setup = soc.caps.path_setup_for(mac, interface).map_or(&[][..], |p| p.writes);
        let path_setup = path_setup
            .iter()
            .map(|w| (*w, sim.space(w.space).map_or(0, |b| fe_regs::bus::Bus::read32(&b, w.offset as usize))))
            .collect();
        results.push(MacResult { id: mac, gdma_fwd_cfg: fwd, interface, path_setup, tx, rx });
    }
    let d = eth.stats().drops;
    let drops = vec![
        ("tx_drop_ring_full".to_string(), d.tx_ring_full),
        ("tx_drop_link_down".to_string(), d.tx_link_down),
        ("tx_drop_bad_length".to_string(), d.tx_bad_length),
        ("rx_drop_errors".to_string(), d.rx_total()),
    ];
    let report = Report {
        soc: soc.name,
        board: board.to_string(),
        rx_checksum,
        lro,
        macs: results,
        drops,
        violations: sim.violations().len(),
        drive,
        spurious_irqs: eth.stats().irq_spurious,
    };
    eth.close().map_err(|e| format!("{board}: close: {e}"))?;
    Ok(report)
}

fn tx_run(sim: &Sim, eth: &mut Eth<SimPlatform<'_>>, mac: u8) -> Direction {
    let mut stream = TcpStream::bulk(false, None);
    let queue = eth.queue_for_mac(mac);
    let _ = sim.take_sent(mac as usize);
    let host = Instant::now();
    let mut sent = 0;
    while sent < FRAMES {
        let f = stream.next_segment();
        loop {
            if eth.tx_room() > 0 && eth.xmit(mac, queue, &f).is_ok() {
                sent += 1;
                break;
            }
            sim.advance(10_000);
            eth.reclaim();
        }
    }
    sim.advance(10_000_000);
    eth.reclaim();
    let host_ns = host.elapsed().as_nanos() as f64;
    wire_direction(sim, eth, mac, host_ns)
}

/// TX figures from what MAC `mac` put on its wire.
fn wire_direction(sim: &Sim, eth: &Eth<SimPlatform<'_>>, mac: u8, host_ns: f64) -> Direction {
    let frames = sim.take_sent(mac as usize);
    let payload: u64 = frames.iter().filter_map(|(_, f)| packet::parse(f).map(|p| p.payload_len as u64)).sum();
    let span = match (frames.first(), frames.last()) {
        (Some(a), Some(b)) => b.0 - (a.0 - fe_sim::wire::frame_time_ns(a.1.len(), link_speed(eth, mac))),
        _ => 0,
    };
    Direction {
        frames: frames.len() as u64,
        goodput_mbps: goodput(payload, span),
        host_ns_per_frame: host_ns / frames.len().max(1) as f64,
        host_ns_per_kb: host_ns / (payload as f64 / 1024.0).max(1.0),
        ..Direction::default()
    }
}

fn link_speed(eth: &Eth<SimPlatform<'_>>, mac: u8) -> u32 {
    eth.mac(mac).and_then(|m| m.link).map_or(1000, |l| l.speed)
}

/// The bulk stream the link partner sends to MAC `mac`, with a hardware-LRO rule for it when
/// hardware LRO is on.
fn rx_stream(eth: &mut Eth<SimPlatform<'_>>, mac: u8) -> Result<TcpStream, fe_driver::EthError> {
    let stream = TcpStream::bulk(false, None);
    if eth.features().lro == LroMode::Hw {
        // Like `ethtool -N ethX flow-type tcp4 dst-ip A loc 0`: the stream's destination.
        let first = stream.clone().next_segment();
        let dst = packet::parse(&first).and_then(|p| p.ip).map(|ip| [ip.dst[0], ip.dst[1], ip.dst[2], ip.dst[3]]);
        eth.set_lro_rule(mac, 0, dst)?;
    }
    Ok(stream)
}

/// The link partner sends every frame back to back at line rate, one in [`BAD_EVERY`] with a
/// bad TCP checksum.
fn send_rx_frames(sim: &Sim, mac: u8, stream: &mut TcpStream) {
    for i in 1..=FRAMES {
        let mut f = stream.next_segment();
        if i % BAD_EVERY == 0 {
            packet::set_bad_l4_checksum(&mut f);
        }
        sim.send_to_mac(mac as usize, f);
    }
}

/// Counts one delivered frame (or aggregate) into `d` and its TCP payload into `payload`.
fn count_rx(d: &mut Direction, payload: &mut u64, f: &fe_driver::frame::RxFrame<'_>) {
    d.frames += 1;
    d.segments += u64::from(f.segs);
    *payload += packet::parse(f.data).map_or(0, |p| p.payload_len as u64);
    match f.checksum {
        RxChecksum::Verified => d.verified += 1,
        RxChecksum::Unverified => d.unverified += 1,
    }
}

fn rx_run(sim: &Sim, eth: &mut Eth<SimPlatform<'_>>, mac: u8) -> Result<Direction, fe_driver::EthError> {
    let mut stream = rx_stream(eth, mac)?;
    let mut storage = vec![0u8; LRO_FLOWS * 65536];
    let mut lro = SoftLro::new(&mut storage, LRO_FLOWS);
    let host = Instant::now();
    let start = sim.now();
    let mut d = Direction::default();
    let mut payload = 0u64;
    let mut last_delivery = start;
    // The link partner sends every frame back to back at line rate; the driver polls as NAPI
    // would under interrupt moderation, every POLL_NS with a budget of 64.
    send_rx_frames(sim, mac, &mut stream);
    let mut idle = 0;
    while idle < 100 {
        sim.advance(POLL_NS);
        let now = sim.now();
        let n = eth.poll_coalesced(BUDGET, &mut lro, &mut |f| {
            count_rx(&mut d, &mut payload, &f);
            last_delivery = now;
        });
        idle = if n == 0 { idle + 1 } else { 0 };
    }
    let host_ns = host.elapsed().as_nanos() as f64;
    d.goodput_mbps = goodput(payload, last_delivery - start);
    d.host_ns_per_frame = host_ns / d.frames.max(1) as f64;
    d.host_ns_per_kb = host_ns / (payload as f64 / 1024.0).max(1.0);
    Ok(d)
}

/// NAPI-style driving from the model's interrupt lines: the lines to watch and what their
/// interrupts did.
struct Napi {
    /// Line(s) to look at: the shared line once, or the TX and RX lines.
    lines: Vec<u8>,
    /// RX interrupts handled so far.
    rx_irqs: u64,
    /// TX interrupts handled so far.
    tx_irqs: u64,
}

impl Napi {
    fn new(layout: IrqLayout) -> Self {
        let lines = match layout {
            IrqLayout::Shared { line } => vec![line],
            IrqLayout::Split { tx, rx } => vec![tx, rx],
        };
        Napi { lines, rx_irqs: 0, tx_irqs: 0 }
    }

    /// Advances simulated time one step and serves every asserted line: the handler masks its
    /// causes, RX is polled to budget until a poll returns less than the budget, TX is
    /// reclaimed, then the causes are unmasked. Returns the frames delivered.
    fn step(
        &mut self,
        sim: &Sim,
        eth: &mut Eth<SimPlatform<'_>>,
        lro: &mut SoftLro<'_>,
        deliver: &mut dyn FnMut(&fe_driver::frame::RxFrame<'_>),
    ) -> usize {
        sim.advance(IRQ_STEP_NS);
        let mut got = 0;
        for &line in &self.lines {
            if !sim.irq(line) {
                continue;
            }
            let work = eth.irq(line);
            if work.rx {
                self.rx_irqs += 1;
                loop {
                    let n = eth.poll_coalesced(BUDGET, lro, &mut |f| deliver(&f));
                    got += n;
                    if n < BUDGET {
                        break;
                    }
                }
            }
            if work.tx {
                self.tx_irqs += 1;
                eth.reclaim();
            }
            eth.irq_enable(work);
        }
        got
    }

    /// [`tx_run`] with TX reclaimed only on TX interrupts.
    fn tx_run(&mut self, sim: &Sim, eth: &mut Eth<SimPlatform<'_>>, mac: u8) -> Direction {
        let mut stream = TcpStream::bulk(false, None);
        let queue = eth.queue_for_mac(mac);
        let _ = sim.take_sent(mac as usize);
        let mut storage = vec![0u8; 65536];
        let mut lro = SoftLro::new(&mut storage, 1);
        let irqs_before = self.tx_irqs;
        let host = Instant::now();
        let mut sent = 0;
        while sent < FRAMES {
            let f = stream.next_segment();
            while !(eth.tx_room() > 0 && eth.xmit(mac, queue, &f).is_ok()) {
                self.step(sim, eth, &mut lro, &mut |_| {});
            }
            sent += 1;
        }
        // Drain, like the polled run's 10 ms: the QDMA queues still hold frames that completed
        // (and interrupted) but have not left; stop after 10 ms without a TX interrupt.
        let mut quiet = 0;
        while quiet < 10_000 {
            let before = self.tx_irqs;
            self.step(sim, eth, &mut lro, &mut |_| {});
            quiet = if self.tx_irqs == before { quiet + 1 } else { 0 };
        }
        let host_ns = host.elapsed().as_nanos() as f64;
        let mut d = wire_direction(sim, eth, mac, host_ns);
        d.irqs = self.tx_irqs - irqs_before;
        d
    }

    /// [`rx_run`] with RX polled only from RX interrupts.
    fn rx_run(&mut self, sim: &Sim, eth: &mut Eth<SimPlatform<'_>>, mac: u8) -> Result<Direction, fe_driver::EthError> {
        let mut stream = rx_stream(eth, mac)?;
        let mut storage = vec![0u8; LRO_FLOWS * 65536];
        let mut lro = SoftLro::new(&mut storage, LRO_FLOWS);
        let irqs_before = self.rx_irqs;
        let host = Instant::now();
        let start = sim.now();
        let mut d = Direction::default();
        let mut payload = 0u64;
        let mut last_delivery = start;
        send_rx_frames(sim, mac, &mut stream);
        // Until nothing has come for 1 ms of simulated time (the longest delay is far shorter).
        let mut quiet = 0;
        while quiet < 1000 {
            let n = self.step(sim, eth, &mut lro, &mut |f| count_rx(&mut d, &mut payload, f));
            if n > 0 {
                last_delivery = sim.now();
            }
            quiet = if n == 0 { quiet + 1 } else { 0 };
        }
        let host_ns = host.elapsed().as_nanos() as f64;
        d.goodput_mbps = goodput(payload, last_delivery - start);
        d.host_ns_per_frame = host_ns / d.frames.max(1) as f64;
        d.host_ns_per_kb = host_ns / (payload as f64 / 1024.0).max(1.0);
        d.irqs = self.rx_irqs - irqs_before;
        Ok(d)
    }
}

/// The report as JSON (`fe run --json`).
pub fn to_json(r: &Report) -> Value {
    let irq = matches!(r.drive, Drive::Irq { .. });
    let dir = |d: &Direction| {
        let mut v = json!({"frames": d.frames, "goodput_mbps": (d.goodput_mbps * 10.0).round() / 10.0, "host_ns_per_frame": d.host_ns_per_frame.round(),
               "host_ns_per_kb": d.host_ns_per_kb.round(), "verified": d.verified, "unverified": d.unverified,
               "segments": d.segments, "frames_per_aggregate": (d.per_aggregate() * 100.0).round() / 100.0});
        if irq {
            v["irqs"] = json!(d.irqs);
            v["irqs_per_frame"] = json!((d.irqs_per_frame() * 1000.0).round() / 1000.0);
        }
        v
    };
    let mut v = json!({
        "soc": r.soc,
        "board": r.board,
        "rx_checksum": r.rx_checksum,
        "lro": lro_name(r.lro),
        "macs": r.macs.iter().map(|m| json!({
            "id": m.id, "interface": m.interface,
            "path_setup": m.path_setup.iter().map(|(w, now)| crate::report::path_write_json(w, Some(*now))).collect::<Vec<_>>(),
            "gdma_fwd_cfg": m.gdma_fwd_cfg, "tx": dir(&m.tx), "rx": dir(&m.rx),
        })).collect::<Vec<_>>(),
        "delivered_verified": r.macs.iter().map(|m| m.rx.verified).sum::<u64>(),
        "drops": r.drops.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "violations": r.violations,
    });
    if let Drive::Irq { moderation } = r.drive {
        v["interrupts"] = json!({"moderation": moderation, "spurious": r.spurious_irqs});
    }
    v
}

/// Table header for [`rows`].
pub const HEADER: &str = "SoC      board                 rx-csum lro  mac dir  goodput(Mbit/s)  host ns/frame  host ns/KB  verified unverified  seg/frame";

/// Table header for [`rows`] of an interrupt-driven run: [`HEADER`] plus the interrupts each
/// direction took and interrupts per frame.
pub const HEADER_IRQ: &str = "SoC      board                 rx-csum lro  mac dir  goodput(Mbit/s)  host ns/frame  host ns/KB  verified unverified  seg/frame    irqs  irq/frame";

/// The table header that goes with `r`'s [`rows`].
#[must_use]
pub fn header(r: &Report) -> &'static str {
    match r.drive {
        Drive::Poll => HEADER,
        Drive::Irq { .. } => HEADER_IRQ,
    }
}

/// One table line per MAC and direction (TX only with coalescing off: it does not change TX).
pub fn rows(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    for m in &r.macs {
        for (name, d) in [("tx", &m.tx), ("rx", &m.rx)] {
            if name == "tx" && r.lro != LroMode::Off {
                continue;
            }
            out.push(format!(
                "{:<8} {:<21} {:<7} {:<4} {:>3} {:<4} {:>15.1} {:>14.0} {:>11.0} {:>8} {:>10} {:>10}",
                r.soc,
                r.board,
                if r.rx_checksum { "on" } else { "off" },
                lro_name(r.lro),
                m.id,
                name,
                d.goodput_mbps,
                d.host_ns_per_frame,
                d.host_ns_per_kb,
                if name == "rx" { d.verified.to_string() } else { "-".into() },
                if name == "rx" { d.unverified.to_string() } else { "-".into() },
                if name == "rx" { format!("{:.2}", d.per_aggregate()) } else { "-".into() },
            ));
            if matches!(r.drive, Drive::Irq { .. })
                && let Some(line) = out.last_mut()
            {
                line.push_str(&format!(" {:>7} {:>10.3}", d.irqs, d.irqs_per_frame()));
            }
        }
    }
    out
}
