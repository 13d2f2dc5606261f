//! The offloads a driver instance applies ([`Features`]) and which receive coalescing runs
//! ([`LroMode`]): plain values, read by every path and changed by `set_features`.

/// Offloads as the driver applies them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// RX checksum: GDMA ICS/TCS/UCS on and the descriptor's L4-valid bit trusted.
    pub rx_checksum: bool,
    /// TX checksum offload: `xmit` asks the engine to fill IPv4/TCP/UDP checksums.
    pub tx_checksum: bool,
    /// TCP segmentation offload (`xmit_tso`); needs `tx_checksum`.
    pub tso: bool,
    /// Receive coalescing (`ethtool -K ethX lro`): off, SoftLRO, or hardware LRO where the SoC
    /// has it (with SoftLRO for what the hardware does not merge).
    pub lro: LroMode,
}

/// Which receive coalescing engine runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LroMode {
    /// Every frame goes up as received.
    #[default]
    Off,
    /// SoftLRO in the core ([`crate::softlro`]), through [`crate::Eth::poll_coalesced`].
    Soft,
    /// Hardware LRO rings (capability `hw_lro`) for IPv4 TCP to programmed addresses, SoftLRO for
    /// the rest.
    Hw,
}

impl Default for Features {
    fn default() -> Self {
        Features { rx_checksum: true, tx_checksum: true, tso: true, lro: LroMode::Off }
    }
}
