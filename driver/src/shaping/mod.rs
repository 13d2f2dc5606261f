//! Per-port TX queues and the QDMA shaping decision, applied to the hardware.
//!
//! Queue map: traffic sent directly on MAC i goes to queue i, and those queues are never shaped
//! (their scheduler word stays at the SoC's base value: min rate only, no max rate), so a direct
//! link reaches line rate. Switch user port N goes to queue N + 3 (as the probe computed, within
//! the SoC's queue count) and gets a max rate only when its speed is known and slower than its
//! conduit MAC's current link; the QDMA shaper cannot shape close to the MAC's own rate without
//! losing throughput, so every other case keeps the base value.
//!
//! The decision is remade whenever a port's speed ([`Eth::port_link_changed`]) or its conduit's
//! link ([`Eth::link_up`], [`Eth::link_down`]) changes, and applied at [`Eth::open`] after the
//! per-queue base values. The rate encoding and weights come from the SoC's capabilities
//! ([`fe_regs::caps::Shaper`]); nothing here depends on which SoC it is.

pub mod ports;

use crate::dt::board::Shaping;
use crate::error::{EthError, TxError};
use crate::eth::{BUF_SIZE, Eth};
use crate::handles::{EthCtl, EthTx};
use crate::platform::Platform;
use crate::space_bus::CapBus;
pub use ports::{LABEL_LEN, MAX_TAG_PORT, TAG_LEN, UserPort, decide, sch_value, tag_frame};

impl<P: Platform> Eth<P> {
    /// The switch user ports, with their queues and shaping decisions.
    pub fn switch_ports(&self) -> impl Iterator<Item = &UserPort> {
        self.ports.iter().flatten()
    }

    /// Switch user port `port`: its QDMA queue and the shaping decision in force.
    #[must_use]
    pub fn port_queue(&self, port: u8) -> Option<(u8, Shaping)> {
        ports::find(&self.ports, port)
    }

    /// [`EthCtl::port_link_changed`] on the whole engine.
    pub fn port_link_changed(&mut self, mac: u8, port: u8, speed_mbps: Option<u32>) -> Result<(), EthError> {
        self.ctl_handle().port_link_changed(mac, port, speed_mbps)
    }

    /// [`EthTx::xmit_port`] on the whole engine.
    pub fn xmit_port(&mut self, mac: u8, port: u8, frame: &[u8]) -> Result<(), TxError> {
        self.tx_handle().xmit_port(mac, port, frame)
    }
}

impl<P: Platform> EthTx<'_, P> {
    /// Sends `frame` to switch user port `port` behind MAC `mac`: inserts the special tag and
    /// queues it on the port's QDMA queue. Like [`EthTx::xmit`], a frame that cannot be queued
    /// is counted as dropped (an unknown or untaggable port as a bad queue).
    pub fn xmit_port(&mut self, mac: u8, port: u8, frame: &[u8]) -> Result<(), TxError> {
        let queue = self.queues.queue(mac, port);
        let mut buf = [0u8; BUF_SIZE];
        let (queue, n) = match (queue, tag_frame(&mut buf, frame, port)) {
            (Some(q), Some(n)) => (q, n),
            (q, _) => {
                let e = if q.is_none() || port > MAX_TAG_PORT { TxError::BadQueue } else { TxError::BadLength };
                self.sh.stats.tx_submitted.add(1);
                self.sh.stats.drops.count_tx(e);
                return Err(e);
            }
        };
        self.xmit(mac, queue, &buf[..n])
    }
}

impl<P: Platform> EthCtl<'_, P> {
    /// The switch user ports, with their queues and shaping decisions.
    pub fn switch_ports(&self) -> impl Iterator<Item = &UserPort> {
        self.ports.iter().flatten()
    }

    /// Switch user port `port`: its QDMA queue and the shaping decision in force.
    #[must_use]
    pub fn port_queue(&self, port: u8) -> Option<(u8, Shaping)> {
        ports::find(self.ports, port)
    }

    /// Switch user port `port` behind MAC `mac` changed its link: `Some(speed)` in Mbit/s when up
    /// at a known speed, `None` when down or unknown. Remakes and applies its shaping decision.
    pub fn port_link_changed(&mut self, mac: u8, port: u8, speed_mbps: Option<u32>) -> Result<(), EthError> {
        let p = self.ports.iter_mut().flatten().find(|p| p.conduit_mac == mac && p.port == port);
        p.ok_or(EthError::NoSuchPort { mac, port })?.speed = speed_mbps;
        self.reshape(self.open, |p| p.conduit_mac == mac && p.port == port);
        Ok(())
    }

    /// The speed of MAC `mac`'s link now, or its fixed link's when down; `None` when unknown.
    fn conduit_speed(&self, mac: u8) -> Option<u32> {
        self.mac(mac).filter(|m| m.enabled).and_then(|m| m.link.or(m.fixed)).map(|l| l.speed)
    }

    /// Remakes the decision of every port `which` selects and, with `write`, writes its queue's
    /// scheduler word. Queues shared with a MAC are never written.
    fn reshape(&mut self, write: bool, which: impl Fn(&UserPort) -> bool) {
        let shaper = self.soc.caps.shaper;
        for i in 0..self.ports.len() {
            let Some(p) = self.ports[i].filter(|p| which(p)) else { continue };
            let shaping = decide(&shaper, p.own_queue, p.speed, self.conduit_speed(p.conduit_mac));
            if let Some(slot) = self.ports[i].as_mut() {
                slot.shaping = shaping;
            }
            if write && p.own_queue {
                self.write_sch(p.queue, sch_value(&shaper, shaping));
            }
        }
    }

    /// Remakes the decisions of the ports behind MAC `mac` (its link changed).
    pub(crate) fn reshape_conduit(&mut self, mac: u8) {
        self.reshape(self.open, |p| p.conduit_mac == mac);
    }

    /// Applies every port's decision; `open` calls it after writing the base values.
    pub(crate) fn apply_shaping(&mut self) {
        self.reshape(true, |_| true);
    }

    /// Writes queue `queue`'s scheduler word, if the SoC has that queue.
    fn write_sch(&self, queue: u8, value: u32) {
        if queue >= self.soc.caps.tx_queues {
            return;
        }
        if let Some(sch) = self.soc.caps.shaper.at(usize::from(queue)).and_then(|f| self.p.cap(f)) {
            sch.put(value);
        }
    }
}
