//! Split handles: one engine driven from several contexts at once, as a kernel drives a NIC.
//!
//! [`Eth::split`] borrows the engine and gives four handles over disjoint parts of it:
//!
//! * [`EthTx`] (the TX ring): `xmit`, `xmit_burst`, `xmit_with`, `xmit_tso`, `xmit_port`,
//!   `reclaim`. A kernel calls it from `ndo_start_xmit` on any CPU, under its TX queue lock.
//! * [`EthRx`] (RX ring 0 and the hardware LRO rings): `poll`, `poll_coalesced`. NAPI, in
//!   softirq context.
//! * [`EthIrq`] (`Copy`, all methods on `&self`): `irq`, `irq_enable`. The hard-IRQ handler of
//!   each line and the end of a NAPI poll; the interrupt masks change only through
//!   [`fe_regs::bus::Bus::modify32`], which the platform makes atomic.
//! * [`EthCtl`] (MAC links, offloads, switch ports, MIB): `link_up`, `set_features`,
//!   `ethtool_stats`, … ethtool and phylink, under rtnl.
//!
//! What they share (offloads in force, which MACs can send, the software counters) is atomic
//! (the crate-private `shared` module), so every handle is `Send` when the platform is `Sync`. Bring-up,
//! teardown and reset (`open`, `close`, `watchdog`, hardware LRO on or off) need the whole
//! engine: a kernel stops its queues and NAPI first, as it does for `ndo_stop`.
//!
//! `Eth` keeps every entry point as a method that borrows itself, so single-context users
//! (firmware, the `fe` CLI) never split.

use crate::dt::board::MAX_MACS;
use crate::eth::{Eth, MacPort};
use crate::platform::Platform;
use crate::ring::lro::{LroRings, MAX_LRO_BUF};
use crate::ring::rx::{RX_RING, RxRing};
use crate::ring::tx::TxRing;
use crate::shaping::ports::{PortQueues, PortTable};
use crate::shared::Shared;
use crate::stats::MibTotals;
use fe_regs::SocInfo;
use fe_regs::descriptors::DescriptorLayout;

/// The TX side of an engine: queues frames and reclaims completed ones.
#[derive(Debug)]
pub struct EthTx<'a, P: Platform> {
    pub(crate) p: &'a P,
    pub(crate) soc: &'static SocInfo,
    pub(crate) tx_layout: DescriptorLayout,
    pub(crate) sh: &'a Shared,
    pub(crate) tx: &'a mut TxRing,
    pub(crate) open: bool,
    /// Bit per MAC enabled in the device tree.
    pub(crate) enabled: u8,
    pub(crate) queues: &'a PortQueues,
}

/// The RX side of an engine: polls ring 0 and the hardware LRO rings.
#[derive(Debug)]
pub struct EthRx<'a, P: Platform> {
    pub(crate) p: &'a P,
    pub(crate) soc: &'static SocInfo,
    pub(crate) rx_layout: DescriptorLayout,
    pub(crate) sh: &'a Shared,
    pub(crate) rx: &'a mut RxRing<RX_RING>,
    pub(crate) lro: &'a mut LroRings,
    /// RX copy-out buffer, big enough for a hardware LRO aggregate.
    pub(crate) scratch: &'a mut [u8; MAX_LRO_BUF],
    /// The enabled MAC behind each PSE source port ([`crate::eth::port_mac`]).
    pub(crate) rx_port: [u8; 8],
    pub(crate) open: bool,
    /// RX checksum verdicts are trusted in this poll (the feature, read once as the poll
    /// begins: a toggle takes effect at the next poll).
    pub(crate) trust_csum: bool,
}

/// The interrupt side of an engine: masks what an interrupt line reports and unmasks it when
/// the work is drained. Shared freely between the handlers of several lines and the poll loops.
#[derive(Debug)]
pub struct EthIrq<'a, P: Platform> {
    pub(crate) p: &'a P,
    pub(crate) soc: &'static SocInfo,
    pub(crate) sh: &'a Shared,
}

impl<P: Platform> Clone for EthIrq<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: Platform> Copy for EthIrq<'_, P> {}

/// The control side of an engine: MAC links, offloads, switch ports and statistics.
#[derive(Debug)]
pub struct EthCtl<'a, P: Platform> {
    pub(crate) p: &'a P,
    pub(crate) soc: &'static SocInfo,
    pub(crate) sh: &'a Shared,
    pub(crate) macs: &'a mut [Option<MacPort>; MAX_MACS],
    pub(crate) ports: &'a mut PortTable,
    pub(crate) mib: &'a mut MibTotals,
    pub(crate) open: bool,
    /// The SoC has hardware LRO rings.
    pub(crate) hw_lro: bool,
    /// TX watchdog resets so far (they need the whole engine, so this holds while split).
    pub(crate) resets: u64,
}

/// The four handles of a split engine ([`Eth::split`]).
#[derive(Debug)]
pub struct Split<'a, P: Platform> {
    /// Sends.
    pub tx: EthTx<'a, P>,
    /// Receives.
    pub rx: EthRx<'a, P>,
    /// Handles interrupts.
    pub irq: EthIrq<'a, P>,
    /// Controls links, offloads and statistics.
    pub ctl: EthCtl<'a, P>,
}

impl<P: Platform> Eth<P> {
    /// Splits the engine into its TX, RX, interrupt and control handles, to be driven from
    /// different contexts (threads, CPUs, interrupt levels) until they are dropped.
    pub fn split(&mut self) -> Split<'_, P> {
        let Eth {
            p,
            soc,
            tx_layout,
            rx_layout,
            macs,
            open,
            enabled,
            rx_port,
            shared,
            tx,
            rx,
            scratch,
            lro,
            mib,
            ports,
            queues,
            wd,
            ..
        } = self;
        let (p, soc, sh, open) = (&*p, *soc, &*shared, *open);
        let hw_lro = lro.present();
        Split {
            tx: EthTx { p, soc, tx_layout: *tx_layout, sh, tx, open, enabled: *enabled, queues },
            rx: EthRx {
                p,
                soc,
                rx_layout: *rx_layout,
                sh,
                rx,
                lro,
                scratch,
                rx_port: *rx_port,
                open,
                trust_csum: false,
            },
            irq: EthIrq { p, soc, sh },
            ctl: EthCtl { p, soc, sh, macs, ports, mib, open, hw_lro, resets: wd.resets },
        }
    }

    /// The TX handle alone.
    #[inline(always)]
    pub fn tx_handle(&mut self) -> EthTx<'_, P> {
        self.split().tx
    }

    /// The RX handle alone.
    #[inline(always)]
    pub fn rx_handle(&mut self) -> EthRx<'_, P> {
        self.split().rx
    }

    /// The interrupt handle alone.
    #[inline(always)]
    #[must_use]
    pub fn irq_handle(&self) -> EthIrq<'_, P> {
        EthIrq { p: &self.p, soc: self.soc, sh: &self.shared }
    }

    /// The control handle alone.
    #[inline(always)]
    pub fn ctl_handle(&mut self) -> EthCtl<'_, P> {
        self.split().ctl
    }
}
