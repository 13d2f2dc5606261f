//! `ddgen dump --json`: the resolved model in a stable JSON format for other tools.
//!
//! Format (documented in `regs/README.md`): `{"soc", "compatible", "capabilities", "spaces":
//! {space: [{"name", "offset", "access", "reset", "fields": [{"name", "lsb", "width", "access"}]}]},
//! "space_dt": {space: {"property", "index"} | null}, "descriptors": {layout: {"size", "fields":
//! [{"name", "word", "lsb", "width"}]}}}`; the capabilities hold `path_setup`: `[{"mac", "modes",
//! "writes": [{"space", "register", "offset", "mask", "value", "fields": [{"name", "value"}]}]}]`.

use crate::caps::{IrqLayout, RegRef, RingPlacement, SocCaps};
use crate::model::Map;
use serde_json::{Map as JMap, Value, json};

fn reg_ref(r: &RegRef) -> Value {
    json!({"register": r.path, "offset": r.offset, "stride": r.stride, "count": r.count})
}

/// The capabilities as JSON.
pub fn caps_json(c: &SocCaps) -> Value {
    let (rx_reg, rx_fields, rx_mask) = &c.rx_checksum;
    let mut irq = match c.irq {
        IrqLayout::Shared { line } => json!({"lines": c.irq_lines, "shared": line}),
        IrqLayout::Split { tx, rx } => json!({"lines": c.irq_lines, "tx": tx, "rx": rx}),
    };
    if let Some(n) = &c.irq_names {
        irq["names"] = json!({"tx": n.tx, "rx": n.rx});
    }
    if let Some(m) = &c.irq_moderation {
        irq["moderation"] = json!({
            "time_unit_us": m.time_unit_us,
            "rx": {"packets": m.rx.packets, "time_us": m.rx.time_us},
            "tx": {"packets": m.tx.packets, "time_us": m.tx.time_us},
        });
    }
    json!({
        "rx_checksum": {"register": reg_ref(rx_reg), "fields": rx_fields, "mask": rx_mask},
        "tx_queues": c.tx_queues,
        "rx_rings": c.rx_rings,
        "hw_lro": c.hw_lro.as_ref().map(|l| json!({
            "rings": l.rings, "ring_size": l.ring_size, "buffer_size": l.buffer_size,
            "max_segments": l.max_segments, "timer_unit_us": l.timer_unit_us, "age_time_us": l.age_time_us,
            "max_agg_time_us": l.max_agg_time_us, "min_room": l.min_room, "dip_rules_per_mac": l.dip_rules_per_mac,
        })),
        "irq": irq,
        "tx_descriptor": c.tx_descriptor,
        "rx_descriptor": c.rx_descriptor,
        "rings": match c.rings { RingPlacement::Dram => json!({"dram": true}), RingPlacement::Sram { offset } => json!({"sram": offset}) },
        "cold_reset": {"register": reg_ref(&c.cold_reset.0), "mask": c.cold_reset.1},
        "shaper": {
            "register": reg_ref(&c.shaper_reg),
            "base": c.shaper_base,
            "fields": {
                "max_rate_en": {"lsb": c.shaper_fields[0].lsb, "width": c.shaper_fields[0].width},
                "max_rate_man": {"lsb": c.shaper_fields[1].lsb, "width": c.shaper_fields[1].width},
                "max_rate_exp": {"lsb": c.shaper_fields[2].lsb, "width": c.shaper_fields[2].width},
                "max_rate_weight": {"lsb": c.shaper_fields[3].lsb, "width": c.shaper_fields[3].width},
            },
            "rates": c.shaper_rates.iter().map(|r| json!({"speed": r.speed_mbps, "man": r.man, "exp": r.exp, "weight": r.weight})).collect::<Vec<_>>(),
        },
        "macs": c.macs.iter().map(|m| json!({"phy_modes": m.phy_modes})).collect::<Vec<_>>(),
        "clocks": c.clocks,
        "path_setup": c.path_setup.iter().map(|p| json!({
            "mac": p.mac,
            "modes": p.modes,
            "writes": p.writes.iter().map(|w| json!({
                "space": w.space, "register": w.register, "offset": w.offset, "mask": w.mask, "value": w.value,
                "fields": w.fields.iter().map(|(n, v)| json!({"name": n, "value": v})).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// The resolved map as JSON; `caps` is `None` for an abstract base.
pub fn to_json(m: &Map, caps: Option<&SocCaps>) -> Value {
    let mut spaces = JMap::new();
    for s in &m.spaces {
        let mut regs: Vec<(u64, Value)> = Vec::new();
        for b in &s.blocks {
            let bc = b.array.as_ref().map_or(1, |a| a.count.value);
            for bi in 0..bc {
                for r in &b.registers {
                    let rc = r.array.as_ref().map_or(1, |a| a.count.value);
                    let mut fields: Vec<_> = r.fields.iter().collect();
                    fields.sort_by_key(|f| f.bits.value.lsb);
                    // A field array is listed element by element (`name[n]`).
                    let fields: Vec<Value> = fields
                        .iter()
                        .flat_map(|f| {
                            (0..f.count()).map(move |n| {
                                let b = f.element(n);
                                let name = match f.array {
                                    Some(_) => format!("{}[{n}]", f.name.value),
                                    None => f.name.value.clone(),
                                };
                                json!({"name": name, "lsb": b.lsb, "width": b.width, "access": f.access(r).keyword()})
                            })
                        })
                        .collect();
                    for ri in 0..rc {
                        let name = b.element_name(bi, r, ri);
                        let offset = b.element_offset(bi, r, ri);
                        regs.push((offset, json!({"name": name, "offset": offset, "access": r.access.value.keyword(), "reset": r.reset.value, "fields": fields})));
                    }
                }
            }
        }
        regs.sort_by_key(|(o, _)| *o);
        spaces.insert(s.name.value.clone(), Value::Array(regs.into_iter().map(|(_, v)| v).collect()));
    }
    let mut descs = JMap::new();
    for d in &m.descriptors {
        let mut fields: Vec<_> = d.fields.iter().collect();
        fields.sort_by_key(|f| (f.word.value, f.bits.value.lsb));
        descs.insert(
            d.name.value.clone(),
            json!({"size": d.size.value, "fields": fields.iter().map(|f| json!({"name": f.name.value, "word": f.word.value, "lsb": f.bits.value.lsb, "width": f.bits.value.width})).collect::<Vec<_>>()}),
        );
    }
    json!({
        "soc": m.name.value,
        "abstract": m.is_abstract,
        "extends": m.ancestors.first(),
        "compatible": m.compatible.iter().map(|c| c.value.clone()).collect::<Vec<_>>(),
        "capabilities": caps.map(caps_json).unwrap_or(Value::Null),
        "spaces": spaces,
        "space_dt": m.spaces.iter().map(|s| (s.name.value.clone(), s.dt.as_ref().map_or(Value::Null, |d| json!({
            "property": d.value.value.property.value,
            "index": d.value.value.index.as_ref().map_or(0, |i| i.value),
        })))).collect::<JMap<_, _>>(),
        "descriptors": descs,
    })
}
