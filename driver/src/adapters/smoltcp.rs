//! The driver core under `smoltcp` (feature `smoltcp`): [`SmoltcpEth`] owns an [`Eth`] and
//! hands out one [`Port`] per MAC, each a [`smoltcp::phy::Device`]. No allocation: received frames
//! wait in a small stash of fixed slots the adapter owns, frames to send are built in one fixed
//! buffer and copied to the TX ring by [`Eth::xmit_with`].
//!
//! # Checksums
//!
//! smoltcp reads a device's capabilities once, in `Interface::new`, and keeps them; the driver's
//! features can change at any time after that (`ethtool -K`). So the checksum capabilities a port
//! reports do not change with the features: a port tells smoltcp that the *device* handles the
//! IPv4 header and TCP checksums in both directions, and the adapter keeps that promise with the
//! hardware where the driver's current features allow it and in software where they do not:
//!
//! * RX: a frame the driver delivers as [`RxChecksum::Verified`] (RX checksum on, the engine
//!   checked it) goes up as it is; an [`RxChecksum::Unverified`] one (RX checksum off, or the
//!   engine found it bad) is checked in software first and dropped and counted when its IPv4
//!   header or TCP checksum is wrong. Turning RX checksum on or off never lets a corrupt frame in,
//!   and costs the software check only for the frames the hardware did not vouch for.
//! * TX: with TX checksum offload on, every frame asks the engine to fill its checksums
//!   ([`TxMeta::csum`]); with it off, the adapter fills the IPv4 header and TCP checksums itself.
//! * UDP and ICMP checksums stay with smoltcp (a UDP datagram may be fragmented, and only smoltcp
//!   sees it whole); the engine's insertion is never asked of an IP fragment.
//!
//! TCP segmentation offload is not offered to smoltcp (its segmentation capability would be read
//! once as well, and a later `tso` off would leave the adapter with frames it could only cut up in
//! software). Coalesced frames ([`crate::RxFrame::segs`] > 1) go up as one frame when they fit a slot and
//! are counted; a larger one is dropped and counted, so size `SLOT` for the largest aggregate
//! when coalescing is on.

use crate::adapters::checksum::{self, SwVerdict};
use crate::eth::{BUF_SIZE, Eth};
use crate::frame::RxChecksum;
use crate::frame::TxMeta;
use crate::platform::Platform;
use ::smoltcp::phy::{self, Checksum, ChecksumCapabilities, DeviceCapabilities, Medium};
use ::smoltcp::time::Instant;

/// Largest Ethernet frame smoltcp may send (header included, no FCS).
pub const MTU: usize = 1514;

/// Shortest Ethernet frame on the wire without FCS; shorter frames are padded to it.
pub const MIN_FRAME: usize = 60;

/// What the adapter did, beyond the driver's own counters ([`Eth::stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AdapterStats {
    /// Frames handed to smoltcp.
    pub rx_frames: u64,
    /// Frames the hardware had verified (passed without a software check).
    pub rx_hw_verified: u64,
    /// Frames checked in software and found good.
    pub rx_sw_verified: u64,
    /// Frames dropped: IPv4 header or TCP checksum wrong (software check).
    pub rx_csum_bad: u64,
    /// Frames dropped: a TCP segment in an IP fragment that the hardware had not verified.
    pub rx_unverifiable: u64,
    /// Frames dropped: longer than a stash slot.
    pub rx_too_long: u64,
    /// Frames that carried more than one coalesced TCP segment.
    pub rx_coalesced: u64,
    /// TCP segments inside those coalesced frames.
    pub rx_coalesced_segs: u64,
    /// Frames queued on the TX ring.
    pub tx_frames: u64,
    /// Frames whose checksums the adapter filled in software (TX checksum offload off).
    pub tx_sw_csum: u64,
    /// Frames the driver refused (its drop counters say why).
    pub tx_refused: u64,
}

/// A received frame waiting for its MAC's port.
#[derive(Clone, Copy, Debug)]
struct Slot<const SLOT: usize> {
    mac: u8,
    len: usize,
    buf: [u8; SLOT],
}

/// Received frames in arrival order, in `SLOTS` fixed slots of `SLOT` bytes.
#[derive(Debug)]
struct Stash<const SLOT: usize, const SLOTS: usize> {
    slots: [Slot<SLOT>; SLOTS],
    /// Slot indices in arrival order; the first `used` are full.
    order: [usize; SLOTS],
    used: usize,
}

impl<const SLOT: usize, const SLOTS: usize> Stash<SLOT, SLOTS> {
    fn new() -> Self {
        let mut order = [0; SLOTS];
        for (i, o) in order.iter_mut().enumerate() {
            *o = i;
        }
        Stash { slots: [Slot { mac: 0, len: 0, buf: [0; SLOT] }; SLOTS], order, used: 0 }
    }

    /// Stores `data` from `mac` in a free slot; `false` (nothing stored) when none is free or the
    /// frame is longer than a slot.
    fn push(&mut self, mac: u8, data: &[u8]) -> bool {
        let Some(&i) = self.order.get(self.used) else { return false };
        let Some(dst) = self.slots[i].buf.get_mut(..data.len()) else { return false };
        dst.copy_from_slice(data);
        self.slots[i].mac = mac;
        self.slots[i].len = data.len();
        self.used += 1;
        true
    }

    /// Position in `order` of the oldest frame for `mac`.
    fn find(&self, mac: u8) -> Option<usize> {
        self.order[..self.used].iter().position(|&i| self.slots[i].mac == mac)
    }

    /// Frees the slot at `pos` in `order`, keeping the others in arrival order.
    fn remove(&mut self, pos: usize) {
        if pos < self.used {
            let i = self.order[pos];
            self.order.copy_within(pos + 1..self.used, pos);
            self.used -= 1;
            self.order[self.used] = i;
        }
    }
}

/// An [`Eth`] under smoltcp: a stash of received frames for every MAC, one TX buffer, counters.
/// `SLOT` is the size of one stash slot in bytes (at least a full frame, [`BUF_SIZE`] by
/// default), `SLOTS` how many frames may wait for a port that has not polled yet.
#[derive(Debug)]
pub struct SmoltcpEth<P: Platform, const SLOT: usize = BUF_SIZE, const SLOTS: usize = 8> {
    eth: Eth<P>,
    stash: Stash<SLOT, SLOTS>,
    tx_buf: [u8; BUF_SIZE],
    stats: AdapterStats,
}

impl<P: Platform, const SLOT: usize, const SLOTS: usize> SmoltcpEth<P, SLOT, SLOTS> {
    /// Wraps `eth` (opened or not: a closed interface sends and receives nothing).
    pub fn new(eth: Eth<P>) -> Self {
        SmoltcpEth { eth, stash: Stash::new(), tx_buf: [0; BUF_SIZE], stats: AdapterStats::default() }
    }

    /// MAC `mac` as a smoltcp device, for one `Interface::poll` (or `Interface::new`).
    pub fn port(&mut self, mac: u8) -> Port<'_, P, SLOT, SLOTS> {
        Port { mac, inner: self }
    }

    /// The driver.
    #[must_use]
    pub fn eth(&self) -> &Eth<P> {
        &self.eth
    }

    /// The driver, to change features, links or read counters. Frames polled from it directly
    /// bypass the ports.
    pub fn eth_mut(&mut self) -> &mut Eth<P> {
        &mut self.eth
    }

    /// The adapter's counters.
    #[must_use]
    pub fn stats(&self) -> AdapterStats {
        self.stats
    }

    /// Frames received and not yet taken by their port.
    #[must_use]
    pub fn stashed(&self) -> usize {
        self.stash.used
    }

    /// The driver back (frames still in the stash are dropped).
    pub fn into_inner(self) -> Eth<P> {
        self.eth
    }

    /// Polls the RX ring for as many frames as there are free slots, into the stash (every
    /// MAC's frames, in ring order). A frame the hardware did not verify is checked in software
    /// here, so the stash only ever holds frames that may go up.
    fn fill_stash(&mut self) -> usize {
        let room = SLOTS - self.stash.used;
        if room == 0 {
            return 0;
        }
        let (stash, st) = (&mut self.stash, &mut self.stats);
        self.eth.poll(room, &mut |f| {
            if f.segs > 1 {
                st.rx_coalesced += 1;
                st.rx_coalesced_segs += u64::from(f.segs);
            }
            if f.data.len() > SLOT {
                st.rx_too_long += 1;
                return;
            }
            match f.checksum {
                RxChecksum::Verified => st.rx_hw_verified += 1,
                RxChecksum::Unverified => match checksum::verify(f.data) {
                    SwVerdict::Good => st.rx_sw_verified += 1,
                    SwVerdict::Bad => {
                        st.rx_csum_bad += 1;
                        return;
                    }
                    SwVerdict::Unverifiable => {
                        st.rx_unverifiable += 1;
                        return;
                    }
                },
            }
            stash.push(f.mac, f.data);
        })
    }

    /// Position in the stash of the oldest frame for `mac`, polling the ring when there is none.
    fn next_for(&mut self, mac: u8) -> Option<usize> {
        self.stash.find(mac).or_else(|| {
            self.fill_stash();
            self.stash.find(mac)
        })
    }

    /// The capabilities every port reports (see the module documentation for why they do not
    /// follow the driver's checksum features).
    fn capabilities(&self) -> DeviceCapabilities {
        let mut checksum = ChecksumCapabilities::default();
        // IPv4 header and TCP: the device (engine or adapter) computes and verifies them.
        checksum.ipv4 = Checksum::None;
        checksum.tcp = Checksum::None;
        // UDP and ICMP stay with smoltcp (the default, `Both`).
        checksum.udp = Checksum::Both;
        let mut caps = DeviceCapabilities::default();
        caps.medium = Medium::Ethernet;
        caps.max_transmission_unit = MTU;
        caps.checksum = checksum;
        caps
    }
}

/// One MAC of a [`SmoltcpEth`] as a [`smoltcp::phy::Device`].
#[derive(Debug)]
pub struct Port<'a, P: Platform, const SLOT: usize, const SLOTS: usize> {
    mac: u8,
    inner: &'a mut SmoltcpEth<P, SLOT, SLOTS>,
}

/// A received frame in the stash, for smoltcp to read once.
#[derive(Debug)]
pub struct PortRx<'a, const SLOT: usize, const SLOTS: usize> {
    stash: &'a mut Stash<SLOT, SLOTS>,
    pos: usize,
}

/// Room for one frame on the TX ring of a MAC.
#[derive(Debug)]
pub struct PortTx<'a, P: Platform> {
    mac: u8,
    eth: &'a mut Eth<P>,
    buf: &'a mut [u8; BUF_SIZE],
    stats: &'a mut AdapterStats,
}

impl<const SLOT: usize, const SLOTS: usize> phy::RxToken for PortRx<'_, SLOT, SLOTS> {
    fn consume<R, F: FnOnce(&[u8]) -> R>(self, f: F) -> R {
        let i = self.stash.order[self.pos];
        let s = &self.stash.slots[i];
        let r = f(&s.buf[..s.len]);
        self.stash.remove(self.pos);
        r
    }
}

impl<P: Platform> phy::TxToken for PortTx<'_, P> {
    fn consume<R, F: FnOnce(&mut [u8]) -> R>(self, len: usize, f: F) -> R {
        // smoltcp never asks for more than the MTU it was given; a longer request gets the whole
        // buffer (and the frame is refused below) rather than a panic here.
        let n = len.min(BUF_SIZE);
        let r = f(&mut self.buf[..n]);
        // Ethernet's minimum frame (60 bytes without FCS): short frames (ARP) are zero-padded
        // here, as a MAC's driver must; IP parsers use the IP length and ignore the padding.
        let wire = n.max(MIN_FRAME);
        self.buf[n..wire].fill(0);
        let frame = &mut self.buf[..wire];
        let offload = self.eth.features().tx_checksum && !checksum::is_fragment(frame);
        if !offload {
            checksum::fill(frame);
            self.stats.tx_sw_csum += 1;
        }
        let q = self.eth.queue_for_mac(self.mac);
        let meta = TxMeta { csum: offload, tso_mss: None };
        if n == len && self.eth.xmit_with(self.mac, q, frame, meta).is_ok() {
            self.stats.tx_frames += 1;
        } else {
            self.stats.tx_refused += 1;
        }
        r
    }
}

impl<'a, P: Platform, const SLOT: usize, const SLOTS: usize> Port<'a, P, SLOT, SLOTS> {
    /// The MAC this port sends and receives on.
    #[must_use]
    pub fn mac(&self) -> u8 {
        self.mac
    }

    fn tx(&mut self) -> PortTx<'_, P> {
        let i = &mut *self.inner;
        PortTx { mac: self.mac, eth: &mut i.eth, buf: &mut i.tx_buf, stats: &mut i.stats }
    }
}

impl<P: Platform, const SLOT: usize, const SLOTS: usize> phy::Device for Port<'_, P, SLOT, SLOTS> {
    type RxToken<'b>
        = PortRx<'b, SLOT, SLOTS>
    where
        Self: 'b;
    type TxToken<'b>
        = PortTx<'b, P>
    where
        Self: 'b;

    fn receive(&mut self, _timestamp: Instant) -> Option<(Self::RxToken<'_>, Self::TxToken<'_>)> {
        let pos = self.inner.next_for(self.mac)?;
        self.inner.stats.rx_frames += 1;
        let i = &mut *self.inner;
        let rx = PortRx { stash: &mut i.stash, pos };
        let tx = PortTx { mac: self.mac, eth: &mut i.eth, buf: &mut i.tx_buf, stats: &mut i.stats };
        Some((rx, tx))
    }

    fn transmit(&mut self, _timestamp: Instant) -> Option<Self::TxToken<'_>> {
        let eth = &mut self.inner.eth;
        if eth.tx_room() == 0 {
            eth.reclaim();
        }
        (eth.tx_room() > 0).then(|| self.tx())
    }

    fn capabilities(&self) -> DeviceCapabilities {
        self.inner.capabilities()
    }
}
