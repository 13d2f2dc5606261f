//! Capabilities checked against the map they refer to, in the form the generator and `dump` use.
//!
//! Most resolved types are the capability schema's own ([`crate::caps_schema`]); [`SocCaps`]
//! keeps what only checks and `dump` need (register paths, field names) and projects to the
//! runtime [`Capabilities`] in [`SocCaps::runtime`], which the emitter prints as the SoC literal.

use crate::ast::{self, HwLroSpec};
pub use crate::caps_schema::{
    Capabilities, ColdReset, FieldPos, HwLro, Irq, IrqLayout, IrqModeration, IrqNames, MacCaps, ModerationLimits,
    PathSetup, PathWrite, RawReg, RingPlacement, RxChecksumCtl, Shaper, ShaperRate,
};
use crate::model::{In, Map};
use crate::resolve::suggest;
use crate::source::{Diagnostic, Span};

/// A register named by a capability, with its absolute offset and repetition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegRef {
    /// `space.block.register`.
    pub path: String,
    /// Space name.
    pub space: String,
    /// Absolute offset of element 0 in its space.
    pub offset: u64,
    /// Bytes between elements (0 for a single register).
    pub stride: u64,
    /// Number of elements (1 for a single register).
    pub count: u64,
}

/// The delay-interrupt registers interrupt moderation is written into (same layout each).
pub const DELAY_IRQ_REGISTERS: [&str; 2] = ["fe.pdma.delay_irq", "fe.qdma.delay_irq"];

/// The checked capabilities of one SoC.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SocCaps {
    /// RX checksum control register, its field names and their mask.
    pub rx_checksum: (RegRef, Vec<String>, u32),
    /// QDMA TX queues.
    pub tx_queues: u64,
    /// Normal RX rings.
    pub rx_rings: u64,
    /// Hardware LRO, if any.
    pub hw_lro: Option<HwLro>,
    /// Number of DT interrupts.
    pub irq_lines: u64,
    /// Which lines do what.
    pub irq: IrqLayout,
    /// Interrupt moderation, if the SoC's YAML gives it.
    pub irq_moderation: Option<IrqModeration>,
    /// TX descriptor layout name.
    pub tx_descriptor: String,
    /// RX descriptor layout name.
    pub rx_descriptor: String,
    /// Where the rings live.
    pub rings: RingPlacement,
    /// Cold-reset register and mask.
    pub cold_reset: (RegRef, u32),
    /// Shaper register.
    pub shaper_reg: RegRef,
    /// Shaper init value.
    pub shaper_base: u32,
    /// Shaper fields: max_rate_en, max_rate_man, max_rate_exp, max_rate_weight.
    pub shaper_fields: [FieldPos; 4],
    /// Shaper table.
    pub shaper_rates: Vec<ShaperRate>,
    /// Accepted phy modes per MAC.
    pub macs: Vec<MacCaps>,
    /// Required clock names.
    pub clocks: Vec<String>,
    /// `interrupt-names` entries of the TX and RX lines (the shared line's name twice), if any.
    pub irq_names: Option<IrqNames>,
    /// Where the device tree puts each space.
    pub spaces: Vec<crate::path_setup::SpaceLoc>,
    /// MAC interface and path setup.
    pub path_setup: Vec<PathSetup>,
}

/// PHY modes the language knows (the `phy-mode` values of the Linux binding that these MACs use).
pub const PHY_MODES: &[&str] = &[
    "mii",
    "rmii",
    "gmii",
    "rgmii",
    "rgmii-id",
    "rgmii-rxid",
    "rgmii-txid",
    "trgmii",
    "sgmii",
    "1000base-x",
    "2500base-x",
    "usxgmii",
    "10gbase-r",
    "internal",
];

/// Shaper field names the language requires in the shaper register, in [`SocCaps::shaper_fields`] order.
pub const SHAPER_FIELDS: [&str; 4] = ["max_rate_en", "max_rate_man", "max_rate_exp", "max_rate_weight"];

fn reg_ref(map: &Map, path: &In<String>, diags: &mut Vec<Diagnostic>) -> Option<RegRef> {
    let p = &path.value.value;
    match map.find_register(p) {
        Some((space, block, reg)) => {
            let (stride, count) = match (&block.array, &reg.array) {
                (Some(a), _) => (a.stride.value, a.count.value),
                (None, Some(a)) => (a.stride.value, a.count.value),
                (None, None) => (0, 1),
            };
            Some(RegRef {
                path: p.clone(),
                space: space.name.value.clone(),
                offset: block.base.value.saturating_add(reg.offset.value),
                stride,
                count,
            })
        }
        None => {
            let all: Vec<String> = map
                .spaces
                .iter()
                .flat_map(|s| {
                    s.blocks.iter().flat_map(move |b| {
                        b.registers.iter().map(move |r| format!("{}.{}.{}", s.name.value, b.name.value, r.name.value))
                    })
                })
                .collect();
            let mut d = Diagnostic::error(
                path.span(),
                format!("capability names register `{p}`, which `{}` does not have", map.name.value),
            )
            .label("expected `space.block.register`");
            if let Some(s) = suggest(p, all.iter().map(String::as_str)) {
                d = d.note(format!("help: did you mean `{s}`?"));
            }
            diags.push(d);
            None
        }
    }
}

fn field_pos(map: &Map, path: &str, name: &str, span: Span, diags: &mut Vec<Diagnostic>) -> Option<FieldPos> {
    let (_, _, reg) = map.find_register(path)?;
    match reg.fields.iter().find(|f| f.name.value == name) {
        Some(f) if f.array.is_some() => {
            diags.push(
                Diagnostic::error(span, format!("field `{name}` of `{path}` is a field array"))
                    .label("a capability names one field, not an array of them"),
            );
            None
        }
        Some(f) => Some(FieldPos { lsb: f.bits.value.lsb.into(), width: f.bits.value.width.into() }),
        None => {
            let mut d = Diagnostic::error(span, format!("register `{path}` has no field `{name}`"));
            if let Some(s) = suggest(name, reg.fields.iter().map(|f| f.name.value.as_str())) {
                d = d.note(format!("help: did you mean `{s}`?"));
            }
            diags.push(d);
            None
        }
    }
}

/// `s`, a value inside capability `parent`, located in `parent`'s file.
pub(crate) fn sub<T: Clone>(parent: &In<impl Sized>, s: &serde_saphyr::Spanned<T>) -> In<T> {
    In { file: parent.file, value: s.clone() }
}

/// Checks the capabilities of concrete SoC `map` and lowers them; `None` if any check failed.
pub fn lower(map: &Map, diags: &mut Vec<Diagnostic>) -> Option<SocCaps> {
    let c = &map.caps;
    let before = diags.len();
    c.path_setup.as_ref()?;
    let (rxc, txq, rxr, lro, irq, txd, rxd, rings, cold, shaper, macs, clocks) = (
        c.rx_checksum.as_ref()?,
        c.tx_queues.as_ref()?,
        c.rx_rings.as_ref()?,
        c.hw_lro.as_ref()?,
        c.irq.as_ref()?,
        c.tx_descriptor.as_ref()?,
        c.rx_descriptor.as_ref()?,
        c.rings.as_ref()?,
        c.cold_reset.as_ref()?,
        c.shaper.as_ref()?,
        c.macs.as_ref()?,
        c.clocks.as_ref()?,
    );

    // rx_checksum
    let rx_reg = reg_ref(map, &sub(rxc, &rxc.value.value.register), diags);
    let mut rx_mask = 0u32;
    let mut rx_fields = Vec::new();
    if rxc.value.value.fields.is_empty() {
        diags.push(
            Diagnostic::error(rxc.span(), "`rx_checksum` names no fields").label("list the ICS/TCS/UCS enable fields"),
        );
    }
    for f in &rxc.value.value.fields {
        if let Some(p) = field_pos(map, &rxc.value.value.register.value, &f.value, sub(rxc, f).span(), diags) {
            let bits = ast::Bits { lsb: p.lsb as u32, width: p.width as u32 };
            rx_mask |= (crate::model::mask(bits) & 0xffff_ffff) as u32;
            rx_fields.push(f.value.clone());
        }
    }

    // counts
    let range = |v: &In<u64>, lo: u64, hi: u64, what: &str, diags: &mut Vec<Diagnostic>| {
        if v.value.value < lo || v.value.value > hi {
            diags.push(Diagnostic::error(v.span(), format!("`{what}` is {}; it must be {lo}..={hi}", v.value.value)));
        }
    };
    range(txq, 1, 64, "tx_queues", diags);
    range(rxr, 1, 16, "rx_rings", diags);

    // hw_lro
    let hw_lro = match &lro.value.value {
        HwLroSpec::None => None,
        HwLroSpec::Some(l) => {
            let h = HwLro {
                rings: l.rings.value,
                ring_size: l.ring_size.value,
                buffer_size: l.buffer_size.value,
                max_segments: l.max_segments.value,
                timer_unit_us: l.timer_unit_us.value,
                age_time_us: l.age_time_us.value,
                max_agg_time_us: l.max_agg_time_us.value,
                min_room: l.min_room.value,
                dip_rules_per_mac: l.dip_rules_per_mac.value,
            };
            range(&sub(lro, &l.rings), 1, 16, "hw_lro.rings", diags);
            range(&sub(lro, &l.ring_size), 1, 65535, "hw_lro.ring_size", diags);
            range(&sub(lro, &l.buffer_size), 64, 1 << 20, "hw_lro.buffer_size", diags);
            range(&sub(lro, &l.max_segments), 1, 255, "hw_lro.max_segments", diags);
            range(&sub(lro, &l.timer_unit_us), 1, 1_000_000, "hw_lro.timer_unit_us", diags);
            range(&sub(lro, &l.dip_rules_per_mac), 0, 16, "hw_lro.dip_rules_per_mac", diags);
            if h.min_room >= h.buffer_size {
                diags.push(Diagnostic::error(
                    sub(lro, &l.min_room).span(),
                    "`hw_lro.min_room` must be smaller than `buffer_size`",
                ));
            }
            for (v, n) in [(&l.age_time_us, "age_time_us"), (&l.max_agg_time_us, "max_agg_time_us")] {
                // The ring control words hold both times in 16-bit fields of timer units.
                let Some(unit) = core::num::NonZeroU64::new(h.timer_unit_us) else { continue };
                if v.value / unit > u64::from(u16::MAX) {
                    diags.push(Diagnostic::error(
                        sub(lro, v).span(),
                        format!(
                            "`hw_lro.{n}` ({} us) is {} timer units of {} us; the LRO ring registers hold at most 65535",
                            v.value,
                            v.value / unit,
                            h.timer_unit_us
                        ),
                    ));
                }
                if v.value % unit != 0 {
                    diags.push(Diagnostic::error(
                        sub(lro, v).span(),
                        format!(
                            "`hw_lro.{n}` ({}) is not a multiple of the timer unit ({} us)",
                            v.value, h.timer_unit_us
                        ),
                    ));
                }
            }
            Some(h)
        }
    };

    // irq
    let i = &irq.value.value;
    let lines = i.lines.value;
    let irq_layout = match (&i.shared, &i.tx, &i.rx) {
        (Some(s), None, None) => Some(IrqLayout::Shared { line: s.value }),
        (None, Some(t), Some(r)) => {
            if t.value == r.value {
                diags.push(Diagnostic::error(
                    sub(irq, r).span(),
                    "`irq.tx` and `irq.rx` name the same line; use `shared:` for one line",
                ));
            }
            Some(IrqLayout::Split { tx: t.value, rx: r.value })
        }
        _ => {
            diags.push(
                Diagnostic::error(irq.span(), "`irq` needs either `shared: INDEX` or both `tx:` and `rx:`")
                    .label("not both, not neither"),
            );
            None
        }
    };
    for idx in [&i.shared, &i.tx, &i.rx].into_iter().flatten() {
        if idx.value >= lines {
            diags.push(Diagnostic::error(
                sub(irq, idx).span(),
                format!("interrupt index {} is out of range: the SoC has {lines} lines", idx.value),
            ));
        }
    }
    if lines == 0 || lines > 16 {
        diags.push(Diagnostic::error(sub(irq, &i.lines).span(), format!("`irq.lines` is {lines}; it must be 1..=16")));
    }

    // irq moderation (checked by the `irq_moderation_fits` pass)
    let irq_moderation = i.moderation.as_ref().map(|m| {
        let lim = |l: &ast::ModerationLimits| ModerationLimits { packets: l.packets.value, time_us: l.time_us.value };
        IrqModeration {
            time_unit_us: m.value.time_unit_us.value,
            rx: lim(&m.value.rx.value),
            tx: lim(&m.value.tx.value),
        }
    });

    // descriptors
    for d in [txd, rxd] {
        if map.find_descriptor(&d.value.value).is_none() {
            let mut dg = Diagnostic::error(
                d.span(),
                format!("no descriptor layout named `{}` in `{}`", d.value.value, map.name.value),
            );
            if let Some(s) = suggest(&d.value.value, map.descriptors.iter().map(|x| x.name.value.as_str())) {
                dg = dg.note(format!("help: did you mean `{s}`?"));
            }
            diags.push(dg);
        }
    }

    // rings
    let rg = &rings.value.value;
    let placement = match (&rg.sram, rg.dram) {
        (Some(s), false) if s.value % 4 != 0 || s.value > u64::from(u32::MAX) => {
            // The core reads and writes SRAM descriptors as 32-bit words of the `fe` space.
            diags.push(
                Diagnostic::error(
                    sub(rings, s).span(),
                    format!("SRAM offset {:#x} is not a 4-byte aligned offset in the 32-bit `fe` space", s.value),
                )
                .label("descriptors in SRAM are 32-bit words at this offset"),
            );
            None
        }
        (Some(s), false) => Some(RingPlacement::Sram { offset: s.value }),
        (None, true) => Some(RingPlacement::Dram),
        _ => {
            diags.push(Diagnostic::error(rings.span(), "`rings` needs exactly one of `dram: true` or `sram: OFFSET`"));
            None
        }
    };

    // cold reset
    let cold_reg = reg_ref(map, &sub(cold, &cold.value.value.register), diags);
    let cold_mask = cold.value.value.mask.value;
    if cold_mask == 0 || cold_mask > u32::MAX as u64 {
        diags.push(Diagnostic::error(
            sub(cold, &cold.value.value.mask).span(),
            format!("cold-reset mask {cold_mask:#x} must be a non-zero 32-bit value"),
        ));
    }

    // shaper
    let sh = &shaper.value.value;
    let sh_reg = reg_ref(map, &sub(shaper, &sh.register), diags);
    let mut sh_fields: [FieldPos; 4] = std::array::from_fn(|_| FieldPos { lsb: 0, width: 0 });
    if sh_reg.is_some() {
        for (k, name) in SHAPER_FIELDS.iter().enumerate() {
            if let Some(p) = field_pos(map, &sh.register.value, name, sub(shaper, &sh.register).span(), diags) {
                sh_fields[k] = p;
            }
        }
    }
    if sh.base.value > u32::MAX as u64 {
        diags.push(Diagnostic::error(sub(shaper, &sh.base).span(), "shaper `base` is wider than 32 bits"));
    }
    let mut rates = Vec::new();
    for r in &sh.rates {
        let v = &r.value;
        for (val, pos, what) in
            [(v.man, &sh_fields[1], "man"), (v.exp, &sh_fields[2], "exp"), (v.weight, &sh_fields[3], "weight")]
        {
            if pos.width > 0 && val >= 1u64.checked_shl(pos.width as u32).unwrap_or(u64::MAX) {
                diags.push(Diagnostic::error(
                    sub(shaper, r).span(),
                    format!("shaper `{what}` {val} does not fit the {}-bit field", pos.width),
                ));
            }
        }
        if rates.iter().any(|x: &ShaperRate| x.speed_mbps == v.speed) {
            diags.push(Diagnostic::error(
                sub(shaper, r).span(),
                format!("shaper rate for {} Mbit/s is given twice", v.speed),
            ));
        }
        rates.push(ShaperRate { speed_mbps: v.speed, man: v.man, exp: v.exp, weight: v.weight });
    }

    // macs
    if macs.value.value.is_empty() || macs.value.value.len() > 8 {
        diags.push(Diagnostic::error(macs.span(), "`macs` must list 1..=8 MACs"));
    }
    let mut mac_modes = Vec::new();
    for m in &macs.value.value {
        let mut modes = Vec::new();
        for p in &m.phy_modes {
            if !PHY_MODES.contains(&p.value.as_str()) {
                let mut d = Diagnostic::error(sub(macs, p).span(), format!("unknown phy mode `{}`", p.value));
                if let Some(s) = suggest(&p.value, PHY_MODES.iter().copied()) {
                    d = d.note(format!("help: did you mean `{s}`?"));
                }
                diags.push(d.note(format!("known modes: {}", PHY_MODES.join(", "))));
            }
            modes.push(p.value.clone());
        }
        mac_modes.push(MacCaps { phy_modes: modes });
    }

    if diags.len() != before {
        return None;
    }
    Some(SocCaps {
        rx_checksum: (rx_reg?, rx_fields, rx_mask),
        tx_queues: txq.value.value,
        rx_rings: rxr.value.value,
        hw_lro,
        irq_lines: lines,
        irq: irq_layout?,
        irq_moderation,
        tx_descriptor: txd.value.value.clone(),
        rx_descriptor: rxd.value.value.clone(),
        rings: placement?,
        cold_reset: (cold_reg?, cold_mask as u32),
        shaper_reg: sh_reg?,
        shaper_base: sh.base.value as u32,
        shaper_fields: sh_fields,
        shaper_rates: rates,
        macs: mac_modes,
        clocks: clocks.value.value.iter().map(|c| c.value.clone()).collect(),
        irq_names: i.names.as_ref().and_then(|n| {
            let n = &n.value;
            match (&n.shared, &n.tx, &n.rx) {
                (Some(s), _, _) => Some(IrqNames { tx: s.value.clone(), rx: s.value.clone() }),
                (None, Some(t), Some(r)) => Some(IrqNames { tx: t.value.clone(), rx: r.value.clone() }),
                _ => None,
            }
        }),
        spaces: crate::path_setup::spaces(map),
        path_setup: crate::path_setup::lower(map),
    })
}

impl SocCaps {
    /// The runtime capabilities (the generated crate's `caps::Capabilities`) these resolve to:
    /// the SoC's literal is this value printed by [`crate::caps_schema::Kind::lit`].
    pub fn runtime(&self) -> Capabilities {
        let raw = |r: &RegRef| RawReg { space: r.space.clone(), offset: r.offset, stride: r.stride, count: r.count };
        let [en, man, exp, weight] = self.shaper_fields.clone();
        Capabilities {
            rx_checksum: RxChecksumCtl { reg: raw(&self.rx_checksum.0), mask: self.rx_checksum.2.into() },
            tx_queues: self.tx_queues,
            rx_rings: self.rx_rings,
            hw_lro: self.hw_lro.clone(),
            irq: Irq {
                lines: self.irq_lines,
                layout: self.irq.clone(),
                moderation: self.irq_moderation.clone(),
                names: self.irq_names.clone(),
            },
            tx_descriptor: self.tx_descriptor.clone(),
            rx_descriptor: self.rx_descriptor.clone(),
            rings: self.rings.clone(),
            cold_reset: ColdReset { reg: raw(&self.cold_reset.0), mask: self.cold_reset.1.into() },
            shaper: Shaper {
                reg: raw(&self.shaper_reg),
                base: self.shaper_base.into(),
                max_rate_en: en,
                max_rate_man: man,
                max_rate_exp: exp,
                max_rate_weight: weight,
                rates: self.shaper_rates.clone(),
            },
            macs: self.macs.clone(),
            clocks: self.clocks.clone(),
            path_setup: self.path_setup.clone(),
        }
    }
}
