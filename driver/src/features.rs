//! `set_features`: RX/TX checksum offload and TSO applied to the hardware, while traffic flows.
//!
//! RX checksum reaches the GDMA: off clears the SoC's ICS/TCS/UCS bits (from the capabilities) of
//! every enabled MAC, so the engine stops checking, and the RX path stops trusting the
//! descriptor's L4-valid bit; on restores both. TX checksum and TSO are per-descriptor requests
//! (see [`crate::tx_offload`]), so changing them only changes what the next `xmit` asks for.
//! Receive coalescing (`lro`) turns hardware LRO on or off in the engine (relinquishing its
//! flows first, so nothing is lost) and decides what [`Eth::poll_coalesced`] does; it stays off
//! while the interface forwards or bridges (the MediaTek driver's `fix_features` forced it back
//! on and broke bridging: bug B6 of `docs/lro-rules.md`).

use crate::eth::{Eth, EthError, Features, LroMode};
use crate::platform::Platform;

impl<P: Platform> Eth<P> {
    /// Applies `f`: the RX checksum bits of every enabled MAC's GDMA (now if open, else at the
    /// next `open`) and the TX offloads requested by later frames. TSO needs TX checksum.
    pub fn set_features(&mut self, f: Features) -> Result<(), EthError> {
        if f.tso && !f.tx_checksum {
            return Err(EthError::BadFeatures);
        }
        if f.lro == LroMode::Hw && self.lro.is_none() {
            return Err(EthError::Unsupported("this SoC has no hardware LRO"));
        }
        if f.lro != LroMode::Off && self.forwarding {
            return Err(EthError::LroWhileForwarding);
        }
        let was_hw = self.features.lro == LroMode::Hw;
        self.features = f;
        if self.open && was_hw != (f.lro == LroMode::Hw) {
            if was_hw {
                self.hw_lro_disable()?;
            } else {
                self.hw_lro_enable();
            }
        }
        if self.open {
            for id in 0..self.soc.fe.gdma.len() {
                if self.mac(id as u8).is_some_and(|m| m.enabled) {
                    self.apply_rx_checksum(id, f.rx_checksum);
                }
            }
        }
        Ok(())
    }

    /// The interface starts or stops forwarding or bridging (IP forwarding, a bridge port):
    /// while it does, coalescing is off (hardware LRO relinquished and disabled, the `lro`
    /// feature forced to off and refused), so merged frames never reach a forwarding path.
    pub fn set_forwarding(&mut self, on: bool) -> Result<(), EthError> {
        if on && self.features.lro != LroMode::Off {
            self.set_features(Features { lro: LroMode::Off, ..self.features })?;
        }
        self.forwarding = on;
        Ok(())
    }

    /// Whether the interface forwards or bridges (see [`Eth::set_forwarding`]).
    #[must_use]
    pub fn forwarding(&self) -> bool {
        self.forwarding
    }
}
