//! Per-port TX queues and the QDMA shaping decision, applied to the hardware.
//!
//! Queue map: traffic sent directly on MAC i goes to queue i, and those queues are never shaped
//! (their scheduler word stays at the SoC's base value: min rate only, no max rate), so a direct
//! link reaches line rate. Switch user port N goes to queue N + 3 (as the probe computed, within
//! the SoC's queue count) and gets a max rate only when its speed is known and slower than its
//! conduit MAC's current link; the QDMA shaper cannot shape close to the MAC's own rate without
//! losing throughput, so every other case keeps the base value.
//!
//! The decision is remade whenever a port's speed ([`Eth::port_link_changed`]) or its conduit's
//! link ([`Eth::link_up`], [`Eth::link_down`]) changes, and applied at [`Eth::open`] after the
//! per-queue base values. The rate encoding and weights come from the SoC's capabilities
//! ([`fe_regs::caps::Shaper`]); nothing here depends on which SoC it is.

use crate::dt::board::{Board, MAX_PORTS, Shaping};
use crate::eth::{BUF_SIZE, Eth, EthError};
use crate::platform::Platform;
use crate::tx::TxError;
use fe_regs::SocInfo;
use fe_regs::caps::Shaper;

/// Bytes of the MediaTek special tag, inserted after the source MAC address.
pub const TAG_LEN: usize = 4;
/// Bytes of a port's label the driver keeps (a longer label is cut at a character boundary).
pub const LABEL_LEN: usize = 16;
/// Highest port number the special tag can name (its port mask is one byte).
pub const MAX_TAG_PORT: u8 = 7;

/// A switch user port as the driver keeps it, with its queue and current shaping decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserPort {
    /// The device tree's label, cut to [`LABEL_LEN`] bytes.
    label: [u8; LABEL_LEN],
    /// Bytes of `label` used.
    label_len: u8,
    /// Port number on the switch (the tag's bit index).
    pub port: u8,
    /// MAC id of the conduit (the CPU port's MAC).
    pub conduit_mac: u8,
    /// QDMA TX queue of the port's traffic.
    pub queue: u8,
    /// Whether the port has a queue of its own (else it shares its conduit MAC's queue).
    pub own_queue: bool,
    /// The port's link speed in Mbit/s, if known.
    pub speed: Option<u32>,
    /// The shaping decision in force.
    pub shaping: Shaping,
}

impl UserPort {
    /// The device tree's label (possibly cut).
    #[must_use]
    pub fn label(&self) -> &str {
        core::str::from_utf8(&self.label[..usize::from(self.label_len)]).unwrap_or("")
    }
}

/// The switch user ports of one frame engine (fixed size, no allocation).
pub(crate) type PortTable = [Option<UserPort>; MAX_PORTS];

/// Copies `s` into a label buffer, cut at a character boundary.
fn short_label(s: &str) -> ([u8; LABEL_LEN], u8) {
    let mut n = s.len().min(LABEL_LEN);
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    let mut buf = [0u8; LABEL_LEN];
    buf[..n].copy_from_slice(&s.as_bytes()[..n]);
    (buf, n as u8)
}

/// The switch user ports of `board`, with their queues and the decisions their fixed links allow.
pub(crate) fn user_ports(soc: &SocInfo, board: &Board<'_>) -> PortTable {
    let mut t: PortTable = [None; MAX_PORTS];
    let ports = board.switch_ports().filter_map(|p| {
        let port = u8::try_from(p.port).ok()?;
        // Port N's own queue is N + 3 when the SoC has it; otherwise the probe gave it the
        // conduit's queue (which is never shaped).
        let own_queue = u32::from(p.queue) == p.port + 3 && p.queue < soc.caps.tx_queues;
        let (label, label_len) = short_label(p.label);
        let conduit = board.enabled_macs().find(|m| m.id == p.conduit_mac).and_then(|m| m.link.fixed_speed());
        Some(UserPort {
            label,
            label_len,
            port,
            conduit_mac: p.conduit_mac,
            queue: p.queue,
            own_queue,
            speed: p.speed,
            shaping: decide(&soc.caps.shaper, own_queue, p.speed, conduit),
        })
    });
    for (slot, p) in t.iter_mut().zip(ports) {
        *slot = Some(p);
    }
    t
}

/// The shaping decision for a port: shaped only with its own queue, a known speed slower than
/// the conduit's known speed, and an entry for that speed in the SoC's rate table.
#[must_use]
pub fn decide(shaper: &Shaper, own_queue: bool, port_speed: Option<u32>, conduit_speed: Option<u32>) -> Shaping {
    match (own_queue, port_speed, conduit_speed) {
        (false, _, _) => Shaping::Unshaped,
        (true, Some(s), Some(c)) if s < c && shaper.value_for(s).is_some() => Shaping::Shaped { speed: s },
        (true, Some(_), Some(_)) => Shaping::Unshaped,
        _ => Shaping::AtLinkUp,
    }
}

/// The scheduler word (`qtx_sch`) for a decision: the rate-table value when shaped, else the
/// base value (min rate only).
#[must_use]
pub fn sch_value(shaper: &Shaper, shaping: Shaping) -> u32 {
    match shaping {
        Shaping::Shaped { speed } => shaper.value_for(speed).unwrap_or(shaper.base),
        Shaping::Unshaped | Shaping::AtLinkUp => shaper.base,
    }
}

/// Writes the MediaTek special tag for a frame to `port` into `out`: the frame's addresses, the
/// 4-byte tag (0, 1 << port, 0, 0), then the rest. Returns the tagged length, or `None` when the
/// frame is shorter than two addresses, `port` cannot be tagged, or `out` is too small.
#[must_use]
pub fn tag_frame(out: &mut [u8], frame: &[u8], port: u8) -> Option<usize> {
    if frame.len() < 12 || port > MAX_TAG_PORT {
        return None;
    }
    let n = frame.len() + TAG_LEN;
    let out = out.get_mut(..n)?;
    out[..12].copy_from_slice(&frame[..12]);
    out[12..16].copy_from_slice(&[0, 1 << port, 0, 0]);
    out[16..].copy_from_slice(&frame[12..]);
    Some(n)
}

impl<P: Platform> Eth<P> {
    /// The switch user ports, with their queues and shaping decisions.
    pub fn switch_ports(&self) -> impl Iterator<Item = &UserPort> {
        self.ports.iter().flatten()
    }

    /// Switch user port `port`: its QDMA queue and the shaping decision in force.
    #[must_use]
    pub fn port_queue(&self, port: u8) -> Option<(u8, Shaping)> {
        self.switch_ports().find(|p| p.port == port).map(|p| (p.queue, p.shaping))
    }

    /// Switch user port `port` behind MAC `mac` changed its link: `Some(speed)` in Mbit/s when up
    /// at a known speed, `None` when down or unknown. Remakes and applies its shaping decision.
    pub fn port_link_changed(&mut self, mac: u8, port: u8, speed_mbps: Option<u32>) -> Result<(), EthError> {
        let p = self.ports.iter_mut().flatten().find(|p| p.conduit_mac == mac && p.port == port);
        p.ok_or(EthError::NoSuchPort { mac, port })?.speed = speed_mbps;
        self.reshape(self.open, |p| p.conduit_mac == mac && p.port == port);
        Ok(())
    }

    /// Sends `frame` to switch user port `port` behind MAC `mac`: inserts the special tag and
    /// queues it on the port's QDMA queue. Like [`Eth::xmit`], a frame that cannot be queued is
    /// counted as dropped (an unknown or untaggable port as a bad queue).
    pub fn xmit_port(&mut self, mac: u8, port: u8, frame: &[u8]) -> Result<(), TxError> {
        let queue = self.switch_ports().find(|p| p.conduit_mac == mac && p.port == port).map(|p| p.queue);
        let mut buf = [0u8; BUF_SIZE];
        let (queue, n) = match (queue, tag_frame(&mut buf, frame, port)) {
            (Some(q), Some(n)) => (q, n),
            (q, _) => {
                let e = if q.is_none() || port > MAX_TAG_PORT { TxError::BadQueue } else { TxError::BadLength };
                self.stats.tx_submitted += 1;
                self.stats.drops.count_tx(e);
                return Err(e);
            }
        };
        self.xmit(mac, queue, &buf[..n])
    }

    /// The speed of MAC `mac`'s link now, or its fixed link's when down; `None` when unknown.
    fn conduit_speed(&self, mac: u8) -> Option<u32> {
        self.mac(mac).filter(|m| m.enabled).and_then(|m| m.link.or(m.fixed)).map(|l| l.speed)
    }

    /// Remakes the decision of every port `which` selects and, with `write`, writes its queue's
    /// scheduler word. Queues shared with a MAC are never written.
    fn reshape(&mut self, write: bool, which: impl Fn(&UserPort) -> bool) {
        let shaper = self.soc.caps.shaper;
        for i in 0..self.ports.len() {
            let Some(p) = self.ports[i].filter(|p| which(p)) else { continue };
            let shaping = decide(&shaper, p.own_queue, p.speed, self.conduit_speed(p.conduit_mac));
            if let Some(slot) = self.ports[i].as_mut() {
                slot.shaping = shaping;
            }
            if write && p.own_queue {
                self.write_sch(p.queue, sch_value(&shaper, shaping));
            }
        }
    }

    /// Remakes the decisions of the ports behind MAC `mac` (its link changed).
    pub(crate) fn reshape_conduit(&mut self, mac: u8) {
        self.reshape(self.open, |p| p.conduit_mac == mac);
    }

    /// Applies every port's decision; `open` calls it after writing the base values.
    pub(crate) fn apply_shaping(&mut self) {
        self.reshape(true, |_| true);
    }

    /// Writes queue `queue`'s scheduler word, if the SoC has that queue.
    fn write_sch(&self, queue: u8, value: u32) {
        let shaper = self.soc.caps.shaper;
        if queue >= self.soc.caps.tx_queues {
            return;
        }
        if let Some(off) = shaper.reg.at(usize::from(queue)) {
            self.raw_modify(shaper.reg.space, off, |_| value);
        }
    }
}
