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

use crate::eth::{Eth, EthError, Features, LroMode, apply_rx_checksum};
use crate::handles::EthCtl;
use crate::platform::Platform;

/// Whether `f` can be applied: TSO needs TX checksum, hardware LRO needs the SoC's LRO rings
/// (`hw_lro`), and no coalescing while the interface forwards.
fn check(f: Features, hw_lro: bool, forwarding: bool) -> Result<(), EthError> {
    if f.tso && !f.tx_checksum {
        return Err(EthError::BadFeatures);
    }
    if f.lro == LroMode::Hw && !hw_lro {
        return Err(EthError::Unsupported("this SoC has no hardware LRO"));
    }
    if f.lro != LroMode::Off && forwarding {
        return Err(EthError::LroWhileForwarding);
    }
    Ok(())
}

impl<P: Platform> Eth<P> {
    /// Applies `f`: the RX checksum bits of every enabled MAC's GDMA (now if open, else at the
    /// next `open`), the TX offloads requested by later frames, and hardware LRO on or off in
    /// the engine. TSO needs TX checksum.
    pub fn set_features(&mut self, f: Features) -> Result<(), EthError> {
        check(f, self.lro.present(), self.shared.forwarding())?;
        let was_hw = self.shared.features().lro == LroMode::Hw;
        if self.open && was_hw && f.lro != LroMode::Hw {
            self.hw_lro_disable()?;
        } else if self.open && !was_hw && f.lro == LroMode::Hw {
            self.hw_lro_enable();
        }
        self.ctl_handle().apply_features(f);
        Ok(())
    }

    /// [`EthCtl::set_forwarding`] on the whole engine (hardware LRO, if on, is turned off first).
    pub fn set_forwarding(&mut self, on: bool) -> Result<(), EthError> {
        let f = self.shared.features();
        if on && f.lro == LroMode::Hw {
            self.set_features(Features { lro: LroMode::Off, ..f })?;
        }
        self.ctl_handle().set_forwarding(on)
    }

    /// Whether the interface forwards or bridges (see [`Eth::set_forwarding`]).
    #[must_use]
    pub fn forwarding(&self) -> bool {
        self.shared.forwarding()
    }
}

impl<P: Platform> EthCtl<'_, P> {
    /// [`Eth::set_features`] from the control handle, while the other handles run. Turning
    /// hardware LRO on or off re-arms rings the RX handle owns, so on an open engine it is
    /// refused ([`EthError::NeedsWholeEngine`]); everything else applies at once.
    pub fn set_features(&mut self, f: Features) -> Result<(), EthError> {
        check(f, self.hw_lro, self.sh.forwarding())?;
        if self.open && (self.sh.features().lro == LroMode::Hw) != (f.lro == LroMode::Hw) {
            return Err(EthError::NeedsWholeEngine);
        }
        self.apply_features(f);
        Ok(())
    }

    /// Puts `f` in force for every handle and applies the RX checksum bits. Turning RX
    /// checksum off stops trusting the descriptors before the engine stops checking; turning
    /// it on starts checking first.
    fn apply_features(&mut self, f: Features) {
        let on = f.rx_checksum;
        if !on {
            self.sh.set_features(f);
        }
        if self.open {
            for id in 0..self.soc.fe.gdma.len() {
                if self.mac(id as u8).is_some_and(|m| m.enabled) {
                    apply_rx_checksum(self.p, self.soc, id, on);
                }
            }
        }
        self.sh.set_features(f);
    }

    /// The interface starts or stops forwarding or bridging (IP forwarding, a bridge port):
    /// while it does, coalescing is off (the `lro` feature forced to off and refused), so
    /// merged frames never reach a forwarding path. With hardware LRO on, this needs the whole
    /// engine ([`Eth::set_forwarding`]).
    pub fn set_forwarding(&mut self, on: bool) -> Result<(), EthError> {
        let f = self.sh.features();
        if on && f.lro != LroMode::Off {
            self.set_features(Features { lro: LroMode::Off, ..f })?;
        }
        self.sh.set_forwarding(on);
        Ok(())
    }

    /// The offloads in force.
    #[must_use]
    pub fn features(&self) -> Features {
        self.sh.features()
    }
}
