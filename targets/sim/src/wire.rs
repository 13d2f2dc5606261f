//! A wire: one direction of an Ethernet link, carrying frames at link speed in simulated time.

use crate::packet::wire_bytes;
use alloc::collections::VecDeque;
use alloc::vec::Vec;

/// Nanoseconds a frame of `len` bytes (without FCS) occupies a link of `speed_mbps`, counting
/// padding, FCS, preamble and inter-frame gap.
#[must_use]
pub fn frame_time_ns(len: usize, speed_mbps: u32) -> u64 {
    let bits = wire_bytes(len) as u64 * 8;
    // bits / (speed * 1e6) s = bits * 1000 / speed ns, rounded up.
    (bits * 1000).div_ceil(u64::from(speed_mbps.max(1)))
}

/// One direction of a link: frames leave back to back at line rate.
#[derive(Debug, Default)]
pub struct Wire {
    /// Link speed in Mbit/s.
    pub speed_mbps: u32,
    /// When the wire is next free.
    pub busy_until: u64,
    /// Frames on the wire or delivered and not yet taken: `(time the last bit arrives, frame)`.
    pub frames: VecDeque<(u64, Vec<u8>)>,
    /// Frames sent.
    pub sent: u64,
    /// Bytes sent (frame bytes, without FCS).
    pub sent_bytes: u64,
}

impl Wire {
    /// A wire at `speed_mbps`.
    #[must_use]
    pub fn new(speed_mbps: u32) -> Self {
        Wire { speed_mbps, ..Wire::default() }
    }

    /// Puts `frame` on the wire no earlier than `now`; returns when its last bit arrives.
    pub fn send(&mut self, now: u64, frame: Vec<u8>) -> u64 {
        let start = now.max(self.busy_until);
        let end = start + frame_time_ns(frame.len(), self.speed_mbps);
        self.busy_until = end;
        self.sent += 1;
        self.sent_bytes += frame.len() as u64;
        self.frames.push_back((end, frame));
        end
    }

    /// Takes every frame that has fully arrived by `now`.
    pub fn take_arrived(&mut self, now: u64) -> Vec<(u64, Vec<u8>)> {
        let mut out = Vec::new();
        while self.frames.front().is_some_and(|(t, _)| *t <= now) {
            if let Some(f) = self.frames.pop_front() {
                out.push(f);
            }
        }
        out
    }
}
