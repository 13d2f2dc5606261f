//! The image on a real bus: the board's frame engine is a device (QEMU's `mtk-frame-engine`)
//! that the platform reaches through MMIO and DMA memory, not the in-image model. The two
//! enabled MACs' wires are joined outside the image (a QEMU hub), so a TCP stream between two
//! `smoltcp` interfaces crosses the device's TX and RX paths both; time is the machine's clock.

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use fe_driver::adapters::smoltcp::{AdapterStats, SmoltcpEth};
use fe_driver::dt::{self, Duplex};
use fe_driver::platform::Platform;
use fe_driver::{Eth, Features, LinkState};
use smoltcp::iface::{Config, Interface, SocketSet};
use smoltcp::socket::tcp;
use smoltcp::time::Instant;
use smoltcp::wire::{EthernetAddress, HardwareAddress, IpAddress, IpCidr};

/// A run that has not finished after this long (machine time) fails.
pub const DEADLINE_NS: u64 = 60_000_000_000;
const PORT: u16 = 5001;

/// What one run on the device measured.
#[derive(Clone, Debug)]
pub struct DeviceReport {
    /// SoC name.
    pub soc: &'static str,
    /// MAC ids: (sending, receiving).
    pub macs: (u8, u8),
    /// Payload bytes received and checked.
    pub bytes: usize,
    /// Bytes that differed from the pattern.
    pub bad_bytes: usize,
    /// Machine time from connect to the last byte, ns.
    pub ns: u64,
    /// The adapter's counters.
    pub adapter: AdapterStats,
    /// Driver drops (TX, RX).
    pub drops: (u64, u64),
}

impl DeviceReport {
    /// TCP goodput over machine time, Mbit/s.
    #[must_use]
    pub fn goodput_mbps(&self) -> f64 {
        if self.ns == 0 { 0.0 } else { self.bytes as f64 * 8.0 * 1000.0 / self.ns as f64 }
    }

    /// Every byte arrived and was right.
    #[must_use]
    pub fn passed(&self, bytes: usize) -> bool {
        self.bytes == bytes && self.bad_bytes == 0
    }
}

/// The byte at offset `i` of the stream.
fn pattern(i: usize) -> u8 {
    (i ^ (i >> 8) ^ (i >> 16).wrapping_mul(7)) as u8
}

fn iface<P: Platform>(eth: &mut SmoltcpEth<P>, mac: u8, ip: [u8; 4], now: Instant) -> Result<Interface, String> {
    let hw = EthernetAddress([0x02, 0xfe, 0, 0, 1, ip[3]]);
    let mut config = Config::new(HardwareAddress::Ethernet(hw));
    config.random_seed = u64::from(ip[3]);
    let mut i = Interface::new(config, &mut eth.port(mac), now);
    let mut pushed = Ok(());
    i.update_ip_addrs(|a| pushed = a.push(IpCidr::new(IpAddress::v4(ip[0], ip[1], ip[2], ip[3]), 24)));
    pushed.map_err(|_| String::from("no room for an IP address"))?;
    Ok(i)
}

fn socket() -> tcp::Socket<'static> {
    let mut s =
        tcp::Socket::new(tcp::SocketBuffer::new(vec![0; 64 * 1024]), tcp::SocketBuffer::new(vec![0; 64 * 1024]));
    s.set_nagle_enabled(false);
    s.set_ack_delay(None);
    s
}

/// Probes `dtb` (the guest tree the machine booted with), brings the driver up on `plat` and
/// moves `bytes` bytes from the first enabled MAC to the second over the joined wires.
pub fn run<P: Platform>(dtb: &[u8], plat: P, bytes: usize) -> Result<DeviceReport, String> {
    let board = dt::probe(dtb).map_err(|e| format!("probe: {e}"))?;
    let soc = board.soc.name;
    let mut eth = Eth::new(&board, plat).map_err(|e| format!("{e}"))?;
    eth.open().map_err(|e| format!("open: {e}"))?;
    eth.set_features(Features { tso: false, ..eth.features() }).map_err(|e| format!("features: {e}"))?;
    for m in board.enabled_macs().filter(|m| m.link.fixed_speed().is_none()) {
        eth.link_up(m.id, LinkState { speed: 1000, duplex: Duplex::Full, pause: true })
            .map_err(|e| format!("link up mac {}: {e}", m.id))?;
    }
    let macs: Vec<u8> = eth.enabled_macs().filter(|m| m.link.is_some()).map(|m| m.id).collect();
    let (tx, rx) = match macs.as_slice() {
        [x, y, ..] => (*x, *y),
        _ => {
            return Err(format!(
                "{} enabled MAC(s) with a link: the device run needs two (their wires joined)",
                macs.len()
            ));
        }
    };
    let mut eth = SmoltcpEth::new(eth);
    let t = |eth: &SmoltcpEth<P>| Instant::from_micros((eth.eth().platform().now_ns() / 1000) as i64);
    let now = t(&eth);
    let mut if_a = iface(&mut eth, tx, [10, 0, 0, 1], now)?;
    let mut if_b = iface(&mut eth, rx, [10, 0, 0, 2], now)?;
    let (mut set_a, mut set_b) = (SocketSet::new(vec![]), SocketSet::new(vec![]));
    let client = set_a.add(socket());
    let server = set_b.add(socket());
    set_b.get_mut::<tcp::Socket>(server).listen(PORT).map_err(|e| format!("listen: {e:?}"))?;
    set_a
        .get_mut::<tcp::Socket>(client)
        .connect(if_a.context(), (IpAddress::v4(10, 0, 0, 2), PORT), 49153)
        .map_err(|e| format!("connect: {e:?}"))?;
    let start = eth.eth().platform().now_ns();
    let (mut sent, mut got, mut bad, mut closed) = (0usize, 0usize, 0usize, false);
    while got < bytes {
        let now_ns = eth.eth().platform().now_ns();
        if now_ns - start > DEADLINE_NS {
            return Err(format!(
                "timeout after {} s: {sent} bytes sent, {got} received, client {}, server {}; adapter {:?}; driver {:?}",
                DEADLINE_NS / 1_000_000_000,
                set_a.get::<tcp::Socket>(client).state(),
                set_b.get::<tcp::Socket>(server).state(),
                eth.stats(),
                eth.eth().stats(),
            ));
        }
        let c = set_a.get_mut::<tcp::Socket>(client);
        if c.can_send() && sent < bytes {
            sent += c
                .send(|buf| {
                    let n = buf.len().min(bytes - sent);
                    for (k, x) in buf[..n].iter_mut().enumerate() {
                        *x = pattern(sent + k);
                    }
                    (n, n)
                })
                .map_err(|e| format!("send: {e:?}"))?;
        }
        if sent == bytes && !closed {
            c.close();
            closed = true;
        }
        let s = set_b.get_mut::<tcp::Socket>(server);
        while s.can_recv() {
            got += s
                .recv(|buf| {
                    bad += buf.iter().enumerate().filter(|&(k, &x)| x != pattern(got + k)).count();
                    (buf.len(), buf.len())
                })
                .map_err(|e| format!("recv: {e:?}"))?;
        }
        let now = t(&eth);
        if_a.poll(now, &mut eth.port(tx), &mut set_a);
        if_b.poll(now, &mut eth.port(rx), &mut set_b);
        eth.eth_mut().reclaim();
    }
    let ns = eth.eth().platform().now_ns() - start;
    let drv = eth.eth().stats();
    let report = DeviceReport {
        soc,
        macs: (tx, rx),
        bytes: got,
        bad_bytes: bad,
        ns,
        adapter: eth.stats(),
        drops: (drv.drops.tx_total(), drv.drops.rx_total()),
    };
    eth.into_inner().close().map_err(|e| format!("close: {e}"))?;
    Ok(report)
}
