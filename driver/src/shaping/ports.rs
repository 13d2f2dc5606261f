//! The switch user ports as the driver keeps them, and the shaping decision: pure functions of
//! the board, the SoC's shaper capability and the links' speeds (applied to the hardware by
//! [`crate::shaping`]).

use crate::dt::board::{Board, MAX_PORTS, Shaping};
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

/// Which QDMA queue each switch user port sends on: fixed by the board, so the TX handle
/// reads it while the control handle changes the ports' shaping.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PortQueues([Option<(u8, u8, u8)>; MAX_PORTS]);

impl PortQueues {
    /// The queue of port `port` behind MAC `mac`, if the board has that port.
    #[inline]
    pub(crate) fn queue(&self, mac: u8, port: u8) -> Option<u8> {
        self.0.iter().flatten().find(|(m, p, _)| (*m, *p) == (mac, port)).map(|e| e.2)
    }
}

/// The queues of `board`'s switch user ports (the ports [`user_ports`] keeps, in its order).
pub(crate) fn board_queues(board: &Board<'_>) -> PortQueues {
    let mut q = PortQueues::default();
    let ports = board.switch_ports().filter_map(|p| Some((p.conduit_mac, u8::try_from(p.port).ok()?, p.queue)));
    for (slot, p) in q.0.iter_mut().zip(ports) {
        *slot = Some(p);
    }
    q
}

/// Port `port` of `t`: its queue and the shaping decision in force.
pub(crate) fn find(t: &PortTable, port: u8) -> Option<(u8, Shaping)> {
    t.iter().flatten().find(|p| p.port == port).map(|p| (p.queue, p.shaping))
}

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
