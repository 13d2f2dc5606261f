//! The state every handle of one engine reads while the others run: the offloads in force, the
//! forwarding flag, which MACs can send now, and the software counters.
//!
//! Everything here is an atomic, so the TX, RX, interrupt and control handles
//! ([`crate::handles`]) share it by `&` from different contexts. Each value has one writer at a
//! time (the control handle, or `Eth` itself while it is not split); readers on the packet
//! paths take it with a relaxed load, which is a plain load on every CPU the core targets.

use crate::offload::{Features, LroMode};
use crate::stats::StatCells;
use core::sync::atomic::{AtomicBool, AtomicU8, Ordering::Relaxed};

/// The shared state of one engine.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    /// [`Features`], packed by [`pack`].
    features: AtomicU8,
    /// The interface forwards or bridges: no receive coalescing.
    forwarding: AtomicBool,
    /// Bit `m` set while the engine is open and MAC `m` is enabled with its link up: the one
    /// test `xmit` makes on its fast path.
    tx_ready: AtomicU8,
    /// The software counters.
    pub(crate) stats: StatCells,
}

/// Bits of a packed [`Features`].
const RX_CSUM: u8 = 1;
const TX_CSUM: u8 = 2;
const TSO: u8 = 4;
const LRO_SHIFT: u8 = 3;

/// `f` in one byte.
fn pack(f: Features) -> u8 {
    let lro = match f.lro {
        LroMode::Off => 0,
        LroMode::Soft => 1,
        LroMode::Hw => 2,
    };
    let bit = |on: bool, b: u8| if on { b } else { 0 };
    bit(f.rx_checksum, RX_CSUM) | bit(f.tx_checksum, TX_CSUM) | bit(f.tso, TSO) | lro << LRO_SHIFT
}

/// The [`Features`] packed in `b`.
fn unpack(b: u8) -> Features {
    let lro = match b >> LRO_SHIFT {
        1 => LroMode::Soft,
        2 => LroMode::Hw,
        _ => LroMode::Off,
    };
    Features { rx_checksum: b & RX_CSUM != 0, tx_checksum: b & TX_CSUM != 0, tso: b & TSO != 0, lro }
}

impl Shared {
    /// Shared state with `features` in force, nothing ready to send, counters at zero.
    pub(crate) fn new(features: Features) -> Self {
        Shared { features: AtomicU8::new(pack(features)), ..Shared::default() }
    }

    /// The offloads in force.
    #[inline(always)]
    pub(crate) fn features(&self) -> Features {
        unpack(self.features.load(Relaxed))
    }

    /// Whether RX checksum verdicts are trusted now (one bit of [`Shared::features`]).
    #[inline(always)]
    pub(crate) fn rx_checksum(&self) -> bool {
        self.features.load(Relaxed) & RX_CSUM != 0
    }

    /// Whether TX checksum offload is on now.
    #[inline(always)]
    pub(crate) fn tx_checksum(&self) -> bool {
        self.features.load(Relaxed) & TX_CSUM != 0
    }

    /// Puts `f` in force for every handle.
    pub(crate) fn set_features(&self, f: Features) {
        self.features.store(pack(f), Relaxed);
    }

    /// Whether the interface forwards or bridges.
    #[inline(always)]
    pub(crate) fn forwarding(&self) -> bool {
        self.forwarding.load(Relaxed)
    }

    /// Sets the forwarding flag.
    pub(crate) fn set_forwarding(&self, on: bool) {
        self.forwarding.store(on, Relaxed);
    }

    /// The MACs that can send now (bit per MAC id).
    #[inline(always)]
    pub(crate) fn tx_ready(&self) -> u8 {
        self.tx_ready.load(Relaxed)
    }

    /// Sets the MACs that can send now.
    pub(crate) fn set_tx_ready(&self, mask: u8) {
        self.tx_ready.store(mask, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_survive_packing() {
        for b in 0u8..32 {
            let f = unpack(b);
            assert_eq!(unpack(pack(f)), f);
        }
        let f = Features { rx_checksum: false, tx_checksum: true, tso: false, lro: LroMode::Hw };
        assert_eq!(unpack(pack(f)), f);
    }
}
