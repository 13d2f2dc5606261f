//! Statistics named like `ethtool -S`: the hardware MIB counters of each MAC (read-to-clear,
//! accumulated into 64-bit software totals on every read) and the driver's software counters.
//!
//! The MIB names are those of Linux `mtk_eth_soc`; the software ones are this driver's.

use crate::dt::board::MAX_MACS;
use crate::eth::Eth;
use crate::handles::EthCtl;
use crate::platform::Platform;
pub use crate::stats::MibCounters;

/// Names of the MIB counters, in the order of [`MibCounters::values`].
pub const MIB_NAMES: [&str; 12] = [
    "tx_bytes",
    "tx_packets",
    "tx_skip",
    "tx_collisions",
    "rx_bytes",
    "rx_packets",
    "rx_overflow",
    "rx_fcs_errors",
    "rx_short_errors",
    "rx_long_errors",
    "rx_checksum_errors",
    "rx_flow_control_packets",
];

impl<P: Platform> Eth<P> {
    /// [`EthCtl::mib_update`] on the whole engine.
    pub fn mib_update(&mut self, mac: u8) {
        self.ctl_handle().mib_update(mac);
    }

    /// [`EthCtl::mib_update_all`] on the whole engine.
    pub fn mib_update_all(&mut self) {
        self.ctl_handle().mib_update_all();
    }

    /// [`EthCtl::mib`] on the whole engine.
    pub fn mib(&mut self, mac: u8) -> MibCounters {
        self.ctl_handle().mib(mac)
    }

    /// [`EthCtl::ethtool_stats`] on the whole engine.
    pub fn ethtool_stats(&mut self, mac: u8, out: &mut dyn FnMut(&'static str, u64)) {
        self.ctl_handle().ethtool_stats(mac, out);
    }
}

impl<P: Platform> EthCtl<'_, P> {
    /// Reads MAC `mac`'s MIB block (which clears it) and adds it to the 64-bit totals; the
    /// byte counters combine their low and high words.
    pub fn mib_update(&mut self, mac: u8) {
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        let (Some(m), Some(t)) = (fe.mib().at(mac as usize), self.mib.mac.get_mut(mac as usize)) else {
            return;
        };
        let wide = |lo: u32, hi: u32| u64::from(lo) | u64::from(hi) << 32;
        t.rx_bytes += wide(m.rx_bytes().read().0, m.rx_bytes_hi().read().0);
        t.rx_packets += u64::from(m.rx_packets().read().0);
        t.rx_overflow += u64::from(m.rx_overflow().read().0);
        t.rx_fcs_errors += u64::from(m.rx_fcs_errors().read().0);
        t.rx_short_errors += u64::from(m.rx_short_errors().read().0);
        t.rx_long_errors += u64::from(m.rx_long_errors().read().0);
        t.rx_checksum_errors += u64::from(m.rx_checksum_errors().read().0);
        t.rx_flow_control_packets += u64::from(m.rx_flow_control_packets().read().0);
        t.tx_skip += u64::from(m.tx_skip().read().0);
        t.tx_collisions += u64::from(m.tx_collisions().read().0);
        t.tx_bytes += wide(m.tx_bytes().read().0, m.tx_bytes_hi().read().0);
        t.tx_packets += u64::from(m.tx_packets().read().0);
    }

    /// Reads every MAC's MIB block into the totals (before a reset clears them, or periodically
    /// so that no 32-bit counter wraps between reads).
    pub fn mib_update_all(&mut self) {
        for mac in 0..self.soc.fe.mib.len().min(MAX_MACS) {
            self.mib_update(mac as u8);
        }
    }

    /// MAC `mac`'s MIB totals, after reading the hardware counters.
    pub fn mib(&mut self, mac: u8) -> MibCounters {
        self.mib_update(mac);
        self.mib.mac.get(mac as usize).copied().unwrap_or_default()
    }

    /// Every counter of MAC `mac` as `ethtool -S` shows it: the MIB totals (read now), then
    /// the driver's counters of that MAC, then the device-wide checksum verdicts, drops by cause
    /// and TX watchdog resets. Allocates nothing.
    pub fn ethtool_stats(&mut self, mac: u8, out: &mut dyn FnMut(&'static str, u64)) {
        let mib = self.mib(mac);
        for (name, v) in MIB_NAMES.iter().zip(mib.values()) {
            out(name, v);
        }
        let s = self.stats();
        let c = s.mac.get(mac as usize).copied().unwrap_or_default();
        out("sw_tx_packets", c.tx_frames);
        out("sw_tx_bytes", c.tx_bytes);
        out("sw_rx_packets", c.rx_frames);
        out("sw_rx_bytes", c.rx_bytes);
        let d = &s.drops;
        let sw: [(&'static str, u64); 24] = [
            ("rx_csum_verified", s.rx_csum_verified),
            ("rx_csum_unverified", s.rx_csum_unverified),
            ("tx_drop_ring_full", d.tx_ring_full),
            ("tx_drop_bad_length", d.tx_bad_length),
            ("tx_drop_bad_mac", d.tx_bad_mac),
            ("tx_drop_bad_queue", d.tx_bad_queue),
            ("tx_drop_link_down", d.tx_link_down),
            ("tx_drop_not_open", d.tx_not_open),
            ("tx_drop_teardown", d.tx_teardown),
            ("tx_drop_dma_error", d.tx_dma_error),
            ("tx_drop_offload_off", d.tx_offload_off),
            ("tx_drop_bad_tso", d.tx_bad_tso),
            ("rx_drop_bad_descriptor", d.rx_bad_descriptor),
            ("rx_drop_bad_port", d.rx_bad_port),
            ("rx_drop_teardown", d.rx_teardown),
            ("rx_drop_dma_error", d.rx_dma_error),
            ("rx_drop_no_buffer", d.rx_no_buffer),
            ("tx_timeout_resets", self.resets),
            ("hw_lro_frames", s.hw_lro_frames),
            ("hw_lro_segments", s.hw_lro_segments),
            ("lro_relinquish_timeout", d.lro_relinquish_timeout),
            ("irq_rx", s.irq_rx),
            ("irq_tx", s.irq_tx),
            ("irq_spurious", s.irq_spurious),
        ];
        for (name, v) in sw {
            out(name, v);
        }
    }
}

impl<P: Platform> EthCtl<'_, P> {
    /// The software counters now.
    #[must_use]
    pub fn stats(&self) -> crate::stats::Stats {
        self.sh.stats.snapshot()
    }
}
