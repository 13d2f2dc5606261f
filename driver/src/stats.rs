//! Software counters of the driver core: traffic per MAC, drops by cause, RX checksum verdicts.
//!
//! The MIB counters of the hardware (per MAC, read-to-clear) are accumulated in
//! [`crate::ethtool`]; these are the counters only software can keep.

use crate::dt::board::MAX_MACS;
use crate::error::TxError;

/// A software counter one context writes and any context reads, without a lock: the writer
/// adds with a plain load and store (no read-modify-write bus cycle on the packet path), a
/// reader sees some recent value. 64 bits wide where the target has 64-bit atomics; on a
/// 32-bit CPU without them (MIPS32) it is 32 bits wide and wraps, as Linux's `unsigned long`
/// netdev counters do there.
#[derive(Debug, Default)]
pub(crate) struct Counter(Cell);

#[cfg(target_has_atomic = "64")]
type Cell = core::sync::atomic::AtomicU64;
#[cfg(not(target_has_atomic = "64"))]
type Cell = core::sync::atomic::AtomicU32;

impl Counter {
    /// Adds `n`; only the counter's one writer calls this.
    #[inline(always)]
    pub(crate) fn add(&self, n: u64) {
        use core::sync::atomic::Ordering::Relaxed;
        // Truncation to a 32-bit cell is the documented wrap.
        #[allow(clippy::cast_possible_truncation)]
        self.0.store(self.0.load(Relaxed).wrapping_add(n as _), Relaxed);
    }

    /// Adds `n` with an atomic read-modify-write: for a counter several contexts write (the
    /// interrupt handlers of different lines).
    #[inline(always)]
    pub(crate) fn add_shared(&self, n: u64) {
        self.0.fetch_add(n as _, core::sync::atomic::Ordering::Relaxed);
    }

    /// The value now.
    #[inline(always)]
    pub(crate) fn get(&self) -> u64 {
        #[allow(clippy::useless_conversion)] // 32-bit cells on targets without 64-bit atomics
        u64::from(self.0.load(core::sync::atomic::Ordering::Relaxed))
    }
}

/// Declares a snapshot struct of plain `u64` counters (public, `Copy`) and its live twin of
/// [`Counter`]s (crate-private), with `snapshot()` from one to the other.
macro_rules! counters {
    ($(#[$m:meta])* $snap:ident, $live:ident { $($(#[$fm:meta])* $f:ident,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $snap {
            $($(#[$fm])* pub $f: u64,)*
        }

        #[doc = concat!("The live counters behind a [`", stringify!($snap), "`].")]
        #[derive(Debug, Default)]
        pub(crate) struct $live {
            $(pub(crate) $f: Counter,)*
        }

        impl $live {
            /// The values now.
            pub(crate) fn snapshot(&self) -> $snap {
                $snap { $($f: self.$f.get(),)* }
            }
        }
    };
}

counters! {
    /// Traffic of one MAC.
    MacCounters, MacCells {
        /// Frames delivered to the stack.
        rx_frames,
        /// Bytes delivered to the stack.
        rx_bytes,
        /// Frames the engine has taken from the TX ring (sent from the driver's side).
        tx_frames,
        /// Bytes the engine has taken from the TX ring.
        tx_bytes,
    }
}

counters! {
    /// Frames dropped, by cause.
    Drops, DropCells {
        /// TX: the ring had no free descriptor.
        tx_ring_full,
        /// TX: the frame was empty or longer than a TX buffer.
        tx_bad_length,
        /// TX: the MAC is not enabled in the device tree (or does not exist).
        tx_bad_mac,
        /// TX: the queue is past the SoC's queues.
        tx_bad_queue,
        /// TX: the MAC's link is down.
        tx_link_down,
        /// TX: the interface is not open.
        tx_not_open,
        /// TX: queued but not taken by the engine when the interface was closed.
        tx_teardown,
        /// TX: a DMA access was refused.
        tx_dma_error,
        /// TX: the frame asked for an offload (TX checksum, TSO) that is turned off.
        tx_offload_off,
        /// TX: a TSO frame that is not TCP, has a bad MSS, or needs too many descriptors.
        tx_bad_tso,
        /// RX: a frame spread over several buffers, or a bad length (never expected with 2 KiB buffers).
        rx_bad_descriptor,
        /// RX: the descriptor named a source port that is no MAC.
        rx_bad_port,
        /// RX: received but not polled when the interface was closed.
        rx_teardown,
        /// RX: a DMA access was refused.
        rx_dma_error,
        /// RX: zero-copy receive found the platform's buffer pool empty; the frame was dropped
        /// and its buffer posted again.
        rx_no_buffer,
        /// Hardware LRO did not confirm a relinquish in time (its aggregates may be lost).
        lro_relinquish_timeout,
    }
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

    /// Every RX drop.
    #[must_use]
    pub fn rx_total(&self) -> u64 {
        self.rx_bad_descriptor + self.rx_bad_port + self.rx_teardown + self.rx_dma_error + self.rx_no_buffer
    }
}

impl DropCells {
    /// Counts one TX frame refused with `e`.
    #[inline]
    pub(crate) fn count_tx(&self, e: TxError) {
        match e {
            TxError::NotOpen => &self.tx_not_open,
            TxError::BadMac => &self.tx_bad_mac,
            TxError::BadQueue => &self.tx_bad_queue,
            TxError::BadLength => &self.tx_bad_length,
            TxError::LinkDown => &self.tx_link_down,
            TxError::RingFull => &self.tx_ring_full,
            TxError::Dma(_) => &self.tx_dma_error,
            TxError::OffloadOff => &self.tx_offload_off,
            TxError::BadTso => &self.tx_bad_tso,
        }
        .add(1);
    }
}

/// All software counters, as read at one moment ([`crate::Eth::stats`]).
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

/// The live software counters, shared by the handles of one engine: each counter has one
/// writer (the TX path's by the TX handle, the RX path's by the RX handle; the interrupt
/// counters are updated atomically), and any handle may read them.
#[derive(Debug, Default)]
pub(crate) struct StatCells {
    pub(crate) mac: [MacCells; MAX_MACS],
    pub(crate) tx_submitted: Counter,
    pub(crate) drops: DropCells,
    // Unverified before verified, in the order of `RxChecksum`'s values: the RX paths pick the
    // counter by the verdict without arithmetic.
    pub(crate) rx_csum_unverified: Counter,
    pub(crate) rx_csum_verified: Counter,
    pub(crate) irq_rx: Counter,
    pub(crate) irq_tx: Counter,
    pub(crate) irq_spurious: Counter,
    pub(crate) hw_lro_frames: Counter,
    pub(crate) hw_lro_segments: Counter,
}

impl StatCells {
    /// Every counter now.
    pub(crate) fn snapshot(&self) -> Stats {
        Stats {
            mac: core::array::from_fn(|i| self.mac[i].snapshot()),
            tx_submitted: self.tx_submitted.get(),
            drops: self.drops.snapshot(),
            rx_csum_verified: self.rx_csum_verified.get(),
            rx_csum_unverified: self.rx_csum_unverified.get(),
            irq_rx: self.irq_rx.get(),
            irq_tx: self.irq_tx.get(),
            irq_spurious: self.irq_spurious.get(),
            hw_lro_frames: self.hw_lro_frames.get(),
            hw_lro_segments: self.hw_lro_segments.get(),
        }
    }

    /// Counts one frame delivered on MAC `mac` with its checksum verdict.
    #[inline]
    pub(crate) fn count_rx(&self, mac: u8, len: usize, checksum: crate::frame::RxChecksum) {
        self.count_rx_many(mac, 1, len as u64, checksum);
    }

    /// Counts `frames` frames of `bytes` bytes in all delivered on MAC `mac`, all with verdict
    /// `checksum`.
    #[inline]
    pub(crate) fn count_rx_many(&self, mac: u8, frames: u64, bytes: u64, checksum: crate::frame::RxChecksum) {
        match checksum {
            crate::frame::RxChecksum::Verified => self.rx_csum_verified.add(frames),
            crate::frame::RxChecksum::Unverified => self.rx_csum_unverified.add(frames),
        }
        if let Some(c) = self.mac.get(usize::from(mac)) {
            c.rx_frames.add(frames);
            c.rx_bytes.add(bytes);
        }
    }

    /// Counts one frame of `len` bytes the engine took on MAC `mac`.
    #[inline]
    pub(crate) fn count_tx_sent(&self, mac: u8, len: u64) {
        if let Some(c) = self.mac.get(usize::from(mac)) {
            c.tx_frames.add(1);
            c.tx_bytes.add(len);
        }
    }

    /// Frames sent on every MAC.
    pub(crate) fn tx_frames(&self) -> u64 {
        self.mac.iter().map(|m| m.tx_frames.get()).sum()
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
