//! `fe netdev`: the driver core on the simulated chip as a Linux network interface. For every
//! enabled MAC it creates the driver's netdev, a TAP with `IFF_VNET_HDR` in namespace
//! `PREFIX-dut`, and connects the MAC's simulated wire to a peer TAP in `PREFIX-peer`. Frames
//! from Linux go through the driver's TX path (queue per MAC, the engine's checksum offload and
//! TSO for GSO frames) onto the wire; frames from the wire come up through the RX path with
//! RX checksum and coalescing as set. The peer TAP has `IFF_VNET_HDR` and checksum/TSO offloads
//! too, so the peer behaves like a host with an offloading NIC: the bridge cuts its GSO frames
//! into wire-sized segments and completes its partial checksums before they go onto the wire,
//! and frames from the wire go up to it through a SoftLRO of its own (the GRO its NIC's driver
//! would do, which a TAP write does not get): GSO frames, or single frames with full checksums.
//! `fe ctl` and `fe stats` talk to it over a root-only control socket; SIGINT/SIGTERM close the
//! driver and remove what the run created.
//!
//! | module | holds |
//! |---|---|
//! | `sys.rs` | the only `unsafe`: TUN ioctls, `setns`, `ppoll`, `writev`, `signalfd` |
//! | `tap.rs` | TAP interfaces, created inside their namespace |
//! | `ns.rs` | namespaces and addresses (iproute2) |
//! | `vnet.rs` | the virtio-net header and the checksum/GSO decisions both ways |
//! | `frame.rs` | header offsets, checksums, software segmentation |
//! | `pace.rs` | simulated time against the wall clock |
//! | `bridge.rs` | the event loop |
//! | `ctl.rs` | the control socket, server and client |
//! | `watch.rs` | forwarding sysctls and MTU of the driver's namespace, watched while it runs |
//! | `stats.rs` | the bridge's counters and `fe stats` output |

// Status lines of a long-running bridge: unlike std's `println!` (shadowed here and in the
// submodules below) a write to a reader that has gone (`fe netdev | head -1`) does not panic;
// the line is dropped and the bridge keeps running until it is told to stop.
macro_rules! println {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

pub mod bridge;
pub mod ctl;
pub mod frame;
pub mod ns;
pub mod pace;
pub mod stats;
pub mod sys;
pub mod tap;
pub mod vnet;
pub mod watch;

use bridge::{Bridge, Port, RunInfo};
use fe_driver::dt;
use fe_sim::Sim;
use pace::Pace;
use std::io::Write;
use std::path::PathBuf;
use tap::{Role, Tap};

/// SoftLRO flows the bridge's coalescer holds (64 KiB each), as in the main job.
pub const LRO_FLOWS: usize = crate::run::LRO_FLOWS;

/// What `fe netdev` was asked to do.
#[derive(Clone, Debug)]
pub struct Options {
    /// The board's device tree (.dtb or .dts).
    pub dtb: PathBuf,
    /// How simulated time moves.
    pub pace: Pace,
    /// Namespaces are `PREFIX-dut` and `PREFIX-peer`, the control socket `/run/fe/PREFIX.sock`.
    pub prefix: String,
    /// Give each MAC's TAPs addresses (10.77.MAC.1/.2 and fd77:0:0:MAC::1/::2).
    pub addr: bool,
    /// RX poll interval in simulated ns.
    pub poll_ns: u64,
}

/// The name of MAC `mac`'s netdev.
#[must_use]
pub fn host_name(mac: u8) -> String {
    format!("fe-gmac{mac}")
}

/// The name of MAC `mac`'s peer.
#[must_use]
pub fn peer_name(mac: u8) -> String {
    format!("fe-peer{mac}")
}

/// Checks that this process can run `fe netdev` before anything is created: the TUN device
/// opens and the process is root. The error says what is missing.
pub fn preflight() -> Result<(), String> {
    let tun = tap::tun_device();
    let hint = if !tun.exists() {
        "the tun driver and its device are needed: modprobe tun"
    } else if sys::euid() != 0 {
        "fe netdev must run as root: it creates network namespaces and TAP interfaces"
    } else {
        "fe netdev needs the tun driver"
    };
    tap::open_tun(&tun).map_err(|e| format!("{e} ({hint})"))?;
    let euid = sys::euid();
    if euid != 0 {
        return Err(format!(
            "fe netdev must run as root (it creates network namespaces and TAP interfaces); effective uid is {euid}"
        ));
    }
    Ok(())
}

/// Runs `fe netdev` until SIGINT/SIGTERM; everything it created is removed before it returns,
/// on errors too. Progress goes to stdout (`ready` once the interfaces are up).
pub fn run(opts: &Options) -> Result<(), String> {
    ns::check_prefix(&opts.prefix)?;
    preflight()?;
    let bytes = crate::dtc::load(&opts.dtb)?;
    let board = opts.dtb.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let plat = dt::probe(&bytes).map_err(|e| format!("{}: {e}", opts.dtb.display()))?;
    // Signals are blocked from here on (and in threads started later) and read from this fd.
    let signals = sys::termination_signalfd().map_err(|e| format!("signalfd: {}", tap::plain(&e)))?;
    let mut ctl = ctl::Server::bind(&ctl::socket_path(&opts.prefix))?;
    let mut namespaces = ns::Namespaces::create(&opts.prefix)?;
    for n in namespaces.reused() {
        println!(
            "namespace {n} was left by an earlier run (its control socket did not answer): taken over, removed at exit"
        );
    }

    let soc = plat.soc;
    let sim = Sim::for_board(&plat);
    let mut eth = crate::run::bring_up(&board, &plat, &sim)?;

    let tun = tap::tun_device();
    let dut_ns = ns::Namespaces::open(&namespaces.dut)?;
    let peer_ns = ns::Namespaces::open(&namespaces.peer)?;
    let mut ports = Vec::new();
    let macs: Vec<(u8, u8, u32)> =
        eth.enabled_macs().filter_map(|m| m.link.map(|l| (m.id, m.queue, l.speed))).collect();
    for &(mac, queue, speed) in &macs {
        let host = Tap::create(&tun, &dut_ns, &host_name(mac), Role::Host)?;
        let peer = Tap::create(&tun, &peer_ns, &peer_name(mac), Role::Peer)?;
        for (n, dev) in [(&namespaces.dut, host.name()), (&namespaces.peer, peer.name())] {
            ns::Namespaces::up(n, dev)?;
        }
        if opts.addr {
            for (d, p) in ns::addresses(mac) {
                ns::Namespaces::add_addr(&namespaces.dut, host.name(), &d)?;
                ns::Namespaces::add_addr(&namespaces.peer, peer.name(), &p)?;
            }
            if soc.caps.hw_lro.is_some() {
                eth.set_lro_rule(mac, 0, Some(ns::dut_ipv4(mac))).map_err(|e| format!("set_lro_rule: {e}"))?;
            }
        }
        ports.push(Port::new(mac, queue, speed, host, peer));
    }
    if ports.is_empty() {
        return Err(format!("{board}: no enabled MAC with a link"));
    }
    let hosts: Vec<&str> = ports.iter().map(|p| p.host.name()).collect();
    let watch = watch::Watch::open(&dut_ns, &hosts)?;

    println!("board {board} ({}), pace {}, control socket {}", soc.name, opts.pace.name(), ctl.path().display());
    for p in &ports {
        let addrs = if opts.addr {
            format!(", {}", ns::addresses(p.mac).map(|(d, q)| format!("{d} <-> {q}")).join(", "))
        } else {
            String::new()
        };
        println!(
            "mac {}: {}/{} <-> {}/{}, {} Mbit/s, TX queue {}{addrs}",
            p.mac,
            namespaces.dut,
            p.host.name(),
            namespaces.peer,
            p.peer.name(),
            p.speed,
            p.queue
        );
    }
    println!("ready");
    let _ = std::io::stdout().flush();

    let mut storage = vec![0u8; LRO_FLOWS * 65536];
    let info = RunInfo { board, soc: soc.name };
    let lro = fe_driver::softlro::SoftLro::new(&mut storage, LRO_FLOWS);
    // The peers' GRO: frames from the wire go up to them coalesced, as a real NIC's driver
    // would hand them to its host's stack.
    let mut peer_storage = vec![0u8; LRO_FLOWS * 65536];
    let peer_lro = fe_driver::softlro::SoftLro::new(&mut peer_storage, LRO_FLOWS);
    let clock = pace::Clock::new(opts.pace, opts.poll_ns, sim.now());
    let mut bridge = Bridge::new(&sim, eth, lro, peer_lro, ports, clock, info);
    bridge.set_watch(watch);
    let result = bridge.run(&signals, &mut ctl);
    let closed = bridge.close();
    drop(bridge);
    drop(ctl);
    let ns_errors = namespaces.remove();
    let mut errors = Vec::new();
    match result {
        Ok(sig) => println!("signal {sig}: stopped"),
        Err(e) => errors.push(e),
    }
    match closed {
        Ok(msg) => println!("{msg}"),
        Err(e) => errors.push(e),
    }
    errors.extend(ns_errors);
    let mut errors = errors.into_iter();
    match errors.next() {
        None => Ok(()),
        Some(first) => {
            for e in errors {
                eprintln!("error: {e}");
            }
            Err(first)
        }
    }
}
