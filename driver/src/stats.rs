//! Software counters of the driver core: traffic per MAC, drops by cause, RX checksum verdicts.
//!
//! The MIB counters of the hardware (per MAC, read-to-clear) are accumulated in
//! [`crate::ethtool`]; these are the counters only software can keep.

use crate::dt::board::MAX_MACS;
use crate::error::TxError;

/// Traffic of one MAC.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MacCounters {
    /// Frames delivered to the stack.
    pub rx_frames: u64,
    /// Bytes delivered to the stack.
    pub rx_bytes: u64,
    /// Frames the engine has taken from the TX ring (sent from the driver's side).
    pub tx_frames: u64,
    /// Bytes the engine has taken from the TX ring.
    pub tx_bytes: u64,
}

/// Frames dropped, by cause.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Drops {
    /// TX: the ring had no free descriptor.
    pub tx_ring_full: u64,
    /// TX: the frame was empty or longer than a TX buffer.
    pub tx_bad_length: u64,
    /// TX: the MAC is not enabled in the device tree (or does not exist).
    pub tx_bad_mac: u64,
    /// TX: the queue is past the SoC's queues.
    pub tx_bad_queue: u64,
    /// TX: the MAC's link is down.
    pub tx_link_down: u64,
    /// TX: the interface is not open.
    pub tx_not_open: u64,
    /// TX: queued but not taken by the engine when the interface was closed.
    pub tx_teardown: u64,
    /// TX: a DMA access was refused.
    pub tx_dma_error: u64,
    /// TX: the frame asked for an offload (TX checksum, TSO) that is turned off.
    pub tx_offload_off: u64,
    /// TX: a TSO frame that is not TCP, has a bad MSS, or needs too many descriptors.
    pub tx_bad_tso: u64,
    /// RX: a frame spread over several buffers, or a bad length (never expected with 2 KiB buffers).
    pub rx_bad_descriptor: u64,
    /// RX: the descriptor named a source port that is no MAC.
    pub rx_bad_port: u64,
    /// RX: received but not polled when the interface was closed.
    pub rx_teardown: u64,
    /// RX: a DMA access was refused.
    pub rx_dma_error: u64,
    /// RX: zero-copy receive had no fresh pool buffer to put in the frame's place, so the frame
    /// was dropped and its buffer posted again.
    pub rx_no_buffer: u64,
    /// Hardware LRO did not confirm a relinquish in time (its aggregates may be lost).
    pub lro_relinquish_timeout: u64,
}

impl Drops {
    /// Every TX drop.
    #[must_use]
    pub fn tx_total(&self) -> u64 {
        self.tx_ring_full
            + self.tx_bad_length
            + self.tx_bad_mac
            + self.tx_bad_queue
            + self.tx_link_down
            + self.tx_not_open
            + self.tx_teardown
            + self.tx_dma_error
            + self.tx_offload_off
            + self.tx_bad_tso
    }

    /// Counts one TX frame refused with `e`.
    pub fn count_tx(&mut self, e: TxError) {
        *match e {
            TxError::NotOpen => &mut self.tx_not_open,
            TxError::BadMac => &mut self.tx_bad_mac,
            TxError::BadQueue => &mut self.tx_bad_queue,
            TxError::BadLength => &mut self.tx_bad_length,
            TxError::LinkDown => &mut self.tx_link_down,
            TxError::RingFull => &mut self.tx_ring_full,
            TxError::Dma(_) => &mut self.tx_dma_error,
            TxError::OffloadOff => &mut self.tx_offload_off,
            TxError::BadTso => &mut self.tx_bad_tso,
        } += 1;
    }

    /// Every RX drop.
    #[must_use]
    pub fn rx_total(&self) -> u64 {
        self.rx_bad_descriptor + self.rx_bad_port + self.rx_teardown + self.rx_dma_error + self.rx_no_buffer
    }
}

/// All software counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Per MAC, by MAC id.
    pub mac: [MacCounters; MAX_MACS],
    /// Frames handed to `xmit` (each is later sent, dropped, or still in the ring).
    pub tx_submitted: u64,
    /// Drops by cause.
    pub drops: Drops,
    /// RX frames delivered as checksum-verified (descriptor bit trusted while RX checksum is on).
    pub rx_csum_verified: u64,
    /// RX frames delivered without a verdict (checksum off, not TCP/UDP, or a bad checksum).
    pub rx_csum_unverified: u64,
    /// Interrupts that found RX work.
    pub irq_rx: u64,
    /// Interrupts that found TX-done work.
    pub irq_tx: u64,
    /// Interrupts with no unmasked cause behind them.
    pub irq_spurious: u64,
    /// Frames delivered from hardware LRO rings.
    pub hw_lro_frames: u64,
    /// TCP segments those frames hold (as derived from their payload).
    pub hw_lro_segments: u64,
}

impl Stats {
    /// Counts one frame delivered on MAC `mac` with its checksum verdict.
    #[inline]
    pub(crate) fn count_rx(&mut self, mac: u8, len: usize, checksum: crate::frame::RxChecksum) {
        match checksum {
            crate::frame::RxChecksum::Verified => self.rx_csum_verified += 1,
            crate::frame::RxChecksum::Unverified => self.rx_csum_unverified += 1,
        }
        if let Some(c) = self.mac.get_mut(usize::from(mac)) {
            c.rx_frames += 1;
            c.rx_bytes += len as u64;
        }
    }

    /// Counts `frames` frames of `bytes` bytes in all delivered on MAC `mac`, all with verdict
    /// `checksum`.
    pub(crate) fn count_rx_many(&mut self, mac: u8, frames: u64, bytes: u64, checksum: crate::frame::RxChecksum) {
        match checksum {
            crate::frame::RxChecksum::Verified => self.rx_csum_verified += frames,
            crate::frame::RxChecksum::Unverified => self.rx_csum_unverified += frames,
        }
        if let Some(c) = self.mac.get_mut(usize::from(mac)) {
            c.rx_frames += frames;
            c.rx_bytes += bytes;
        }
    }

    /// Frames sent on every MAC.
    #[must_use]
    pub fn tx_frames(&self) -> u64 {
        self.mac.iter().map(|m| m.tx_frames).sum()
    }

    /// Frames received on every MAC.
    #[must_use]
    pub fn rx_frames(&self) -> u64 {
        self.mac.iter().map(|m| m.rx_frames).sum()
    }

    /// TX payload bytes sent on every MAC.
    #[must_use]
    pub fn tx_bytes(&self) -> u64 {
        self.mac.iter().map(|m| m.tx_bytes).sum()
    }
}

/// The MIB counters of one MAC, as 64-bit totals since the driver was created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MibCounters {
    /// Good bytes sent.
    pub tx_bytes: u64,
    /// Good frames sent.
    pub tx_packets: u64,
    /// Frames skipped (dropped) on TX.
    pub tx_skip: u64,
    /// TX collisions.
    pub tx_collisions: u64,
    /// Good bytes received.
    pub rx_bytes: u64,
    /// Good frames received.
    pub rx_packets: u64,
    /// Frames dropped because the RX ring had no free descriptor.
    pub rx_overflow: u64,
    /// Frames with a bad FCS.
    pub rx_fcs_errors: u64,
    /// Runts.
    pub rx_short_errors: u64,
    /// Frames longer than the MAC accepts.
    pub rx_long_errors: u64,
    /// Frames whose IPv4 or L4 checksum the GDMA found bad.
    pub rx_checksum_errors: u64,
    /// Pause frames received.
    pub rx_flow_control_packets: u64,
}

impl MibCounters {
    /// The values in the order of [`crate::ethtool::MIB_NAMES`].
    #[must_use]
    pub fn values(&self) -> [u64; 12] {
        [
            self.tx_bytes,
            self.tx_packets,
            self.tx_skip,
            self.tx_collisions,
            self.rx_bytes,
            self.rx_packets,
            self.rx_overflow,
            self.rx_fcs_errors,
            self.rx_short_errors,
            self.rx_long_errors,
            self.rx_checksum_errors,
            self.rx_flow_control_packets,
        ]
    }
}

/// The software totals of every MAC's MIB.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct MibTotals {
    pub(crate) mac: [MibCounters; MAX_MACS],
}

/// What the watchdog saw last time it looked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WatchdogState {
    /// The engine's `dtx_ptr`.
    pub(crate) dtx: u32,
    /// MIB `tx_packets` summed over the MACs.
    pub(crate) sent: u64,
    /// Since when nothing moved (clock ns).
    pub(crate) since: u64,
    /// Resets done.
    pub(crate) resets: u64,
}
