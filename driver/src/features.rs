//! `set_features`: RX/TX checksum offload and TSO applied to the hardware, while traffic flows.
//!
//! RX checksum reaches the GDMA: off clears the SoC's ICS/TCS/UCS bits (from the capabilities) of
//! every enabled MAC, so the engine stops checking, and the RX path stops trusting the
//! descriptor's L4-valid bit; on restores both. TX checksum and TSO are per-descriptor requests
//! (see [`crate::tx_offload`]), so changing them only changes what the next `xmit` asks for.

use crate::eth::{Eth, EthError, Features};
use crate::platform::Platform;

impl<P: Platform> Eth<P> {
    /// Applies `f`: the RX checksum bits of every enabled MAC's GDMA (now if open, else at the
    /// next `open`) and the TX offloads requested by later frames. TSO needs TX checksum.
    pub fn set_features(&mut self, f: Features) -> Result<(), EthError> {
        if f.tso && !f.tx_checksum {
            return Err(EthError::BadFeatures);
        }
        self.features = f;
        if self.open {
            for id in 0..self.soc.fe.gdma.len() {
                if self.mac(id as u8).is_some_and(|m| m.enabled) {
                    self.apply_rx_checksum(id, f.rx_checksum);
                }
            }
        }
        Ok(())
    }
}
