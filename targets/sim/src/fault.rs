//! Fault injection: events a test schedules at a simulated time.

use alloc::vec::Vec;

/// Something that goes wrong, applied at a chosen simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The RX DMA finds no free descriptor for `ns` nanoseconds: frames are dropped and counted
    /// in the MIB's `rx_overflow`, as when the ring is exhausted.
    RxStall {
        /// How long.
        ns: u64,
    },
    /// QDMA TX stops taking descriptors (a TX DMA hang) until a cold reset.
    TxHang,
    /// MAC `mac`'s link goes down: frames to and from it are lost, its MSR shows no link.
    LinkDown {
        /// MAC id.
        mac: usize,
    },
    /// MAC `mac`'s link comes back.
    LinkUp {
        /// MAC id.
        mac: usize,
    },
    /// MAC `mac`'s link changes speed.
    Speed {
        /// MAC id.
        mac: usize,
        /// New speed in Mbit/s.
        mbps: u32,
    },
    /// An interrupt status bit is raised with nothing behind it.
    SpuriousIrq {
        /// `true` for the TX-done bit, `false` for RX-done.
        tx: bool,
    },
    /// The next `count` interrupts (status bits the engine would raise) are lost.
    LostIrq {
        /// How many.
        count: u32,
    },
    /// The next `count` frames arriving at MAC `mac` are corrupted (a payload byte flipped, so
    /// their L4 checksum fails).
    Corrupt {
        /// MAC id.
        mac: usize,
        /// How many frames.
        count: u32,
    },
}

/// Faults waiting for their time, in time order.
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    events: Vec<(u64, Fault)>,
}

impl Schedule {
    /// Adds `fault` at time `at`.
    pub fn add(&mut self, at: u64, fault: Fault) {
        let i = self.events.partition_point(|(t, _)| *t <= at);
        self.events.insert(i, (at, fault));
    }

    /// Time of the next fault.
    #[must_use]
    pub fn next_time(&self) -> Option<u64> {
        self.events.first().map(|(t, _)| *t)
    }

    /// Removes and returns the faults due at or before `now`.
    pub fn due(&mut self, now: u64) -> Vec<(u64, Fault)> {
        let n = self.events.partition_point(|(t, _)| *t <= now);
        self.events.drain(..n).collect()
    }
}
