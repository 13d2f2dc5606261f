//! The generated maps checked against literal values from `docs/mtk-eth-facts.md` (Linux 6.12), not
//! against anything the generator computed: offsets, field positions, descriptor layouts and
//! capabilities for each SoC.

use fe_regs::caps::{IrqLayout, RingPlacement};
use fe_regs::descriptors::{DescriptorLayout, RxV1, RxV2, TxV1, TxV2};
use fe_regs::{SOCS, SocInfo, by_compatible, mt7621, mt7623, mt7986};

fn soc(c: &str) -> &'static SocInfo {
    by_compatible(c).unwrap_or_else(|| panic!("no SoC for {c}"))
}

/// Offsets of the `mtk_reg_map` fields and fixed registers, per SoC (facts a.1 / a.2).
fn reg_map_offsets(info: &SocInfo) -> Vec<(&'static str, u32)> {
    let fe = &info.fe;
    let ethsys = info.map::<fe_regs::maps::EthsysSpace>().expect("every bundled SoC has ethsys");
    let p = &fe.pdma;
    let q = &fe.qdma;
    fn at<T: Copy, A>(a: fe_regs::bus::RegArray<T, A>, i: usize) -> u32 {
        a.at(i).map(|r| r.offset()).unwrap_or_else(|| panic!("index {i} out of range"))
    }
    let g0 = fe.gdma.at(0).unwrap();
    let g1 = fe.gdma.at(1).unwrap();
    let m0 = fe.mac.at(0).unwrap();
    let m1 = fe.mac.at(1).unwrap();
    let mib0 = fe.mib.at(0).unwrap();
    let mib1 = fe.mib.at(1).unwrap();
    vec![
        ("pdma.rx_ptr[0]", at(p.rx_ptr, 0)),
        ("pdma.rx_ptr[3]", at(p.rx_ptr, 3)),
        ("pdma.rx_cnt_cfg[0]", at(p.rx_cnt_cfg, 0)),
        ("pdma.pcrx_ptr[0]", at(p.pcrx_ptr, 0)),
        ("pdma.glo_cfg", p.glo_cfg.offset()),
        ("pdma.rst_idx", p.rst_idx.offset()),
        ("pdma.delay_irq", p.delay_irq.offset()),
        ("pdma.irq_status", p.irq_status.offset()),
        ("pdma.irq_mask", p.irq_mask.offset()),
        ("pdma.adma_rx_dbg0", p.adma_rx_dbg0.offset()),
        ("pdma.int_grp", p.int_grp.offset()),
        ("pdma.int_grp2", p.int_grp2.offset()),
        ("qdma.qtx_cfg[0]", at(q.qtx_cfg, 0)),
        ("qdma.qtx_cfg[15]", at(q.qtx_cfg, 15)),
        ("qdma.qtx_sch[0]", at(q.qtx_sch, 0)),
        ("qdma.qtx_sch[15]", at(q.qtx_sch, 15)),
        ("qdma.rx_ptr", at(q.rx_ptr, 0)),
        ("qdma.rx_cnt_cfg", at(q.rx_cnt_cfg, 0)),
        ("qdma.qcrx_ptr", at(q.qcrx_ptr, 0)),
        ("qdma.glo_cfg", q.glo_cfg.offset()),
        ("qdma.rst_idx", q.rst_idx.offset()),
        ("qdma.delay_irq", q.delay_irq.offset()),
        ("qdma.fc_th", q.fc_th.offset()),
        ("qdma.tx_sch_rate", q.tx_sch_rate.offset()),
        ("qdma.int_status", q.int_status.offset()),
        ("qdma.int_mask", q.int_mask.offset()),
        ("qdma.int_grp", q.int_grp.offset()),
        ("qdma.int_grp2", q.int_grp2.offset()),
        ("qdma.hred", q.hred.offset()),
        ("qdma.ctx_ptr", q.ctx_ptr.offset()),
        ("qdma.dtx_ptr", q.dtx_ptr.offset()),
        ("qdma.crx_ptr", q.crx_ptr.offset()),
        ("qdma.drx_ptr", q.drx_ptr.offset()),
        ("qdma.fq_head", q.fq_head.offset()),
        ("qdma.fq_tail", q.fq_tail.offset()),
        ("qdma.fq_count", q.fq_count.offset()),
        ("qdma.fq_blen", q.fq_blen.offset()),
        ("gdma[0].fwd_cfg", g0.fwd_cfg.offset()),
        ("gdma[1].fwd_cfg", g1.fwd_cfg.offset()),
        ("gdma[0].mac_adrl", g0.mac_adrl.offset()),
        ("gdma[1].mac_adrh", g1.mac_adrh.offset()),
        ("mac[0].mcr", m0.mcr.offset()),
        ("mac[1].mcr", m1.mcr.offset()),
        ("mac[0].msr", m0.msr.offset()),
        ("mac[1].fsm", m1.fsm.offset()),
        ("mib[0]", mib0.rx_bytes.offset()),
        ("mib[1]", mib1.rx_bytes.offset()),
        ("mib[0].tx_packets", mib0.tx_packets.offset()),
        ("pse.iq_sta", fe.pse.iq_sta.offset()),
        ("pse.oq_sta", fe.pse.oq_sta.offset()),
        ("fe.int_grp", fe.fe.int_grp.offset()),
        ("fe.int_status2", fe.fe.int_status2.offset()),
        ("cdmq.ig_ctrl", fe.cdmq.ig_ctrl.offset()),
        ("cdmp.ig_ctrl", fe.cdmp.ig_ctrl.offset()),
        ("mdio.ppsc", fe.mdio.ppsc.offset()),
        ("mdio.phy_iac", fe.mdio.phy_iac.offset()),
        ("ethsys.rstctrl", ethsys.sys.rstctrl.offset()),
        // One register at 0x14, in the v1 (shared SGMII field) or the v2 (bit per MAC) layout.
        (
            "ethsys.syscfg0",
            (ethsys.sys.syscfg0.map(|r| r.offset()))
                .or(ethsys.sys.syscfg0_v2.map(|r| r.offset()))
                .expect("SYSCFG0 in one layout"),
        ),
        ("ethsys.clkcfg0", ethsys.sys.clkcfg0.offset()),
        ("ethsys.dma_ag_map", ethsys.sys.dma_ag_map.offset()),
        ("ethsys.fe_rst_chk_idle_en", ethsys.sys.fe_rst_chk_idle_en.offset()),
    ]
}

/// Facts a.1 (mtk_reg_map column) and a.2/a.3, shared by MT7621 and MT7623.
const V1: &[(&str, u32)] = &[
    ("pdma.rx_ptr[0]", 0x0900),
    ("pdma.rx_ptr[3]", 0x0930),
    ("pdma.rx_cnt_cfg[0]", 0x0904),
    ("pdma.pcrx_ptr[0]", 0x0908),
    ("pdma.glo_cfg", 0x0a04),
    ("pdma.rst_idx", 0x0a08),
    ("pdma.delay_irq", 0x0a0c),
    ("pdma.irq_status", 0x0a20),
    ("pdma.irq_mask", 0x0a28),
    ("pdma.adma_rx_dbg0", 0x0a38),
    ("pdma.int_grp", 0x0a50),
    ("pdma.int_grp2", 0x0a54),
    ("qdma.qtx_cfg[0]", 0x1800),
    ("qdma.qtx_cfg[15]", 0x18f0),
    ("qdma.qtx_sch[0]", 0x1804),
    ("qdma.qtx_sch[15]", 0x18f4),
    ("qdma.rx_ptr", 0x1900),
    ("qdma.rx_cnt_cfg", 0x1904),
    ("qdma.qcrx_ptr", 0x1908),
    ("qdma.glo_cfg", 0x1a04),
    ("qdma.rst_idx", 0x1a08),
    ("qdma.delay_irq", 0x1a0c),
    ("qdma.fc_th", 0x1a10),
    ("qdma.tx_sch_rate", 0x1a14),
    ("qdma.int_status", 0x1a18),
    ("qdma.int_mask", 0x1a1c),
    ("qdma.int_grp", 0x1a20),
    ("qdma.int_grp2", 0x1a24),
    ("qdma.hred", 0x1a44),
    ("qdma.ctx_ptr", 0x1b00),
    ("qdma.dtx_ptr", 0x1b04),
    ("qdma.crx_ptr", 0x1b10),
    ("qdma.drx_ptr", 0x1b14),
    ("qdma.fq_head", 0x1b20),
    ("qdma.fq_tail", 0x1b24),
    ("qdma.fq_count", 0x1b28),
    ("qdma.fq_blen", 0x1b2c),
    ("gdma[0].fwd_cfg", 0x0500),
    ("gdma[1].fwd_cfg", 0x1500),
    ("gdma[0].mac_adrl", 0x0508),
    ("gdma[1].mac_adrh", 0x150c),
    ("mac[0].mcr", 0x10100),
    ("mac[1].mcr", 0x10200),
    ("mac[0].msr", 0x10108),
    ("mac[1].fsm", 0x1020c),
    ("mib[0]", 0x2400),
    ("mib[1]", 0x2440),
    ("mib[0].tx_packets", 0x2438),
    ("pse.iq_sta", 0x0110),
    ("pse.oq_sta", 0x0118),
    ("fe.int_grp", 0x0020),
    ("fe.int_status2", 0x0008),
    ("cdmq.ig_ctrl", 0x1400),
    ("cdmp.ig_ctrl", 0x0400),
    ("mdio.ppsc", 0x10000),
    ("mdio.phy_iac", 0x10004),
    ("ethsys.rstctrl", 0x34),
    ("ethsys.syscfg0", 0x14),
    ("ethsys.clkcfg0", 0x2c),
    ("ethsys.dma_ag_map", 0x408),
    ("ethsys.fe_rst_chk_idle_en", 0x28),
];

/// Facts a.1, `mt7986_reg_map` (>= v6.10, ADMAv1) column; everything else as V1.
const MT7986_DIFF: &[(&str, u32)] = &[
    ("pdma.rx_ptr[0]", 0x4100),
    ("pdma.rx_ptr[3]", 0x4130),
    ("pdma.rx_cnt_cfg[0]", 0x4104),
    ("pdma.pcrx_ptr[0]", 0x4108),
    ("pdma.glo_cfg", 0x4204),
    ("pdma.rst_idx", 0x4208),
    ("pdma.delay_irq", 0x420c),
    ("pdma.irq_status", 0x4220),
    ("pdma.irq_mask", 0x4228),
    ("pdma.adma_rx_dbg0", 0x4238),
    ("pdma.int_grp", 0x4250),
    ("pdma.int_grp2", 0x4254),
    ("qdma.qtx_cfg[0]", 0x4400),
    ("qdma.qtx_cfg[15]", 0x44f0),
    ("qdma.qtx_sch[0]", 0x4404),
    ("qdma.qtx_sch[15]", 0x44f4),
    ("qdma.rx_ptr", 0x4500),
    ("qdma.rx_cnt_cfg", 0x4504),
    ("qdma.qcrx_ptr", 0x4508),
    ("qdma.glo_cfg", 0x4604),
    ("qdma.rst_idx", 0x4608),
    ("qdma.delay_irq", 0x460c),
    ("qdma.fc_th", 0x4610),
    ("qdma.tx_sch_rate", 0x4798),
    ("qdma.int_status", 0x4618),
    ("qdma.int_mask", 0x461c),
    ("qdma.int_grp", 0x4620),
    ("qdma.int_grp2", 0x4624),
    ("qdma.hred", 0x4644),
    ("qdma.ctx_ptr", 0x4700),
    ("qdma.dtx_ptr", 0x4704),
    ("qdma.crx_ptr", 0x4710),
    ("qdma.drx_ptr", 0x4714),
    ("qdma.fq_head", 0x4720),
    ("qdma.fq_tail", 0x4724),
    ("qdma.fq_count", 0x4728),
    ("qdma.fq_blen", 0x472c),
    ("mib[0]", 0x1c00),
    ("mib[1]", 0x1c40),
    ("mib[0].tx_packets", 0x1c38),
    ("pse.iq_sta", 0x0180),
    ("pse.oq_sta", 0x01a0),
];

fn check(info: &SocInfo, expected: &[(&str, u32)]) {
    let got = reg_map_offsets(info);
    let mut bad = Vec::new();
    for (name, want) in expected {
        let have = got.iter().find(|(n, _)| n == name).map(|(_, o)| *o).unwrap_or_else(|| panic!("{name} not probed"));
        if have != *want {
            bad.push(format!("{}: {name} is {have:#x}, facts say {want:#x}", info.name));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn mt7621_offsets_match_facts() {
    check(soc("mediatek,mt7621-eth"), V1);
}

#[test]
fn mt7623_offsets_match_facts() {
    check(soc("mediatek,mt7623-eth"), V1);
}

#[test]
fn mt7986_offsets_match_facts() {
    let mut expected: Vec<(&str, u32)> =
        V1.iter().filter(|(n, _)| !MT7986_DIFF.iter().any(|(m, _)| m == n)).copied().collect();
    expected.extend_from_slice(MT7986_DIFF);
    check(soc("mediatek,mt7986-eth"), &expected);
}

#[test]
fn hw_lro_registers_only_on_mt7623() {
    // Facts e: LRO_CTRL_DW0 0x980, DW3 0x98c, ALT_SCORE_DELTA 0xa4c, ALT_REFRESH_TIMER 0x1c,
    // ring i: CTRL_DW1 0xb28 + 0x40 i, CTRL_DW2 0xb2c + 0x40 i, DIP_DW0 0xb04 + 0x40 idx.
    let fe = &mt7623::FE;
    let lro = fe.lro.expect("MT7623 has LRO registers");
    assert_eq!(lro.ctrl_dw0.offset(), 0x980);
    assert_eq!(lro.ctrl_dw3.offset(), 0x98c);
    assert_eq!(lro.alt_score_delta.offset(), 0xa4c);
    let ring = fe.lro_ring.expect("MT7623 has LRO ring registers");
    for i in 1..=3u32 {
        let r = ring.at(i as usize).unwrap();
        assert_eq!(r.ring_ctrl_dw1.offset(), 0xb28 + 0x40 * i);
        assert_eq!(r.ring_ctrl_dw2.offset(), 0xb2c + 0x40 * i);
        assert_eq!(r.ring_ctrl_dw3.offset(), 0xb30 + 0x40 * i);
    }
    assert_eq!(ring.at(2).unwrap().ring_dip_dw0.offset(), 0xb04 + 0x80);
    assert_eq!(fe.fe.lro_alt_refresh_timer.expect("MT7623 only").offset(), 0x1c);
    // Every SoC: the LRO registers exist exactly where the capabilities claim hardware LRO.
    for s in SOCS {
        let has = s.caps.hw_lro.is_some();
        assert_eq!(s.fe.lro.is_some(), has, "{}: LRO block iff hw_lro", s.name);
        assert_eq!(s.fe.lro_ring.is_some(), has, "{}: LRO ring block iff hw_lro", s.name);
    }
    assert!(mt7621::FE.fe.lro_alt_refresh_timer.is_none());
    let v = fe_regs::values::LroCtrlDw0(0).with_lro_en(true).with_l3_cks_upd_en(true);
    assert_eq!(v.0, 1 | 1 << 7);
}

#[test]
fn trgmii_registers_only_on_mt7623() {
    let t = mt7623::FE.trgmii.expect("MT7623 has TRGMII registers");
    assert_eq!(t.rck_ctrl.offset(), 0x10300);
    assert_eq!(t.tck_ctrl.offset(), 0x10340);
    assert_eq!(t.td_odt.at(0).unwrap().offset(), 0x10354);
    assert_eq!(t.td_odt.at(4).unwrap().offset(), 0x10354 + 8 * 4);
    assert!(t.td_odt.at(5).is_none(), "index past the array is refused");
    assert_eq!(t.intf_mode.offset(), 0x10390);
    assert!(mt7621::FE.trgmii.is_none() && mt7986::FE.trgmii.is_none());
}

#[test]
fn field_positions_match_facts() {
    use fe_regs::values::{GdmaFwdCfg, MacMcr, MacMsr, SysRstctrl};
    // GDMA_FWD_CFG: UCS_EN b20, TCS_EN b21, ICS_EN b22, STRP_CRC b16, SPECIAL_TAG b24.
    assert_eq!(GdmaFwdCfg(0).with_ucs_en(true).0, 1 << 20);
    assert_eq!(GdmaFwdCfg(0).with_tcs_en(true).0, 1 << 21);
    assert_eq!(GdmaFwdCfg(0).with_ics_en(true).0, 1 << 22);
    assert_eq!(GdmaFwdCfg(0).with_strp_crc(true).0, 1 << 16);
    // MAC_MCR: FORCE_MODE b15, TX_EN b14, RX_EN b13, SPEED_1000 b3, SPEED_100 b2, FORCE_DPX b1, FORCE_LINK b0.
    let mcr = MacMcr(0)
        .with_force_mode(true)
        .with_tx_en(true)
        .with_rx_en(true)
        .with_speed_1000(true)
        .with_force_dpx(true)
        .with_force_link(true);
    assert_eq!(mcr.0, 1 << 15 | 1 << 14 | 1 << 13 | 1 << 3 | 1 << 1 | 1);
    assert_eq!(MacMcr(0).with_backoff_en(true).with_backpr_en(true).0, 1 << 9 | 1 << 8);
    assert_eq!(MacMcr(3 << 24).max_rx().to_bits(), 3);
    // MAC_MSR is read-only: getters only. LINK b0, SPEED_1000 b3.
    assert!(MacMsr(1).link() && MacMsr(8).speed_1000());
    // RSTCTRL: FE b6, ETH b23.
    assert_eq!(SysRstctrl(0).with_fe(true).with_eth(true).0, 1 << 6 | 1 << 23);
}

#[test]
fn descriptor_layouts_match_facts() {
    // TX v1: txd3 OWNER_CPU b31, LS0 b30, PLEN0 [29:16], PQID [3:0]; txd4 CHKSUM [31:29], TSO b28, FPORT [27:25].
    let d = TxV1::new().with_owner_cpu(true).with_ls0(true).with_plen0(0x3fff).with_qid(0xf);
    assert_eq!(d.words[2], 1 << 31 | 1 << 30 | 0x3fff << 16 | 0xf);
    let d = TxV1::new().with_chksum(7).with_tso(true).with_fport(7);
    assert_eq!(d.words[3], 7 << 29 | 1 << 28 | 7 << 25);
    assert_eq!(TxV1::SIZE, 16);
    // TX v2: txd3 PLEN0 [23:8]; txd4 QID [21:16], FPORT [11:8]; txd5 TSO b31, CHKSUM [30:28].
    let d = TxV2::new()
        .with_plen0(0xffff)
        .with_owner_cpu(true)
        .with_qid(0x3f)
        .with_fport(0xf)
        .with_tso(true)
        .with_chksum(7);
    assert_eq!(d.words[2], 0xffff << 8 | 1 << 31);
    assert_eq!(d.words[3], 0x3f << 16 | 0xf << 8);
    assert_eq!(d.words[4], 1 << 31 | 7 << 28);
    assert_eq!(TxV2::SIZE, 32);
    // RX: rxd2 DONE b31, LS0 b30, PLEN0 [29:16]; rxd4 L4_VALID b24 (v1) / b2 (MT7986 as Linux 6.12 tests it).
    let r = RxV1 { words: [0, 1 << 31 | 1 << 30 | 1514 << 16, 0, 1 << 24 | 2 << 19] };
    assert!(r.done() && r.ls0() && r.l4_valid());
    assert_eq!(r.plen0(), 1514);
    assert_eq!(r.src_port(), 2);
    assert!(RxV2 { words: [0, 0, 0, 1 << 2] }.l4_valid());
    assert!(!RxV2 { words: [0, 0, 0, 1 << 24] }.l4_valid());
    // Little-endian in memory.
    let bytes = TxV1 { words: [0x1122_3344, 0, 0, 0] }.to_le_bytes();
    assert_eq!(&bytes[..4], &[0x44, 0x33, 0x22, 0x11]);
    assert_eq!(TxV1::from_le_bytes(&bytes).words[0], 0x1122_3344);
}

#[test]
fn capabilities_match_facts() {
    let (a, b, c) = (&mt7621::INFO.caps, &mt7623::INFO.caps, &mt7986::INFO.caps);
    for caps in [a, b, c] {
        assert_eq!(caps.rx_checksum.mask, 0b111 << 20, "ICS|TCS|UCS");
        assert_eq!(caps.rx_checksum.reg.at(1), Some(0x1500));
        assert_eq!(caps.tx_queues, 16);
        assert_eq!(caps.rx_rings, 1);
        assert_eq!(caps.cold_reset.reg.offset, 0x34);
    }
    assert_eq!(a.cold_reset.mask, 0x8080_0040);
    assert_eq!(b.cold_reset.mask, 0x8080_0040);
    assert_eq!(c.cold_reset.mask, 0xc080_0040);
    assert_eq!(a.irq.lines, 1);
    assert_eq!(a.irq.layout, IrqLayout::Shared { line: 0 });
    assert_eq!((b.irq.lines, b.irq.layout), (3, IrqLayout::Split { tx: 1, rx: 2 }));
    assert_eq!((c.irq.lines, c.irq.layout), (4, IrqLayout::Split { tx: 1, rx: 2 }));
    assert!(a.hw_lro.is_none() && c.hw_lro.is_none());
    let l = b.hw_lro.expect("MT7623 has hardware LRO");
    assert_eq!((l.rings, l.ring_size, l.buffer_size, l.max_segments), (3, 8, 12288, 64));
    assert_eq!((l.age_time_us, l.max_agg_time_us, l.min_room), (1000, 200, 1522));
    assert_eq!((a.tx_descriptor, a.rx_descriptor), (DescriptorLayout::TxV1, DescriptorLayout::RxV1));
    assert_eq!((c.tx_descriptor, c.rx_descriptor), (DescriptorLayout::TxV2, DescriptorLayout::RxV2));
    assert_eq!(c.tx_descriptor.size(), 32);
    assert_eq!(a.rings, RingPlacement::Dram);
    assert_eq!(c.rings, RingPlacement::Sram { offset: 0x40000 });
    assert!(b.clocks.contains(&"trgpll"));
    assert_eq!(c.clocks.len(), 15);
    assert_eq!(b.macs[0].phy_modes, &["trgmii"]);
    assert!(a.macs[0].phy_modes.contains(&"trgmii") && !a.macs[1].phy_modes.contains(&"trgmii"));
}

#[test]
fn shaper_values_match_facts() {
    // Facts d: QTX_SCH values per link speed (v1: MT7621 table / other-builds table; v2 without b30).
    let (a, b, c) = (&mt7621::INFO.caps.shaper, &mt7623::INFO.caps.shaper, &mt7986::INFO.caps.shaper);
    assert_eq!(a.base, 0x7814_0000);
    assert_eq!(c.base, 0x3814_0000);
    assert_eq!(a.value_for(10), Some(0x7814_1e72));
    assert_eq!(a.value_for(100), Some(0x7814_1e73));
    assert_eq!(a.value_for(1000), Some(0x7814_ae94));
    assert_eq!(b.value_for(10), Some(0x7814_1814));
    assert_eq!(b.value_for(100), Some(0x7814_1815));
    assert_eq!(b.value_for(1000), Some(0x7814_a816));
    assert_eq!(c.value_for(1000), Some(0x3814_a816));
    assert_eq!(a.value_for(2500), None, "no max-rate entry: min-rate only");
    assert_eq!(a.reg.at(5), Some(0x1804 + 0x50));
}

#[test]
fn compatible_table() {
    // Every compatible of every SoC finds that SoC, and no name or compatible is claimed twice.
    let mut names = std::collections::BTreeSet::new();
    let mut compatibles = std::collections::BTreeSet::new();
    for s in SOCS {
        assert!(names.insert(s.name), "{} twice in SOCS", s.name);
        assert!(!s.compatible.is_empty(), "{} has no compatible", s.name);
        for c in s.compatible {
            assert!(compatibles.insert(*c), "{c} claimed twice");
            assert_eq!(soc(c).name, s.name, "{c}");
        }
    }
    assert_eq!(soc("mediatek,mt7621-eth").name, "mt7621");
    assert_eq!(soc("mediatek,mt7623-eth").name, "mt7623");
    assert_eq!(soc("mediatek,mt7986-eth").name, "mt7986");
    assert!(by_compatible("mediatek,mt7988-eth").is_none());
    assert!(by_compatible("").is_none());
}

#[test]
fn reset_values_agree_between_the_typed_maps_and_the_metadata() {
    // Two emission paths carry the YAML reset values: the typed maps (`RegSpec::reset`, usable
    // in const context) and the run-time table the simulator uses (`SocInfo::registers`).
    const GLO: fe_regs::values::PdmaGloCfg = mt7621::FE.pdma.glo_cfg.reset();
    for soc in SOCS {
        let meta = |off: u32| soc.registers.iter().find(|m| m.element(off).is_some()).map(|m| m.reset);
        let g = soc.fe.pdma.glo_cfg;
        assert_eq!(meta(g.offset()), Some(g.reset().0), "{}", soc.name);
        let m = soc.fe.mac.at(1).unwrap().mcr;
        assert_eq!(meta(m.offset()), Some(m.reset().0), "{}", soc.name);
        let q = soc.fe.qdma.qtx_sch.at(5).unwrap();
        assert_eq!(meta(q.offset()), Some(q.reset().0), "{}", soc.name);
    }
    assert_eq!(GLO.0, mt7621::INFO.registers.iter().find(|m| m.name == "pdma.glo_cfg").unwrap().reset);
}
