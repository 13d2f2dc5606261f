//! A DSA switch (MT7530/MT7531) on a MAC's wire: the MediaTek special tag carries the port, each
//! user port sends at its own speed from a finite buffer, and a full buffer pauses the CPU-side
//! MAC (802.3x flow control), so one slow port can stall every port behind the same MAC.

use crate::wire::Wire;
use alloc::vec::Vec;

/// Bytes of the MediaTek special tag, inserted after the source MAC address.
pub const TAG_LEN: usize = 4;
/// Frames a user port buffers before the switch sends a pause frame to the CPU port.
pub const HIGH_WATER: usize = 32;
/// Frames below which the pause is released.
pub const LOW_WATER: usize = 16;

/// One user port.
#[derive(Debug)]
pub struct Port {
    /// Port number (the tag's bit index).
    pub number: u8,
    /// Egress wire to the port's link partner.
    pub egress: Wire,
    /// Ingress wire from the port's link partner.
    pub ingress: Wire,
}

/// The switch behind one MAC.
#[derive(Debug)]
pub struct Switch {
    /// The CPU-side MAC id.
    pub mac: usize,
    /// User ports.
    pub ports: Vec<Port>,
    /// Pause frames sent to the CPU port.
    pub pause_frames: u64,
    /// Frames dropped (no port in the tag, unknown port).
    pub dropped: u64,
}

/// Inserts the special tag for a frame going from the CPU to `port` (untagged, port bitmask).
#[must_use]
pub fn tag_for_port(frame: &[u8], port: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(frame.len() + TAG_LEN);
    out.extend_from_slice(frame.get(..12).unwrap_or(frame));
    out.extend_from_slice(&[0, 1u8.checked_shl(u32::from(port)).unwrap_or(0), 0, 0]);
    out.extend_from_slice(frame.get(12..).unwrap_or(&[]));
    out
}

/// Inserts the special tag for a frame received on `port` (source port in the low bits).
#[must_use]
pub fn tag_from_port(frame: &[u8], port: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(frame.len() + TAG_LEN);
    out.extend_from_slice(frame.get(..12).unwrap_or(frame));
    out.extend_from_slice(&[0, port & 7, 0, 0]);
    out.extend_from_slice(frame.get(12..).unwrap_or(&[]));
    out
}

/// Removes the tag: `(ports bitmask or source port byte, untagged frame)`.
#[must_use]
pub fn untag(frame: &[u8]) -> Option<(u8, Vec<u8>)> {
    let tag = frame.get(12..12 + TAG_LEN)?;
    let mut out = Vec::with_capacity(frame.len() - TAG_LEN);
    out.extend_from_slice(&frame[..12]);
    out.extend_from_slice(&frame[12 + TAG_LEN..]);
    Some((tag[1], out))
}

impl Switch {
    /// A switch on MAC `mac` with user ports `(number, speed in Mbit/s)`.
    #[must_use]
    pub fn new(mac: usize, ports: &[(u8, u32)]) -> Self {
        Switch {
            mac,
            ports: ports
                .iter()
                .map(|&(number, speed)| Port { number, egress: Wire::new(speed), ingress: Wire::new(speed) })
                .collect(),
            pause_frames: 0,
            dropped: 0,
        }
    }

    /// A tagged frame from the CPU arrives at time `t`; returns the time until which the CPU
    /// MAC is paused, if this frame filled the port's buffer.
    pub fn from_cpu(&mut self, t: u64, frame: &[u8]) -> Option<u64> {
        let Some((mask, plain)) = untag(frame) else {
            self.dropped += 1;
            return None;
        };
        let Some(port) =
            self.ports.iter_mut().find(|p| mask & (1u8.checked_shl(u32::from(p.number)).unwrap_or(0)) != 0)
        else {
            self.dropped += 1;
            return None;
        };
        port.egress.send(t, plain);
        // Frames still in the port's buffer at time t (not yet fully sent).
        let waiting = port.egress.frames.iter().filter(|(end, _)| *end > t).count();
        if waiting >= HIGH_WATER {
            self.pause_frames += 1;
            // Released when the buffer has drained to LOW_WATER frames.
            let idx = port.egress.frames.len().saturating_sub(LOW_WATER);
            return port.egress.frames.get(idx).map(|(end, _)| *end);
        }
        None
    }

    /// The port with number `n`.
    pub fn port_mut(&mut self, n: u8) -> Option<&mut Port> {
        self.ports.iter_mut().find(|p| p.number == n)
    }
}
