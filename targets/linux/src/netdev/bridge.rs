//! The bridge between the TAP interfaces and the driver on the simulated chip: one event loop
//! that reads frames from Linux into the driver's TX path, from the peers onto the MACs' wires,
//! moves simulated time, polls RX (with coalescing) up to Linux, reclaims TX buffers, and
//! serves the control socket.

use super::ctl::{Request, Server};
use super::frame;
use super::pace::{Clock, QUIET_NS, UNPACED_MAX_INTERVALS, UNPACED_MAX_INTERVALS_HW_LRO};
use super::stats::{LoopCounters, MacCounters, object};
use super::sys::{self, Interest};
use super::tap::{Tap, plain};
use super::vnet::{self, HDR_LEN, PeerSent, TxPlan, UpKind, VnetHdr};
use super::watch::{self, Watch};
use fe_driver::eth::{BUF_SIZE, Eth, Features, LroMode, TX_RING};
use fe_driver::ethtool::MIB_NAMES;
use fe_driver::frame::TxMeta;
use fe_driver::frame::{RxChecksum, RxFrame};
use fe_driver::softlro::SoftLro;
use fe_sim::Sim;
use fe_sim::driver_platform::SimPlatform;
use serde_json::{Value, json};
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::time::{Duration, Instant};

/// Frames read from one TAP before the loop turns to other work.
const READ_BATCH: usize = 64;
/// RX poll budget (a NAPI budget); the loop polls again while a poll uses all of it.
const BUDGET: usize = 64;
/// Wire time of frames from a peer queued ahead of the MAC before the loop stops reading that
/// peer (its kernel queues the rest): about 80 full frames at 1 Gbit/s.
const MAX_WIRE_BACKLOG_NS: u64 = 1_000_000;
/// Read buffer: a virtio-net header and the largest GSO frame Linux sends, with room to spare.
const READ_BUF: usize = HDR_LEN + 70_000;

/// One MAC with its two TAPs.
pub struct Port {
    /// MAC id.
    pub mac: u8,
    /// Its TX queue.
    pub queue: u8,
    /// Link speed, Mbit/s.
    pub speed: u32,
    /// The driver's netdev.
    pub host: Tap,
    /// The link partner.
    pub peer: Tap,
    /// Counters.
    pub c: MacCounters,
    buf: Vec<u8>,
    /// Length of a frame in `buf` waiting for room in the TX ring.
    pending: Option<usize>,
    /// When the last frame injected from the peer has fully arrived (simulated ns).
    wire_in_busy: u64,
}

impl Port {
    /// A port for MAC `mac`.
    #[must_use]
    pub fn new(mac: u8, queue: u8, speed: u32, host: Tap, peer: Tap) -> Port {
        Port {
            mac,
            queue,
            speed,
            host,
            peer,
            c: MacCounters::default(),
            buf: vec![0; READ_BUF],
            pending: None,
            wire_in_busy: 0,
        }
    }
}

/// What the run is, for `fe stats`.
#[derive(Clone, Debug)]
pub struct RunInfo {
    /// Board file name.
    pub board: String,
    /// SoC name.
    pub soc: &'static str,
}

/// The driver, the chip, the TAPs and the loop's state.
pub struct Bridge<'a> {
    sim: &'a Sim,
    /// The driver.
    pub eth: Eth<SimPlatform<'a>>,
    lro: SoftLro<'a>,
    /// The peers' receive coalescing (their GRO).
    peer_lro: SoftLro<'a>,
    /// The MACs with their TAPs.
    pub ports: Vec<Port>,
    clock: Clock,
    /// Loop counters.
    pub loops: LoopCounters,
    info: RunInfo,
    started: Instant,
    seg_buf: Vec<u8>,
    peer_buf: Vec<u8>,
    last_moved: u64,
    fds: Vec<Interest>,
    ready: Vec<bool>,
    watch: Option<Watch>,
    next_watch: Instant,
    /// Why the namespace forwards (the sysctl that says so), while it does.
    forwarding: Option<String>,
    /// The coalescing mode to restore when forwarding stops.
    lro_before_forwarding: LroMode,
}

/// Writes one received frame up to its MAC's TAP with the virtio-net header it needs.
fn deliver(ports: &mut [Port], loops: &mut LoopCounters, f: RxFrame<'_>) {
    let Some(p) = ports.iter_mut().find(|p| p.mac == f.mac) else {
        loops.rx_no_port += 1;
        return;
    };
    let (up, kind) = vnet::rx_header(f.data, f.checksum == RxChecksum::Verified, f.segs, f.seg_size);
    if write_up(&p.host, &up, f.data).is_err() {
        p.c.host_write_errors += 1;
        return;
    }
    let c = &mut p.c;
    c.host_rx_frames += 1;
    c.host_rx_bytes += f.data.len() as u64;
    c.host_rx_segments += u64::from(f.segs.max(1));
    c.host_rx_tcp_payload_bytes += frame::parse(f.data).map_or(0, |h| h.tcp_payload() as u64);
    match kind {
        UpKind::Gso => c.host_rx_gso += 1,
        UpKind::Verified => c.host_rx_verified += 1,
        UpKind::Unverified => c.host_rx_unverified += 1,
    }
}

/// Writes `data` to `tap` behind `up`'s virtio-net header, with `up`'s checksum patch applied
/// on the way (the frame itself is not copied).
fn write_up(tap: &Tap, up: &vnet::Up, data: &[u8]) -> std::io::Result<usize> {
    let hdr = up.hdr.encode();
    match up.patch.and_then(|(at, bytes)| Some((data.get(..at)?, bytes, data.get(at + 2..)?))) {
        Some((head, bytes, tail)) => tap.write(&[&hdr, head, &bytes, tail]),
        None => tap.write(&[&hdr, data]),
    }
}

/// Writes a frame from the wire up to the peer: one by one with flags 0 (the peer's kernel checks
/// the full checksums; Linux ignores `DATA_VALID` on a TAP write), or, coalesced by the peer's
/// SoftLRO (standing in for the GRO a real NIC's driver gives its host, which a TAP write does
/// not get), as a GSO frame with `NEEDS_CSUM` whose segments SoftLRO verified before merging.
fn up_to_peer(p: &mut Port, f: RxFrame<'_>) {
    let (up, kind) = if f.segs > 1 {
        vnet::rx_header(f.data, false, f.segs, f.seg_size)
    } else {
        (vnet::Up { hdr: VnetHdr::default(), patch: None }, UpKind::Unverified)
    };
    if write_up(&p.peer, &up, f.data).is_err() {
        p.c.peer_write_errors += 1;
    } else if kind == UpKind::Gso {
        p.c.peer_rx_gso += 1;
    }
}

impl<'a> Bridge<'a> {
    /// A bridge over an open driver, with its coalescer, the peers' coalescer and the clock.
    #[must_use]
    pub fn new(
        sim: &'a Sim,
        eth: Eth<SimPlatform<'a>>,
        lro: SoftLro<'a>,
        peer_lro: SoftLro<'a>,
        ports: Vec<Port>,
        clock: Clock,
        info: RunInfo,
    ) -> Bridge<'a> {
        let now = sim.now();
        Bridge {
            sim,
            eth,
            lro,
            peer_lro,
            ports,
            clock,
            loops: LoopCounters::default(),
            info,
            started: Instant::now(),
            seg_buf: Vec::new(),
            peer_buf: vec![0; READ_BUF],
            last_moved: now,
            fds: Vec::new(),
            ready: Vec::new(),
            watch: None,
            next_watch: Instant::now(),
            forwarding: None,
            lro_before_forwarding: LroMode::Off,
        }
    }

    /// Watches the driver's namespace from now on (forwarding, MTU: see [`super::watch`]),
    /// looking at once and then every [`watch::EVERY`].
    pub fn set_watch(&mut self, w: Watch) {
        self.watch = Some(w);
        self.next_watch = Instant::now();
    }

    /// Looks at what [`Bridge::set_watch`] watches and acts on it: coalescing off while the
    /// namespace forwards and back as it was when it stops; an MTU above [`watch::MAX_MTU`]
    /// put back. Says what it did on stdout.
    pub fn check_watch(&mut self) -> Result<(), String> {
        let Some(w) = &self.watch else { return Ok(()) };
        let why = w.forwarding()?;
        let mut clamped = Vec::new();
        for p in &self.ports {
            if let Some(was) = w.clamp_mtu(p.host.name())? {
                clamped.push((p.host.name().to_string(), was));
            }
        }
        for (dev, was) in clamped {
            self.loops.mtu_clamped += 1;
            println!("{dev}: MTU {was} is more than the MAC takes: set back to {}", watch::MAX_MTU);
        }
        match (why, self.forwarding.is_some()) {
            (Some(why), false) => {
                self.lro_before_forwarding = self.eth.features().lro;
                self.eth.set_forwarding(true).map_err(|e| format!("coalescing off for forwarding: {e}"))?;
                self.loops.forwarding_started += 1;
                println!(
                    "{why}: the namespace forwards, receive coalescing off (was {})",
                    crate::run::lro_name(self.lro_before_forwarding)
                );
                self.forwarding = Some(why);
            }
            (None, true) => {
                self.eth.set_forwarding(false).map_err(|e| format!("forwarding off: {e}"))?;
                let f = self.eth.features();
                let lro = self.lro_before_forwarding;
                self.eth.set_features(Features { lro, ..f }).map_err(|e| format!("restore coalescing: {e}"))?;
                self.loops.forwarding_stopped += 1;
                println!("forwarding stopped: receive coalescing {} again", crate::run::lro_name(lro));
                self.forwarding = None;
            }
            _ => {}
        }
        Ok(())
    }

    /// Sends the frame waiting in port `i`'s buffer (`len` bytes with its header) through the
    /// driver; false when the TX ring has no room for it (the frame stays for a later try).
    fn send_host_frame(&mut self, i: usize, len: usize) -> bool {
        let Bridge { eth, ports, seg_buf, .. } = self;
        let p = &mut ports[i];
        let Some(hdr) = VnetHdr::decode(&p.buf[..len]) else {
            p.c.tx_refused += 1;
            return true;
        };
        let frame = &mut p.buf[HDR_LEN..len];
        let plan = vnet::tx_plan(&hdr, frame);
        let needed = match plan {
            TxPlan::EngineTso { .. } => frame.len().div_ceil(BUF_SIZE),
            TxPlan::SoftSegment { mss } => {
                frame::parse(frame).map_or(1, |h| h.tcp_payload().div_ceil(usize::from(mss)).max(1))
            }
            TxPlan::Refuse(_) => 0,
            _ => 1,
        };
        if needed > TX_RING - 1 {
            p.c.tx_refused += 1;
            return true;
        }
        if eth.tx_room() < needed {
            eth.reclaim();
            if eth.tx_room() < needed {
                return false;
            }
        }
        let (mac, q) = (p.mac, p.queue);
        let c = &mut p.c;
        c.host_tx_frames += 1;
        c.host_tx_bytes += frame.len() as u64;
        let plain = TxMeta::NONE;
        let ok = match plan {
            TxPlan::Plain => {
                c.tx_plain += 1;
                eth.xmit_with(mac, q, frame, plain).is_ok()
            }
            TxPlan::EngineCsum => {
                c.tx_engine_csum += 1;
                eth.xmit_with(mac, q, frame, TxMeta::CSUM).is_ok()
            }
            TxPlan::SoftCsum { start, offset } => {
                c.tx_soft_csum += 1;
                frame::complete_checksum(frame, start, offset) && eth.xmit_with(mac, q, frame, plain).is_ok()
            }
            TxPlan::EngineTso { mss } => {
                c.tx_engine_tso += 1;
                eth.xmit_tso(mac, q, frame, mss).is_ok()
            }
            TxPlan::SoftSegment { mss } => {
                c.tx_soft_segmented += 1;
                let mut all = true;
                let cut = frame::segment_tcp(frame, usize::from(mss), seg_buf, &mut |seg| {
                    all &= eth.xmit_with(mac, q, seg, plain).is_ok();
                });
                cut.is_some() && all
            }
            TxPlan::Refuse(_) => {
                c.tx_refused += 1;
                return true;
            }
        };
        if !ok {
            c.tx_xmit_errors += 1;
        }
        true
    }

    /// Reads frames Linux sent on port `i`'s TAP into the driver until none waits, a batch is
    /// done, or the TX ring is full (the frame in hand waits).
    fn read_host(&mut self, i: usize) -> Result<(), String> {
        if let Some(len) = self.ports[i].pending {
            if !self.send_host_frame(i, len) {
                return Ok(());
            }
            self.ports[i].pending = None;
        }
        for _ in 0..READ_BATCH {
            let p = &mut self.ports[i];
            let n = match p.host.read(&mut p.buf) {
                Ok(Some(n)) => n,
                Ok(None) => break,
                Err(e) => return Err(format!("read {}: {}", p.host.name(), plain(&e))),
            };
            if !self.send_host_frame(i, n) {
                self.ports[i].pending = Some(n);
                self.ports[i].c.tx_ring_backoff += 1;
                break;
            }
        }
        Ok(())
    }

    /// Wire time queued ahead of port `i`'s MAC from its peer.
    fn wire_backlog(&self, i: usize) -> u64 {
        self.ports[i].wire_in_busy.saturating_sub(self.sim.now())
    }

    /// Reads frames the peer of port `i` sent, while the wire's backlog allows, and puts them
    /// onto the wire as the peer's NIC would: GSO frames cut into segments, partial checksums
    /// completed.
    fn read_peer(&mut self, i: usize) -> Result<(), String> {
        for _ in 0..READ_BATCH {
            if self.wire_backlog(i) >= MAX_WIRE_BACKLOG_NS {
                break;
            }
            let Bridge { sim, ports, peer_buf, seg_buf, .. } = self;
            let p = &mut ports[i];
            let n = match p.peer.read(peer_buf) {
                Ok(Some(n)) => n,
                Ok(None) => break,
                Err(e) => return Err(format!("read {}: {}", p.peer.name(), plain(&e))),
            };
            p.c.peer_tx_frames += 1;
            let Some(hdr) = VnetHdr::decode(&peer_buf[..n]) else {
                p.c.peer_tx_refused += 1;
                continue;
            };
            let (mac, speed) = (usize::from(p.mac), p.speed);
            let (busy, c) = (&mut p.wire_in_busy, &mut p.c);
            let sent = vnet::peer_to_wire(&hdr, &mut peer_buf[HDR_LEN..n], seg_buf, &mut |w| {
                // The peer's MAC pads short frames (ARP) to the Ethernet minimum; a TAP does not.
                let mut f = w.to_vec();
                fe_sim::packet::pad_to_min(&mut f);
                *busy = (*busy).max(sim.now()) + fe_sim::wire::frame_time_ns(f.len(), speed);
                c.wire_rx_frames += 1;
                c.wire_rx_bytes += w.len() as u64;
                sim.send_to_mac(mac, f);
            });
            match sent {
                Ok(PeerSent::Plain) => {}
                Ok(PeerSent::Csum) => p.c.peer_tx_csum += 1,
                Ok(PeerSent::Segmented(_)) => p.c.peer_tx_segmented += 1,
                Err(_) => p.c.peer_tx_refused += 1,
            }
        }
        Ok(())
    }

    /// One simulation step: time moves by `ns`, frames that left the MACs go to
    /// the peers, RX is polled up to Linux, TX buffers are reclaimed and waiting frames sent.
    /// Returns whether anything moved.
    fn step(&mut self, ns: u64) -> bool {
        self.sim.advance(ns);
        self.loops.steps += 1;
        let mut moved = false;
        let Bridge { sim, peer_lro, ports, .. } = self;
        for p in ports.iter_mut() {
            for (_, f) in sim.take_sent(usize::from(p.mac)) {
                moved = true;
                p.c.wire_tx_frames += 1;
                p.c.wire_tx_bytes += f.len() as u64;
                p.c.wire_tx_tcp_payload_bytes += frame::parse(&f).map_or(0, |h| h.tcp_payload() as u64);
                let rx = RxFrame::new(p.mac, &f, RxChecksum::Unverified);
                peer_lro.push(rx, &mut |g| up_to_peer(p, g));
            }
            peer_lro.flush(&mut |g| up_to_peer(p, g));
        }
        let Bridge { eth, lro, ports, loops, .. } = self;
        loop {
            let n = eth.poll_coalesced(BUDGET, lro, &mut |f| deliver(ports, loops, f));
            moved |= n > 0;
            if n < BUDGET {
                break;
            }
        }
        moved |= self.eth.reclaim() > 0;
        for i in 0..self.ports.len() {
            if let Some(len) = self.ports[i].pending
                && self.send_host_frame(i, len)
            {
                self.ports[i].pending = None;
                moved = true;
            }
        }
        if moved {
            self.last_moved = self.sim.now();
        }
        moved
    }

    /// Whether nothing is in flight: no frame waits for the ring, the ring is empty, the wires
    /// are idle and nothing moved for [`QUIET_NS`].
    fn quiet(&self) -> bool {
        let now = self.sim.now();
        self.ports.iter().all(|p| p.pending.is_none() && p.wire_in_busy <= now)
            && self.eth.tx_room() == TX_RING - 1
            && now.saturating_sub(self.last_moved) >= QUIET_NS
    }

    /// Runs until SIGINT or SIGTERM arrives on `signals` (returns its number) or a TAP fails.
    pub fn run(&mut self, signals: &OwnedFd, ctl: &mut Server) -> Result<u32, String> {
        sys::set_timer_slack(1_000);
        loop {
            if let Some(sig) = self.turn(Some(signals), Some(&mut *ctl), None)? {
                return Ok(sig);
            }
        }
    }

    /// One turn of the event loop: waits for a descriptor (at most `max_wait`, and not at all
    /// while frames are in flight unpaced), serves the control socket, reads the TAPs and runs
    /// the simulation steps that are due. Returns the signal that arrived on `signals`, if any.
    pub fn turn(
        &mut self,
        signals: Option<&OwnedFd>,
        ctl: Option<&mut Server>,
        max_wait: Option<Duration>,
    ) -> Result<Option<u32>, String> {
        self.loops.iterations += 1;
        let quiet = self.quiet();
        let mut fds = std::mem::take(&mut self.fds);
        fds.clear();
        fds.extend(signals.map(|s| Interest { fd: s.as_raw_fd(), read: true }));
        let first_ctl = fds.len();
        fds.extend(ctl.iter().flat_map(|c| c.fds()).map(|fd| Interest { fd, read: true }));
        let first_tap = fds.len();
        for i in 0..self.ports.len() {
            let p = &self.ports[i];
            fds.push(Interest { fd: p.host.raw_fd(), read: p.pending.is_none() });
            fds.push(Interest { fd: p.peer.raw_fd(), read: self.wire_backlog(i) < MAX_WIRE_BACKLOG_NS });
        }
        let mut timeout = match (self.clock.wait_for(self.sim.now(), quiet), max_wait) {
            (None, m) => m,
            (Some(t), m) => Some(m.map_or(t, |m| t.min(m))),
        };
        // Wake for the watch and for a control connection running out of time.
        let now = Instant::now();
        let deadlines = [self.watch.as_ref().map(|_| self.next_watch), ctl.as_ref().and_then(|c| c.next_deadline())];
        for d in deadlines.into_iter().flatten() {
            let t = d.saturating_duration_since(now);
            timeout = Some(timeout.map_or(t, |m| m.min(t)));
        }
        if timeout.is_none() {
            self.loops.quiet_waits += 1;
        }
        let mut ready = std::mem::take(&mut self.ready);
        let waited = sys::wait(&fds, timeout, &mut ready).map_err(|e| format!("ppoll: {}", plain(&e)));
        self.fds = fds;
        let result = waited.and_then(|_| self.after_wait(&ready, signals, ctl, first_ctl, first_tap, quiet));
        self.ready = ready;
        result
    }

    /// The rest of [`Bridge::turn`], once the wait said which descriptors are ready.
    fn after_wait(
        &mut self,
        ready: &[bool],
        signals: Option<&OwnedFd>,
        ctl: Option<&mut Server>,
        first_ctl: usize,
        first_tap: usize,
        quiet: bool,
    ) -> Result<Option<u32>, String> {
        if let Some(s) = signals
            && ready[0]
            && let Some(sig) = sys::read_signal(s.as_fd()).map_err(|e| format!("signalfd: {}", plain(&e)))?
        {
            return Ok(Some(sig));
        }
        if let Some(ctl) = ctl {
            if ready[first_ctl..first_tap].iter().any(|r| *r) {
                let served = ctl.serve(&mut |r| self.handle(r));
                self.loops.ctl_requests += served as u64;
            } else if ctl.next_deadline().is_some_and(|d| d <= Instant::now()) {
                ctl.expire();
            }
        }
        if self.watch.is_some() && self.next_watch <= Instant::now() {
            self.check_watch()?;
            self.next_watch = Instant::now() + watch::EVERY;
        }
        if quiet {
            // Nothing was in flight: jump to the wall clock (paced) before taking new frames.
            let at = self.clock.resume_at(self.sim.now());
            self.sim.advance(at - self.sim.now());
            self.last_moved = self.sim.now();
        }
        for i in 0..self.ports.len() {
            if ready[first_tap + 2 * i] || self.ports[i].pending.is_some() {
                self.read_host(i)?;
            }
            if ready[first_tap + 2 * i + 1] {
                self.read_peer(i)?;
            }
        }
        let backlog = (0..self.ports.len()).map(|i| self.wire_backlog(i)).max().unwrap_or(0);
        let max =
            if self.eth.features().lro == LroMode::Hw { UNPACED_MAX_INTERVALS_HW_LRO } else { UNPACED_MAX_INTERVALS };
        let (steps, each) = self.clock.steps_due(self.sim.now(), backlog, max);
        for _ in 0..steps {
            self.step(each);
        }
        Ok(None)
    }

    /// Answers one control request.
    pub fn handle(&mut self, r: Request) -> Result<String, String> {
        let f = self.eth.features();
        let set = |eth: &mut Eth<SimPlatform<'a>>, nf: Features| {
            eth.set_features(nf).map_err(|e| format!("set_features: {e}")).map(|()| String::new())
        };
        match r {
            Request::RxCsum(on) => set(&mut self.eth, Features { rx_checksum: on, ..f }),
            Request::Lro(m) => {
                if m == LroMode::Hw && self.eth.soc().caps.hw_lro.is_none() {
                    return Err(format!("{} has no hardware LRO (use soft)", self.eth.soc().name));
                }
                if let Some(why) = self.forwarding.as_ref().filter(|_| m != LroMode::Off) {
                    return Err(format!(
                        "receive coalescing stays off while the namespace forwards ({why}); it comes back \
                         when forwarding stops"
                    ));
                }
                set(&mut self.eth, Features { lro: m, ..f })
            }
            Request::LroDst { mac, dst } => {
                self.eth.set_lro_rule(mac, 0, dst).map_err(|e| format!("set_lro_rule: {e}")).map(|()| String::new())
            }
            Request::Stats { json } => {
                let v = self.stats_json();
                Ok(if json {
                    format!("{}\n", serde_json::to_string_pretty(&v).unwrap_or_default())
                } else {
                    super::stats::text(&v)
                })
            }
        }
    }

    /// Every counter: the driver's `ethtool -S` per MAC and device-wide, the bridge's, SoftLRO's.
    pub fn stats_json(&mut self) -> Value {
        let f = self.eth.features();
        let mut device = serde_json::Map::new();
        let mut macs = Vec::new();
        for i in 0..self.ports.len() {
            let mac = self.ports[i].mac;
            let mut per_mac = serde_json::Map::new();
            self.eth.ethtool_stats(mac, &mut |name, v| {
                if MIB_NAMES.contains(&name) || name.starts_with("sw_") {
                    per_mac.insert(name.to_string(), json!(v));
                } else {
                    device.insert(name.to_string(), json!(v));
                }
            });
            let p = &self.ports[i];
            macs.push(json!({
                "id": mac, "host": p.host.name(), "peer": p.peer.name(), "link_mbps": p.speed,
                "ethtool": Value::Object(per_mac), "netdev": object(&p.c.pairs()),
            }));
        }
        let l = self.lro.stats();
        json!({
            "board": self.info.board,
            "soc": self.info.soc,
            "pace": self.clock.pace().name(),
            "sim_time_ns": self.sim.now(),
            "uptime_ms": self.started.elapsed().as_millis() as u64,
            "max_lag_us": self.clock.max_lag_ns / 1000,
            "violations": self.sim.violations().len(),
            "features": {
                "rx_checksum": f.rx_checksum, "tx_checksum": f.tx_checksum, "tso": f.tso,
                "lro": crate::run::lro_name(f.lro), "forwarding": self.eth.forwarding(),
            },
            "macs": macs,
            "device": Value::Object(device),
            "softlro": {
                "frames_in": l.frames_in, "frames_out": l.frames_out, "aggregates_out": l.aggregates_out,
                "segments_merged": l.segments_merged, "sw_verified": l.sw_verified,
                "fast_merged": l.fast_merged, "fast_started": l.fast_started,
            },
            "loop": object(&self.loops.pairs()),
        })
    }

    /// Stops the driver, counting what was in flight; the report's text.
    pub fn close(&mut self) -> Result<String, String> {
        let r = self.eth.close().map_err(|e| format!("close: {e}"))?;
        if r.leaked.total() != 0 {
            return Err(format!("close left buffers with the engine: {:?}", r.leaked));
        }
        Ok(format!(
            "driver closed: {} buffers returned ({} RX, {} TX, {} free-queue), none leaked; {} TX frames dropped, {} RX frames dropped at close; {} illegal accesses seen by the model",
            r.returned.total(),
            r.returned.rx,
            r.returned.tx,
            r.returned.fq,
            r.tx_dropped,
            r.rx_dropped,
            self.sim.violations().len()
        ))
    }
}
