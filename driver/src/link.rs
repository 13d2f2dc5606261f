//! MAC links on the control handle: `link_up` and `link_down` from a PHY, an SFP or in-band
//! status (phylink's `mac_link_up`/`mac_link_down`), and the MACs as the driver knows them.
//!
//! A link change reprograms the MAC's force mode, updates which MACs the TX handle may send on
//! (one atomic mask), and remakes the shaping decisions of the switch ports behind the MAC.

use crate::eth::{Eth, EthError, LinkState, MacPort, program_mcr, ready_mask};
use crate::handles::EthCtl;
use crate::platform::Platform;

impl<P: Platform> Eth<P> {
    /// [`EthCtl::link_up`] on the whole engine.
    pub fn link_up(&mut self, mac: u8, state: LinkState) -> Result<(), EthError> {
        self.ctl_handle().link_up(mac, state)
    }

    /// [`EthCtl::link_down`] on the whole engine.
    pub fn link_down(&mut self, mac: u8) -> Result<(), EthError> {
        self.ctl_handle().link_down(mac)
    }
}

impl<P: Platform> EthCtl<'_, P> {
    /// MAC `id` as the driver knows it.
    #[must_use]
    pub fn mac(&self, id: u8) -> Option<&MacPort> {
        self.macs.get(id as usize).and_then(Option::as_ref)
    }

    /// MAC `mac`'s link came up (from a PHY, SFP or in-band status): programs force mode with
    /// the speed, duplex and pause. A fixed link is up from `open` without this call.
    pub fn link_up(&mut self, mac: u8, state: LinkState) -> Result<(), EthError> {
        self.set_link(mac, Some(state))
    }

    /// MAC `mac`'s link went down: the MAC goes back to the link-down default.
    pub fn link_down(&mut self, mac: u8) -> Result<(), EthError> {
        self.set_link(mac, None)
    }

    /// Records MAC `mac`'s link, lets the TX handle send on it (or stops it), programs the MAC
    /// while the engine is open, and reshapes the ports behind it.
    fn set_link(&mut self, mac: u8, link: Option<LinkState>) -> Result<(), EthError> {
        let m = self.macs.get_mut(mac as usize).and_then(Option::as_mut).filter(|m| m.enabled);
        let m = m.ok_or(EthError::NoSuchMac(mac))?;
        m.link = link;
        let interface = m.interface;
        if link.is_none() {
            // Stop sending before the MAC stops.
            self.sh.set_tx_ready(ready_mask(self.macs, self.open));
        }
        if self.open {
            if link.is_some() {
                // Path setup again at link-up (phylink's mac_config runs before mac_link_up).
                crate::path_setup::apply(self.p, self.soc, mac, interface)?;
            }
            program_mcr(self.p, self.soc, mac as usize, link);
        }
        self.sh.set_tx_ready(ready_mask(self.macs, self.open));
        self.reshape_conduit(mac);
        Ok(())
    }
}
