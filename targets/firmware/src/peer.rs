//! A link partner made of software: a `smoltcp` device sitting directly on one MAC's simulated
//! wire, for boards with a single enabled MAC (the other end of the TCP transfer).

use alloc::collections::VecDeque;
use alloc::vec::Vec;
use fe_sim::Sim;
use smoltcp::phy::{self, DeviceCapabilities, Medium};
use smoltcp::time::Instant;

/// The far end of MAC `mac`'s wire: receives what the MAC sends, sends into the MAC.
#[derive(Debug)]
pub struct WirePeer<'a> {
    sim: &'a Sim,
    mac: usize,
    rx: VecDeque<Vec<u8>>,
    out: VecDeque<Vec<u8>>,
}

impl<'a> WirePeer<'a> {
    /// The partner of MAC `mac` of `sim`.
    #[must_use]
    pub fn new(sim: &'a Sim, mac: usize) -> Self {
        WirePeer { sim, mac, rx: VecDeque::new(), out: VecDeque::new() }
    }

    /// Collects the frames the MAC has put on the wire by now.
    pub fn collect(&mut self) {
        self.rx.extend(self.sim.take_sent(self.mac).into_iter().map(|(_, f)| f));
    }

    /// The frames the partner has sent since the last call (the caller puts them on the wire).
    pub fn take_out(&mut self) -> VecDeque<Vec<u8>> {
        core::mem::take(&mut self.out)
    }

    /// The MAC this partner is wired to.
    #[must_use]
    pub fn mac(&self) -> usize {
        self.mac
    }
}

/// One frame from the wire.
#[derive(Debug)]
pub struct PeerRx(Vec<u8>);

/// Room for one frame onto the wire.
#[derive(Debug)]
pub struct PeerTx<'b> {
    out: &'b mut VecDeque<Vec<u8>>,
}

impl phy::RxToken for PeerRx {
    fn consume<R, F: FnOnce(&[u8]) -> R>(self, f: F) -> R {
        f(&self.0)
    }
}

impl phy::TxToken for PeerTx<'_> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        // Zero-padded to Ethernet's minimum, as the partner's own MAC would.
        let mut buf = alloc::vec![0; len.max(fe_driver::adapters::smoltcp::MIN_FRAME)];
        let r = f(&mut buf[..len]);
        self.out.push_back(buf);
        r
    }
}

impl phy::Device for WirePeer<'_> {
    type RxToken<'b>
        = PeerRx
    where
        Self: 'b;
    type TxToken<'b>
        = PeerTx<'b>
    where
        Self: 'b;

    fn receive(&mut self, _t: Instant) -> Option<(PeerRx, PeerTx<'_>)> {
        let f = self.rx.pop_front()?;
        Some((PeerRx(f), PeerTx { out: &mut self.out }))
    }

    fn transmit(&mut self, _t: Instant) -> Option<PeerTx<'_>> {
        Some(PeerTx { out: &mut self.out })
    }

    fn capabilities(&self) -> DeviceCapabilities {
        let mut caps = DeviceCapabilities::default();
        caps.medium = Medium::Ethernet;
        caps.max_transmission_unit = fe_driver::adapters::smoltcp::MTU;
        caps
    }
}
