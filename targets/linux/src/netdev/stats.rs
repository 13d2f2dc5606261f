//! Counters of the TAP bridge (per MAC and for the whole run) and `fe stats` output: the
//! driver's `ethtool -S` counters next to the bridge's, as text or JSON.

use serde_json::{Map, Value, json};

/// Declares a counter struct whose fields are listed, in order, by `pairs()`.
macro_rules! counters {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $f:ident,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name {
            $($(#[$fm])* pub $f: u64,)*
        }

        impl $name {
            /// Every counter with its name, in declaration order.
            #[must_use]
            pub fn pairs(&self) -> Vec<(&'static str, u64)> {
                vec![$((stringify!($f), self.$f),)*]
            }
        }
    };
}

counters! {
    /// What the bridge did for one MAC.
    MacCounters {
        /// Frames Linux sent on the driver's TAP.
        host_tx_frames,
        /// Their bytes (without the virtio-net header).
        host_tx_bytes,
        /// Sent as they were (complete checksums).
        tx_plain,
        /// Sent with the engine's checksum offload.
        tx_engine_csum,
        /// Checksum completed in software, then sent.
        tx_soft_csum,
        /// GSO frames sent to the engine's TSO.
        tx_engine_tso,
        /// GSO frames cut in software.
        tx_soft_segmented,
        /// Frames refused (bad header, GSO kind not offered); dropped and counted here.
        tx_refused,
        /// Frames the driver refused (its drop counters say why).
        tx_xmit_errors,
        /// Frames that had to wait for room in the TX ring (kept and sent later, not dropped).
        tx_ring_backoff,
        /// Frames the MAC put on the wire, written to the peer TAP.
        wire_tx_frames,
        /// Their bytes.
        wire_tx_bytes,
        /// TCP payload bytes in them.
        wire_tx_tcp_payload_bytes,
        /// Of those, written up to the peer as GSO frames (coalesced by the peer's SoftLRO).
        peer_rx_gso,
        /// Frames the peer TAP would not take.
        peer_write_errors,
        /// Frames the peer's kernel sent on its TAP.
        peer_tx_frames,
        /// Of those, GSO frames cut into wire-sized segments.
        peer_tx_segmented,
        /// Of those, partial checksums completed.
        peer_tx_csum,
        /// Of those, frames refused (bad header, GSO kind not offered); dropped and counted here.
        peer_tx_refused,
        /// Frames that went onto the wire from the peer (segments counted one by one).
        wire_rx_frames,
        /// Their bytes.
        wire_rx_bytes,
        /// Frames written up to Linux on the driver's TAP.
        host_rx_frames,
        /// Their bytes (without the virtio-net header).
        host_rx_bytes,
        /// Of those, GSO frames (coalesced).
        host_rx_gso,
        /// Of those, single frames with NEEDS_CSUM (hardware-verified).
        host_rx_verified,
        /// Of those, frames with flags 0 (Linux checks them).
        host_rx_unverified,
        /// TCP segments the frames written up carry.
        host_rx_segments,
        /// TCP payload bytes in them.
        host_rx_tcp_payload_bytes,
        /// Frames the driver's TAP would not take.
        host_write_errors,
    }
}

counters! {
    /// What the bridge's event loop did.
    LoopCounters {
        /// Loop iterations.
        iterations,
        /// Simulation steps (advance, wire, RX poll, reclaim).
        steps,
        /// Waits with no timeout (the simulation was quiet).
        quiet_waits,
        /// Control requests served.
        ctl_requests,
        /// RX frames of a MAC without a TAP.
        rx_no_port,
        /// Times the namespace started forwarding (coalescing turned off).
        forwarding_started,
        /// Times it stopped forwarding (coalescing restored).
        forwarding_stopped,
        /// Times an interface's MTU was put back to the largest the MAC takes.
        mtu_clamped,
    }
}

/// `fe stats` as text: sections of `name: value` lines, like `ethtool -S`.
#[must_use]
pub fn text(v: &Value) -> String {
    let mut out = String::new();
    let s = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    for key in ["board", "soc", "pace", "sim_time_ns", "uptime_ms", "violations"] {
        if let Some(x) = v.get(key) {
            out.push_str(&format!("{key}: {}\n", s(x)));
        }
    }
    let section = |out: &mut String, title: &str, m: Option<&Value>| {
        if let Some(Value::Object(m)) = m {
            out.push_str(&format!("{title}:\n"));
            for (k, x) in m {
                out.push_str(&format!("    {k}: {}\n", s(x)));
            }
        }
    };
    section(&mut out, "features", v.get("features"));
    for m in v.get("macs").and_then(Value::as_array).into_iter().flatten() {
        let title =
            format!("mac {} ({} <-> {}, {} Mbit/s)", s(&m["id"]), s(&m["host"]), s(&m["peer"]), s(&m["link_mbps"]));
        out.push_str(&format!("{title}:\n"));
        for part in ["ethtool", "netdev"] {
            if let Some(Value::Object(c)) = m.get(part) {
                for (k, x) in c {
                    out.push_str(&format!("    {k}: {}\n", s(x)));
                }
            }
        }
    }
    section(&mut out, "device", v.get("device"));
    section(&mut out, "softlro", v.get("softlro"));
    section(&mut out, "loop", v.get("loop"));
    out
}

/// Counters as a JSON object.
#[must_use]
pub fn object(pairs: &[(&str, u64)]) -> Value {
    Value::Object(pairs.iter().map(|(k, v)| ((*k).to_string(), json!(v))).collect::<Map<_, _>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_lists_every_section() {
        let c = MacCounters { host_rx_frames: 3, ..MacCounters::default() };
        let v = json!({
            "board": "b.dts", "pace": "wire",
            "features": {"rx_checksum": true, "lro": "soft"},
            "macs": [{"id": 0, "host": "fe-gmac0", "peer": "fe-peer0", "link_mbps": 1000,
                      "ethtool": {"rx_packets": 5}, "netdev": object(&c.pairs())}],
            "device": {"tx_drop_ring_full": 0},
            "softlro": {"frames_in": 9},
        });
        let t = text(&v);
        for want in [
            "board: b.dts\n",
            "pace: wire\n",
            "features:\n    lro: soft\n",
            "mac 0 (fe-gmac0 <-> fe-peer0, 1000 Mbit/s):\n",
            "    rx_packets: 5\n",
            "    host_rx_frames: 3\n",
            "device:\n    tx_drop_ring_full: 0\n",
            "softlro:\n    frames_in: 9\n",
        ] {
            assert!(t.contains(want), "{want:?} missing in\n{t}");
        }
        assert_eq!(c.pairs().len(), 29);
        assert_eq!(c.pairs()[0].0, "host_tx_frames");
    }
}
