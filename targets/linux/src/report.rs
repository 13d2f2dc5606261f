//! Printing a probed [`Board`]: a readable report and the JSON format of `fe probe --json`.
//!
//! Strings from the device tree (compatible, phy modes, labels, node names) are printed with
//! their control characters escaped ([`Escaped`]): a board file cannot drive the terminal.

use fe_driver::dt::board::IrqSpec;
use fe_driver::dt::{Board, Duplex, Escaped, Link, ProbeError, Shaping};
use fe_regs::SocInfo;
use fe_regs::caps::{IrqLayout, RingPlacement};
use serde_json::{Value, json};
use std::fmt::Write;

fn region(r: fe_driver::dt::Region) -> Value {
    json!({"base": r.base, "size": r.size})
}

fn irq(i: &IrqSpec) -> Value {
    json!({"cells": &i.cells[..i.ncells as usize], "number": i.number()})
}

/// The SoC's capabilities as JSON (the same keys as `ddgen dump --json`'s `capabilities`).
pub fn caps_json(soc: &SocInfo) -> Value {
    let c = &soc.caps;
    json!({
        "rx_checksum": {"offset": c.rx_checksum.reg.offset, "stride": c.rx_checksum.reg.stride, "count": c.rx_checksum.reg.count, "mask": c.rx_checksum.mask},
        "tx_queues": c.tx_queues,
        "rx_rings": c.rx_rings,
        "hw_lro": c.hw_lro.map(|l| json!({"rings": l.rings, "ring_size": l.ring_size, "buffer_size": l.buffer_size, "max_segments": l.max_segments})),
        "irq": match c.irq.layout {
            IrqLayout::Shared { line } => json!({"lines": c.irq.lines, "shared": line}),
            IrqLayout::Split { tx, rx } => json!({"lines": c.irq.lines, "tx": tx, "rx": rx}),
        },
        "tx_descriptor": c.tx_descriptor.name(),
        "rx_descriptor": c.rx_descriptor.name(),
        "rings": match c.rings { RingPlacement::Dram => json!({"dram": true}), RingPlacement::Sram { offset } => json!({"sram": offset}) },
        "cold_reset": {"offset": c.cold_reset.reg.offset, "mask": c.cold_reset.mask},
        "shaper": {"base": c.shaper.base, "rates": c.shaper.rates.iter().map(|r| json!({"speed": r.speed_mbps, "man": r.man, "exp": r.exp, "weight": r.weight})).collect::<Vec<_>>()},
        "macs": c.macs.iter().map(|m| json!({"phy_modes": m.phy_modes})).collect::<Vec<_>>(),
        "clocks": c.clocks,
    })
}

fn link_name(l: &Link) -> &'static str {
    match l {
        Link::Fixed { .. } => "fixed",
        Link::Phy { .. } => "phy",
        Link::InBand => "in-band",
        Link::Unknown => "unknown",
    }
}

fn warning_json(w: &ProbeError) -> Value {
    json!({"path": w.path.to_string(), "property": w.property, "message": w.kind.to_string()})
}

/// What the probe did about a warning (every warning today disables a MAC).
const WARNING_ACTION: &str = "the MAC is disabled";

/// One path-setup write as JSON (`now`: the register's value read back, when known).
pub fn path_write_json(w: &fe_regs::caps::PathWrite, now: Option<u32>) -> Value {
    let mut v = json!({
        "space": w.space.name(),
        "register": w.register,
        "offset": w.offset,
        "mask": w.mask,
        "value": w.value,
        "fields": w.fields.iter().map(|(n, x)| json!({"name": n, "value": x})).collect::<Vec<_>>(),
    });
    if let Some(n) = now {
        v["now"] = json!(n);
        v["holds"] = json!(w.holds(n));
    }
    v
}

/// The board as JSON (format documented in `dts/README.md`).
pub fn to_json(p: &Board) -> Value {
    let macs: Vec<Value> = p
        .macs()
        .map(|m| {
            let (speed, duplex, pause) = match m.link {
                Link::Fixed { speed, duplex, pause } => {
                    (Some(speed), Some(if duplex == Duplex::Full { "full" } else { "half" }), pause)
                }
                _ => (None, None, false),
            };
            json!({
                "id": m.id,
                "path": m.path.to_string(),
                "enabled": m.enabled,
                "phy_mode": m.phy_mode,
                "link": link_name(&m.link),
                "speed": speed,
                "duplex": duplex,
                "pause": pause,
                "phy": match m.link { Link::Phy { phy } => Some(phy.to_string()), _ => None },
                "sfp": m.sfp.map(|s| s.to_string()),
                "managed": if m.in_band { "in-band-status" } else { "auto" },
                "queue": m.queue,
                "interface": m.enabled.then_some(m.phy_mode),
                // The writes `open` (and link-up) make for this MAC's interface.
                "path_setup": p.soc.caps.path_setup_for(m.id, m.phy_mode).filter(|_| m.enabled)
                    .map(|s| s.writes.iter().map(|w| path_write_json(w, None)).collect::<Vec<_>>()),
            })
        })
        .collect();
    let ports: Vec<Value> = p
        .switch_ports()
        .map(|s| {
            let (shaped, rate) = match s.shaping {
                Shaping::Unshaped => (json!(false), None),
                Shaping::Shaped { speed } => (json!(true), Some(speed)),
                Shaping::AtLinkUp => (Value::Null, None),
            };
            json!({
                "label": s.label,
                "port": s.port,
                "path": s.path.to_string(),
                "conduit_mac": s.conduit_mac,
                "speed": s.speed,
                "queue": s.queue,
                "shaped": shaped,
                "shape_rate_mbps": rate,
                "shaper_value": rate.and_then(|r| p.soc.caps.shaper.value_for(r)),
            })
        })
        .collect();
    json!({
        "soc": p.soc.name,
        "compatible": p.compatible,
        "path": p.path.to_string(),
        "reg": region(p.reg),
        "irqs": p.irqs().iter().map(irq).collect::<Vec<_>>(),
        "ethsys_path": p.ethsys_path.to_string(),
        "ethsys_reg": region(p.ethsys_reg),
        "irq_lines": {"tx": p.irq_lines.tx, "rx": p.irq_lines.rx, "by_name": p.irq_lines.by_name},
        "spaces": p.soc.spaces.iter().map(|l| json!({
            "space": l.space.name(),
            "property": l.property,
            "index": l.index,
            "path": if l.is_own_reg() { Some(p.path.to_string()) } else { p.space(l.space).map(|s| s.path.to_string()) },
            "reg": if l.is_own_reg() { Some(region(p.reg)) } else { p.space(l.space).map(|s| region(s.reg)) },
            "needed_by": p.needs(l.space).map(|n| n.to_string()),
        })).collect::<Vec<_>>(),
        "macs": macs,
        "switch_ports": ports,
        "warnings": p.warnings().map(|w| warning_json(&w)).collect::<Vec<_>>(),
        "capabilities": caps_json(p.soc),
    })
}

/// A readable multi-line report.
pub fn text(p: &Board) -> String {
    let mut s = String::new();
    let soc = p.soc;
    let _ = writeln!(s, "SoC        {} ({}) at {}", soc.name, Escaped(p.compatible), p.path);
    let _ = writeln!(
        s,
        "registers  {:#x} + {:#x}; ETHSYS {} at {:#x} + {:#x}",
        p.reg.base, p.reg.size, p.ethsys_path, p.ethsys_reg.base, p.ethsys_reg.size
    );
    let irqs: Vec<String> = p.irqs().iter().map(|i| i.number().to_string()).collect();
    let layout = match soc.caps.irq.layout {
        IrqLayout::Shared { line } => format!("one shared line (#{line})"),
        IrqLayout::Split { tx, rx } => format!("TX #{tx}, RX #{rx}"),
    };
    let _ = writeln!(s, "interrupts {} -> {layout}", irqs.join(", "));
    let lro = soc.caps.hw_lro.map_or("none".to_string(), |l| format!("{} rings", l.rings));
    let _ = writeln!(
        s,
        "caps       {} TX queues, RX descriptors {}, TX descriptors {}, hardware LRO {lro}",
        soc.caps.tx_queues,
        soc.caps.rx_descriptor.name(),
        soc.caps.tx_descriptor.name()
    );
    for m in p.macs() {
        let link = match m.link {
            Link::Fixed { speed, duplex, pause } => format!(
                "fixed {speed} Mbit/s {}{}",
                if duplex == Duplex::Full { "full" } else { "half" },
                if pause { " pause" } else { "" }
            ),
            Link::Phy { phy } => format!("PHY {phy}"),
            Link::InBand => format!("in-band{}", m.sfp.map(|s| format!(", SFP {s}")).unwrap_or_default()),
            Link::Unknown => "unknown until link-up".to_string(),
        };
        let _ = writeln!(
            s,
            "mac@{}      {:<8} {:<11} {link}; TX queue {}",
            m.id,
            if m.enabled { "enabled" } else { "disabled" },
            Escaped(m.phy_mode).to_string(),
            m.queue
        );
    }
    for sp in p.switch_ports() {
        let speed = sp.speed.map_or("?".to_string(), |v| format!("{v} Mbit/s"));
        let shaping = match sp.shaping {
            Shaping::Unshaped => "not shaped".to_string(),
            Shaping::Shaped { speed } => format!("shaped to {speed} Mbit/s"),
            Shaping::AtLinkUp => "shaping decided at link-up".to_string(),
        };
        let _ = writeln!(
            s,
            "port {:<2}    {:<8} via mac@{}, speed {speed}, TX queue {}, {shaping}",
            sp.port,
            Escaped(sp.label).to_string(),
            sp.conduit_mac,
            sp.queue
        );
    }
    for w in p.warnings() {
        let _ = writeln!(s, "warning    {w}; {WARNING_ACTION}");
    }
    s
}
