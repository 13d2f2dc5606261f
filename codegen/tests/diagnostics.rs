//! Bad-input cases: one per validation rule, each with its rendered diagnostic as a snapshot.
//!
//! Every case starts from `fixtures/mini/mt9999.yaml` (a complete small SoC that validates) and
//! breaks one thing, so each snapshot shows exactly one rule firing.

use std::path::Path;

const GOOD: &str = include_str!("fixtures/mini/mt9999.yaml");

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("../snapshots/diagnostics"));
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

/// `GOOD` with `from` replaced by `to` (which must occur).
fn edit(from: &str, to: &str) -> String {
    assert!(GOOD.contains(from), "fixture does not contain {from:?}");
    GOOD.replacen(from, to, 1)
}

/// Loads `files`, expects failure, and snapshots the rendered diagnostics under `name`.
fn fails(name: &str, files: &[(&str, &str)]) -> String {
    let report = match ddgen::load_texts(files) {
        Ok(_) => panic!("case `{name}` was accepted"),
        Err(r) => r,
    };
    assert!(report.error_count() > 0);
    let text = report.render();
    settings().bind(|| insta::assert_snapshot!(name, text));
    text
}

#[test]
fn good_fixture_validates() {
    let p = ddgen::load_texts(&[("mt9999.yaml", GOOD)]).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(p.socs().count(), 1);
}

#[test]
fn malformed_yaml() {
    let t = fails("malformed_yaml", &[("bad.yaml", "name: x\nspaces: {fe: [\n")]);
    assert!(t.contains("bad.yaml:"));
}

#[test]
fn unknown_key_with_suggestion() {
    let t = fails("unknown_key", &[("mt9999.yaml", &edit("offset: 0x204", "ofset: 0x204"))]);
    assert!(t.contains("mt9999.yaml:") && t.contains("did you mean `offset`"), "{t}");
}

#[test]
fn unknown_access_kind() {
    let t = fails("unknown_access", &[("mt9999.yaml", &edit("access: rw ", "access: rx "))]);
    assert!(t.contains("mt9999.yaml:"), "{t}");
}

#[test]
fn reversed_bit_range() {
    let t = fails("reversed_bits", &[("mt9999.yaml", &edit("bits: \"5:4\"", "bits: \"4:5\""))]);
    assert!(t.contains("reversed"), "{t}");
}

#[test]
fn field_outside_register() {
    let t =
        fails("field_outside_register", &[("mt9999.yaml", &edit("rx_done: {bits: 30}", "rx_done: {bits: \"33:30\"}"))]);
    assert!(t.contains("outside the 32-bit register"), "{t}");
}

#[test]
fn overlapping_fields() {
    let t = fails("overlapping_fields", &[("mt9999.yaml", &edit("rx_dma_en: {bits: 2}", "rx_dma_en: {bits: 1}"))]);
    assert!(t.contains("overlap"), "{t}");
}

#[test]
fn overlapping_registers_in_array() {
    // rx_ptr[2] is at 0x920; put glo_cfg there.
    let t = fails("overlapping_registers", &[("mt9999.yaml", &edit("offset: 0x204", "offset: 0x120"))]);
    assert!(t.contains("pdma.rx_ptr[2]") && t.contains("pdma.glo_cfg"), "{t}");
}

#[test]
fn unaligned_offset() {
    let t = fails("unaligned_offset", &[("mt9999.yaml", &edit("offset: 0x204", "offset: 0x206"))]);
    assert!(t.contains("not 4-byte aligned"), "{t}");
}

#[test]
fn array_stride_smaller_than_element() {
    let t = fails(
        "array_stride_too_small",
        &[("mt9999.yaml", &edit("array: {count: 4, stride: 0x10}", "array: {count: 4, stride: 0x2}"))],
    );
    assert!(t.contains("smaller than one element"), "{t}");
}

#[test]
fn enum_value_too_wide() {
    let t = fails("enum_value_too_wide", &[("mt9999.yaml", &edit("dw32: 3", "dw32: 4"))]);
    assert!(t.contains("does not fit"), "{t}");
}

#[test]
fn reset_too_wide() {
    let t = fails("reset_too_wide", &[("mt9999.yaml", &edit("reset: 0x00000000", "reset: 0x100000000"))]);
    assert!(t.contains("wider than 32 bits"), "{t}");
}

#[test]
fn descriptor_field_past_size() {
    let t = fails(
        "descriptor_field_past_size",
        &[("mt9999.yaml", &edit("l4_valid: {word: 3, bits: 24}", "l4_valid: {word: 4, bits: 24}"))],
    );
    assert!(t.contains("past the end"), "{t}");
}

#[test]
fn soc_without_compatible() {
    let t = fails("soc_without_compatible", &[("mt9999.yaml", &edit("  compatible: [\"vendor,mt9999-eth\"]\n", ""))]);
    assert!(t.contains("no compatible string"), "{t}");
}

#[test]
fn soc_missing_capability() {
    let t = fails("soc_missing_capability", &[("mt9999.yaml", &edit("    tx_queues: 16\n", ""))]);
    assert!(t.contains("lacks capabilities: tx_queues"), "{t}");
}

#[test]
fn compatible_claimed_twice() {
    let other = GOOD.replacen("name: mt9999", "name: mt9998", 1);
    let t = fails("compatible_claimed_twice", &[("mt9999.yaml", GOOD), ("mt9998.yaml", &other)]);
    assert!(t.contains("claimed by both"), "{t}");
}

#[test]
fn duplicate_map_name() {
    let t = fails("duplicate_map_name", &[("a.yaml", GOOD), ("b.yaml", GOOD)]);
    assert!(t.contains("already defined"), "{t}");
}

#[test]
fn extends_unknown_map() {
    let t = fails(
        "extends_unknown",
        &[(
            "mt9999.yaml",
            &edit("description: Example frame engine\n", "description: Example frame engine\nextends: netsys-v2\n"),
        )],
    );
    assert!(t.contains("unknown map `netsys-v2`"), "{t}");
}

#[test]
fn extends_cycle() {
    let a = "name: a\nabstract: true\nextends: b\n";
    let b = "name: b\nabstract: true\nextends: a\n";
    let t = fails("extends_cycle", &[("a.yaml", a), ("b.yaml", b)]);
    assert!(t.contains("cyclic `extends`"), "{t}");
}

#[test]
fn override_of_nothing() {
    let base = GOOD.replacen("name: mt9999", "name: base\nabstract: true", 1).replacen(
        "  compatible: [\"vendor,mt9999-eth\"]\n",
        "",
        1,
    );
    let derived = "name: mt9999\nextends: base\nspaces:\n  fe:\n    blocks:\n      pdma:\n        registers:\n          glo_cgf: {reset: 1}\nsoc:\n  compatible: [\"vendor,mt9999-eth\"]\n";
    let t = fails("override_of_nothing", &[("base.yaml", &base), ("mt9999.yaml", derived)]);
    assert!(t.contains("overrides nothing") && t.contains("did you mean `glo_cfg`"), "{t}");
}

#[test]
fn layout_differs_between_socs() {
    let other = GOOD.replacen("name: mt9999", "name: mt9998", 1).replacen("mt9999-eth", "mt9998-eth", 1).replacen(
        "rx_dma_en: {bits: 2}",
        "rx_dma_en: {bits: 3}",
        1,
    );
    let t = fails("layout_differs", &[("mt9999.yaml", GOOD), ("mt9998.yaml", &other)]);
    assert!(t.contains("different fields"), "{t}");
}

#[test]
fn capability_names_unknown_register() {
    let t = fails(
        "capability_unknown_register",
        &[("mt9999.yaml", &edit("register: fe.gdma.fwd_cfg", "register: fe.gdma.fwd_cgf"))],
    );
    assert!(t.contains("does not have") && t.contains("did you mean `fe.gdma.fwd_cfg`"), "{t}");
}

#[test]
fn capability_irq_out_of_range() {
    let t = fails(
        "capability_irq_out_of_range",
        &[("mt9999.yaml", &edit("irq: {lines: 1, shared: 0}", "irq: {lines: 1, shared: 1}"))],
    );
    assert!(t.contains("out of range"), "{t}");
}

#[test]
fn irq_moderation_does_not_fit() {
    // The mini SoC has no delay-interrupt registers; give it one whose packet field is 7 bits.
    let with_reg = edit(
        "          irq_status:\n",
        "          delay_irq:\n            offset: 0x20c\n            fields:\n              rx_ptime: {bits: \"7:0\"}\n              rx_pint: {bits: \"14:8\"}\n              tx_ptime: {bits: \"23:16\"}\n              tx_pint: {bits: \"30:24\"}\n          irq_status:\n",
    );
    let bad = with_reg.replacen(
        "irq: {lines: 1, shared: 0}",
        "irq: {lines: 1, shared: 0, moderation: {time_unit_us: 20, rx: {packets: 128, time_us: 30}, tx: {packets: 0, time_us: 0}}}",
        1,
    );
    let t = fails("irq_moderation_does_not_fit", &[("mt9999.yaml", &bad)]);
    assert!(t.contains("128 packets do not fit field `rx_pint`"), "{t}");
    assert!(t.contains("not a multiple of the time unit"), "{t}");
    assert!(t.contains("sets neither limit"), "{t}");
    assert!(t.contains("needs register `fe.qdma.delay_irq`"), "{t}");
}

#[test]
fn capability_unknown_descriptor() {
    let t = fails(
        "capability_unknown_descriptor",
        &[("mt9999.yaml", &edit("tx_descriptor: tx_v1", "tx_descriptor: tx_v3"))],
    );
    assert!(t.contains("no descriptor layout named `tx_v3`"), "{t}");
}

#[test]
fn capability_unknown_phy_mode() {
    let t = fails(
        "capability_unknown_phy_mode",
        &[("mt9999.yaml", &edit("phy_modes: [rgmii, trgmii]", "phy_modes: [rgmi, trgmii]"))],
    );
    assert!(t.contains("unknown phy mode") && t.contains("did you mean `rgmii`"), "{t}");
}

#[test]
fn sram_offset_not_aligned() {
    let t =
        fails("sram_offset_not_aligned", &[("mt9999.yaml", &edit("rings: {dram: true}", "rings: {sram: 0x40002}"))]);
    assert!(t.contains("SRAM offset 0x40002 is not a 4-byte aligned") && t.contains("mt9999.yaml:87"), "{t}");
}

#[test]
fn missing_file_is_named() {
    let r = ddgen::load(&["/nonexistent/mt0000.yaml".into()]).expect_err("missing file");
    assert!(r.render().contains("/nonexistent/mt0000.yaml"), "{}", r.render());
}

#[test]
fn space_without_dt_location() {
    let t = fails(
        "space_without_dt",
        &[(
            "mt9999.yaml",
            &edit(
                "    dt: {property: \"mediatek,ethsys\"}   # phandle property of the ethernet node (index: N for the Nth)\n",
                "",
            ),
        )],
    );
    assert!(t.contains("space `ethsys` of `mt9999` does not say where the device tree puts it"), "{t}");
}

#[test]
fn syscon_space_claims_the_node_reg() {
    let t = fails(
        "syscon_space_on_reg",
        &[("mt9999.yaml", &edit("dt: {property: \"mediatek,ethsys\"}", "dt: {property: reg}"))],
    );
    assert!(t.contains("space `ethsys` cannot be the Ethernet node's own `reg`"), "{t}");
}

#[test]
fn path_setup_names_unknown_register() {
    let t = fails(
        "path_setup_unknown_register",
        &[("mt9999.yaml", &edit("{register: ethsys.sys.clkcfg0,", "{register: ethsys.sys.clkcfg,"))],
    );
    assert!(
        t.contains("path setup writes register `ethsys.sys.clkcfg`") && t.contains("did you mean `ethsys.sys.clkcfg0`"),
        "{t}"
    );
}

#[test]
fn path_setup_value_too_wide() {
    let t = fails(
        "path_setup_value_too_wide",
        &[("mt9999.yaml", &edit("fields: {trgmii_ddr_pll: 1}", "fields: {trgmii_ddr_pll: 2}"))],
    );
    assert!(t.contains("value 0x2 does not fit the 1-bit field `trgmii_ddr_pll`"), "{t}");
}

#[test]
fn path_setup_unknown_enum_name() {
    let t = fails(
        "path_setup_unknown_enum_name",
        &[("mt9999.yaml", &edit("fields: {ge_mode_mac0: rgmii}}", "fields: {ge_mode_mac0: rgmi}}"))],
    );
    assert!(t.contains("has no value named `rgmi`") && t.contains("did you mean `rgmii`"), "{t}");
}

#[test]
fn path_setup_for_refused_mode() {
    let t = fails(
        "path_setup_refused_mode",
        &[(
            "mt9999.yaml",
            &edit("      - macs: [0]\n        modes: [trgmii]", "      - macs: [0, 1]\n        modes: [trgmii]"),
        )],
    );
    assert!(t.contains("MAC 1 does not accept phy mode `trgmii`"), "{t}");
}

#[test]
fn path_setup_twice_for_one_mode() {
    let t = fails(
        "path_setup_twice",
        &[("mt9999.yaml", &edit("        modes: [trgmii]", "        modes: [trgmii, rgmii]"))],
    );
    assert!(t.contains("MAC 0 in phy mode `rgmii` has a path-setup entry already"), "{t}");
}

#[test]
fn path_setup_leaves_a_mode_out() {
    let t = fails(
        "path_setup_incomplete",
        &[(
            "mt9999.yaml",
            &edit("      - macs: [0, 1]\n        modes: [rgmii]", "      - macs: [0]\n        modes: [rgmii]"),
        )],
    );
    assert!(t.contains("says nothing for MAC 1 in `rgmii`"), "{t}");
}

#[test]
fn irq_name_for_a_missing_role() {
    let t = fails(
        "irq_names_wrong_role",
        &[("mt9999.yaml", &edit("irq: {lines: 1, shared: 0}", "irq: {lines: 1, shared: 0, names: {tx: fe1}}"))],
    );
    assert!(t.contains("`irq.names.tx` names a line the layout does not have"), "{t}");
}

#[test]
fn every_pass_has_a_case() {
    // Keep this list in step with validate::pass_names(): each rule is exercised above.
    let covered = [
        "names_valid",
        "offsets_in_range",
        "type_names_unique",
        "offsets_aligned",
        "arrays_valid",
        "fields_fit",
        "fields_disjoint",
        "values_fit",
        "registers_disjoint",
        "descriptor_fields_fit",
        "descriptors_disjoint",
        "soc_complete",
        "irq_moderation_fits",
        "compatibles_unique",
        "layouts_shared",
        "descriptors_shared",
        "reset_outside_fields",
        "enum_values_unique",
        "register_has_fields",
        "reset_sets_write_only",
        "enum_incomplete",
        "field_idents_unique",
        "variant_idents_unique",
        "idents_not_keywords",
        "module_names_unique",
        "spaces_located",
        "path_setup_targets",
        "path_setup_values_fit",
        "path_setup_modes",
        "path_setup_unambiguous",
        "path_setup_complete",
        "irq_names_valid",
        "field_arrays_valid",
    ];
    for p in ddgen::validate::pass_names() {
        assert!(covered.contains(&p), "validation pass `{p}` has no bad-input case");
    }
}

#[test]
fn overlapping_descriptor_fields() {
    let t = fails(
        "overlapping_descriptor_fields",
        &[("mt9999.yaml", &edit("owner_cpu: {word: 2, bits: 31}", "owner_cpu: {word: 2, bits: 29}"))],
    );
    assert!(t.contains("of descriptor `tx_v1` overlap"), "{t}");
}

#[test]
fn invalid_name() {
    let t = fails("invalid_name", &[("mt9999.yaml", &edit("tx_dma_en: {bits: 0", "Tx-DMA: {bits: 0"))]);
    assert!(t.contains("is not a valid name"), "{t}");
}

#[test]
fn reserved_field_name() {
    let t = fails("reserved_field_name", &[("mt9999.yaml", &edit("rx_dma_en: {bits: 2}", "set_rx: {bits: 2}"))]);
    assert!(t.contains("collides with a generated method"), "{t}");
}

#[test]
fn register_outside_space() {
    let t = fails("register_outside_space", &[("mt9999.yaml", &edit("base: 0x0800", "base: 0xfffffff0"))]);
    assert!(t.contains("outside the 32-bit space"), "{t}");
}

#[test]
fn generated_type_names_collide() {
    // Block `pdma` register `glo_cfg` and block `pdma_glo` register `cfg` both give `PdmaGloCfg`.
    let extra = "      pdma_glo:\n        base: 0x3000\n        registers:\n          cfg: {offset: 0, description: PDMA glue}\n      gdma:\n";
    let t = fails("type_names_collide", &[("mt9999.yaml", &edit("      gdma:\n", extra))]);
    assert!(t.contains("would both generate the Rust type `PdmaGloCfg`"), "{t}");
}

/// Loads `files`, expects success with warnings, and snapshots the rendered warnings under `name`.
fn warns(name: &str, files: &[(&str, &str)]) -> String {
    let p = ddgen::load_texts(files).unwrap_or_else(|r| panic!("case `{name}` was rejected:\n{r}"));
    assert!(!p.warnings.is_empty(), "case `{name}` gave no warning");
    assert!(p.warnings.iter().all(|w| w.severity == ddgen::Severity::Warning));
    let text: Vec<String> = p.warnings.iter().map(|w| w.render(&p.sources)).collect();
    let text = text.join("\n\n");
    settings().bind(|| insta::assert_snapshot!(name, text));
    text
}

#[test]
fn good_fixture_has_no_warnings() {
    let p = ddgen::load_texts(&[("mt9999.yaml", GOOD)]).unwrap_or_else(|r| panic!("{r}"));
    let w: Vec<String> = p.warnings.iter().map(|w| w.render(&p.sources)).collect();
    assert!(w.is_empty(), "{}", w.join("\n"));
}

#[test]
fn reset_outside_fields() {
    // Bit 8 of pdma.glo_cfg is in no field.
    let t = fails("reset_outside_fields", &[("mt9999.yaml", &edit("reset: 0x00000000", "reset: 0x00000110"))]);
    assert!(t.contains("sets bits 0x00000100 that are in no field") && t.contains("mt9999.yaml:19:"), "{t}");
}

#[test]
fn reset_of_fieldless_register_is_not_checked_against_fields() {
    let text = edit(
        "            description: RX ring base address\n",
        "            reset: 0x1000\n            description: RX ring base address\n",
    );
    let p = ddgen::load_texts(&[("mt9999.yaml", &text)]).unwrap_or_else(|r| panic!("{r}"));
    assert!(p.warnings.is_empty());
}

#[test]
fn register_without_fields_or_description_warns() {
    let t = warns(
        "register_has_fields",
        &[(
            "mt9999.yaml",
            &edit("          irq_status:\n", "          int_grp: {offset: 0x250}\n          irq_status:\n"),
        )],
    );
    assert!(t.starts_with("warning: register `pdma.int_grp` has no fields and no description"), "{t}");
    assert!(t.contains("mt9999.yaml:28:11"), "{t}");
}

#[test]
fn described_register_without_fields_is_fine() {
    let text = edit(
        "          irq_status:\n",
        "          int_grp: {offset: 0x250, description: Interrupt routing}\n          irq_status:\n",
    );
    let p = ddgen::load_texts(&[("mt9999.yaml", &text)]).unwrap_or_else(|r| panic!("{r}"));
    assert!(p.warnings.is_empty());
}

#[test]
fn reset_sets_write_only_field_warns() {
    let text = edit("reset: 0x00000000", "reset: 0x00000004").replacen(
        "rx_dma_en: {bits: 2}",
        "rx_dma_en: {bits: 2, access: wo}",
        1,
    );
    let t = warns("reset_sets_write_only", &[("mt9999.yaml", &text)]);
    assert!(
        t.contains("sets bits 0x00000004 of the write-only field `rx_dma_en`") && t.contains("mt9999.yaml:19:"),
        "{t}"
    );
}

#[test]
fn reset_sets_field_of_write_only_register_warns() {
    // The field inherits `wo` from its register.
    let text = edit("access: rw ", "access: wo ").replacen("reset: 0x00000000", "reset: 0x00000001", 1).replacen(
        "tx_dma_busy: {bits: 1, access: ro, description: TX DMA busy}",
        "tx_dma_busy: {bits: 1, description: TX DMA busy}",
        1,
    );
    let p = ddgen::load_texts(&[("mt9999.yaml", &text)]).unwrap_or_else(|r| panic!("{r}"));
    let t: Vec<String> = p.warnings.iter().map(|w| w.render(&p.sources)).collect();
    assert_eq!(t.len(), 1, "{t:?}");
    assert!(
        t[0].contains("write-only field `tx_dma_en`") && t[0].contains("write-only from the register's access"),
        "{}",
        t[0]
    );
}

#[test]
fn enum_leaving_values_unnamed_warns() {
    let t = warns(
        "enum_incomplete",
        &[("mt9999.yaml", &edit("enum: {dw4: 0, dw8: 1, dw16: 2, dw32: 3}", "enum: {dw4: 0, dw8: 1, dw16: 2}"))],
    );
    assert!(t.contains("names 3 of the 4 values of its 2-bit field") && t.contains("unnamed values: 3"), "{t}");
    assert!(t.contains("mt9999.yaml:25:15"), "{t}");
}

#[test]
fn inherited_warning_is_reported_once() {
    // The base's incomplete enum is inherited by the SoC: one warning, not one per map.
    let base = edit("enum: {dw4: 0, dw8: 1, dw16: 2, dw32: 3}", "enum: {dw4: 0, dw8: 1, dw16: 2}")
        .replacen("name: mt9999", "name: base\nabstract: true", 1)
        .replacen("  compatible: [\"vendor,mt9999-eth\"]\n", "", 1);
    let derived = "name: mt9999\nextends: base\nsoc:\n  compatible: [\"vendor,mt9999-eth\"]\n";
    let p = ddgen::load_texts(&[("base.yaml", &base), ("mt9999.yaml", derived)]).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(p.maps.len(), 2);
    assert_eq!(p.warnings.len(), 1, "{:?}", p.warnings);
}

#[test]
fn warnings_do_not_stop_generation() {
    let text = edit("enum: {dw4: 0, dw8: 1, dw16: 2, dw32: 3}", "enum: {dw4: 0}");
    let p = ddgen::load_texts(&[("mt9999.yaml", &text)]).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(p.warnings.len(), 1);
    assert!(ddgen::generate(&p).expect("generates").file().contains("pub mod mt9999"));
}

#[test]
fn every_warning_pass_has_a_case() {
    // The warning passes, exercised above by `warns(...)` cases.
    let covered = ["register_has_fields", "reset_sets_write_only", "enum_incomplete"];
    for p in covered {
        assert!(ddgen::validate::pass_names().any(|n| n == p), "`{p}` is not a registered pass");
    }
}

#[test]
fn enum_value_named_twice() {
    // Two names for 0 and none for 1: the generated decoder would be wrong (or not compile).
    let t = fails("enum_value_named_twice", &[("mt9999.yaml", &edit("dw8: 1", "dw8: 0"))]);
    assert!(t.contains("`dw4` and `dw8` of field `pdma.glo_cfg.dma_size` both have the value 0"), "{t}");
    assert!(!t.contains("warning"), "{t}");
}

#[test]
fn one_bit_enum_with_a_repeated_value_is_rejected() {
    let text = edit("tx_dma_en: {bits: 0, description: Enable TX DMA}", "tx_dma_en: {bits: 0, enum: {off: 0, no: 0}}");
    let r = ddgen::load_texts(&[("mt9999.yaml", &text)]).expect_err("repeated enum value");
    assert!(r.render().contains("both have the value 0"), "{}", r.render());
}

#[test]
fn duplicate_register_name() {
    let dup = "          glo_cfg:\n            offset: 0x300\n          glo_cfg:\n";
    let t = fails("duplicate_register_name", &[("mt9999.yaml", &edit("          glo_cfg:\n", dup))]);
    assert!(t.contains("mt9999.yaml:") && t.to_lowercase().contains("duplicate"), "{t}");
}

/// A chain of `levels` abstract maps below `m00`, each extending the one before.
fn chain(levels: usize) -> Vec<(String, String)> {
    (0..=levels)
        .map(|i| {
            let extends = if i == 0 { String::new() } else { format!("extends: m{:02}\n", i - 1) };
            (format!("m{i:02}.yaml"), format!("name: m{i:02}\nabstract: true\n{extends}"))
        })
        .collect()
}

#[test]
fn extends_chain_too_deep() {
    let files = chain(ddgen::resolve::MAX_EXTENDS_DEPTH + 3);
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let t = fails("extends_too_deep", &refs);
    // Reported once, at the first map past the limit, not again for the maps below it.
    assert_eq!(t.matches("error:").count(), 1, "{t}");
    assert!(t.contains("chain too deep") && t.contains("m33.yaml:3:10"), "{t}");
}

#[test]
fn extends_chain_at_the_limit_is_accepted() {
    let files = chain(ddgen::resolve::MAX_EXTENDS_DEPTH);
    let refs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    let p = ddgen::load_texts(&refs).unwrap_or_else(|r| panic!("{r}"));
    assert_eq!(p.maps.len(), ddgen::resolve::MAX_EXTENDS_DEPTH + 1);
}

#[test]
fn field_idents_collide() {
    // `fn` is a keyword: it becomes `fn_`, the name of the other field.
    let t = fails(
        "field_idents_collide",
        &[("mt9999.yaml", &edit("rx_dma_en: {bits: 2}", "fn: {bits: 2}\n              fn_: {bits: 3}"))],
    );
    assert!(t.contains("fields `fn` and `fn_` of register `pdma.glo_cfg` both become the Rust method `fn_`"), "{t}");
    assert!(t.contains("mt9999.yaml:25:15"), "{t}");
}

#[test]
fn descriptor_field_idents_collide() {
    let text = edit(
        "l4_valid: {word: 3, bits: 24}",
        "l4_valid: {word: 3, bits: 24}\n      type: {word: 3, bits: 25}\n      type_: {word: 3, bits: 26}",
    );
    let r = ddgen::load_texts(&[("mt9999.yaml", &text)]).expect_err("`type` and `type_` collide");
    let t = r.render();
    assert!(t.contains("fields `type` and `type_` of descriptor `rx_v1` both become the Rust method `type_`"), "{t}");
}

#[test]
fn variant_idents_collide() {
    let t =
        fails("variant_idents_collide", &[("mt9999.yaml", &edit("enum: {dw4: 0, dw8: 1,", "enum: {a__b: 0, a_b: 1,"))]);
    assert!(
        t.contains("values `a__b` and `a_b` of field `pdma.glo_cfg.dma_size` both become the Rust variant `AB`"),
        "{t}"
    );
}

#[test]
fn value_named_other_collides_with_the_fallback_variant() {
    // Three names for a 2-bit field: the enum gets `Other(u8)` for the fourth value.
    let text = edit("enum: {dw4: 0, dw8: 1, dw16: 2, dw32: 3}", "enum: {dw4: 0, dw8: 1, other: 2}");
    let t = ddgen::load_texts(&[("mt9999.yaml", &text)]).expect_err("`other` duplicates `Other`").render();
    assert!(t.contains("value `other` of field `pdma.glo_cfg.dma_size` becomes the Rust variant `Other`"), "{t}");
    // With every value named there is no fallback variant, and `other` is an ordinary name.
    let text = edit("dw32: 3", "other: 3");
    let p = ddgen::load_texts(&[("mt9999.yaml", &text)]).unwrap_or_else(|r| panic!("{r}"));
    let code = ddgen::generate(&p).expect("generates").file();
    assert!(code.contains("Other,"), "{code}");
}

#[test]
fn enum_value_keyword() {
    let t = fails("enum_value_keyword", &[("mt9999.yaml", &edit("enum: {dw4: 0,", "enum: {self: 0,"))]);
    assert!(t.contains("enum value `self` becomes the Rust keyword `Self`"), "{t}");
}

#[test]
fn descriptor_and_space_named_self_are_rejected() {
    let desc = edit("  rx_v1:\n", "  self:\n").replacen("rx_descriptor: rx_v1", "rx_descriptor: self", 1);
    let t = ddgen::load_texts(&[("mt9999.yaml", &desc)]).expect_err("descriptor `self`").render();
    assert!(t.contains("descriptor `self` becomes the Rust keyword `Self`"), "{t}");
    let space = edit("  ethsys:                          # a separate space: the ETHSYS syscon", "  self:").replacen(
        "register: ethsys.sys.rstctrl",
        "register: self.sys.rstctrl",
        1,
    );
    let t = ddgen::load_texts(&[("mt9999.yaml", &space)]).expect_err("space `self`").render();
    assert!(t.contains("space `self` becomes the Rust keyword `Self`"), "{t}");
}

#[test]
fn keywords_that_can_be_escaped_generate_rust_that_parses() {
    // Snake-case names get `_` after a keyword; CamelCase `Super` and `Crate` are not keywords.
    let text = edit("enum: {dw4: 0, dw8: 1,", "enum: {super: 0, crate: 1,")
        .replacen("rx_dma_en: {bits: 2}", "self: {bits: 2}", 1)
        .replacen("tx_dma_en: {bits: 0", "crate: {bits: 0", 1);
    let p = ddgen::load_texts(&[("mt9999.yaml", &text)]).unwrap_or_else(|r| panic!("{r}"));
    let code = ddgen::generate(&p).expect("generated Rust parses").file();
    assert!(code.contains("Super") && code.contains("fn self_(") && code.contains("fn set_crate_("), "{code}");
}

#[test]
fn module_names_collide() {
    let a = GOOD.replacen("name: mt9999", "name: mt_9999", 1);
    let b = GOOD.replacen("name: mt9999", "name: mt-9999", 1).replacen("mt9999-eth", "mt9998-eth", 1);
    let t = fails("module_names_collide", &[("mt_9999.yaml", &a), ("mt-9999.yaml", &b)]);
    assert!(t.contains("SoCs `mt-9999` and `mt_9999` both become the Rust module `mt_9999`"), "{t}");
}

#[test]
fn soc_named_like_a_crate_module_is_rejected() {
    let text = GOOD.replacen("name: mt9999", "name: values", 1);
    let t = ddgen::load_texts(&[("values.yaml", &text)]).expect_err("`values` is taken").render();
    assert!(t.contains("SoC `values` becomes the Rust module `values`, a name the register crate uses"), "{t}");
}

#[test]
fn names_that_shadow_generated_items_are_rejected() {
    // A SoC module has a constant per space beside `INFO`.
    let text = edit("  ethsys:                          # a separate space: the ETHSYS syscon", "  info:").replacen(
        "register: ethsys.sys.rstctrl",
        "register: info.sys.rstctrl",
        1,
    );
    let t = ddgen::load_texts(&[("mt9999.yaml", &text)]).expect_err("info").render();
    assert!(t.contains("space name `info` collides with a generated item"), "{t}");
    // Descriptor types have `to_le_bytes` and `from_le_bytes`.
    let text = edit("l4_valid: {word: 3, bits: 24}", "to_le_bytes: {word: 3, bits: 24}");
    let t = ddgen::load_texts(&[("mt9999.yaml", &text)]).expect_err("to_le_bytes").render();
    assert!(t.contains("descriptor field name `to_le_bytes` collides with a generated method"), "{t}");
}

#[test]
fn space_names_that_were_socinfo_fields_are_accepted() {
    // `SocInfo` lists spaces in a table, so a space may be called `caps` or `name`.
    for space in ["caps", "name"] {
        let text =
            edit("  ethsys:                          # a separate space: the ETHSYS syscon", &format!("  {space}:"))
                .replace("register: ethsys.", &format!("register: {space}."));
        let p = ddgen::load_texts(&[("mt9999.yaml", &text)]).unwrap_or_else(|r| panic!("{space}: {r}"));
        let code = ddgen::generate(&p).expect("generates").file();
        syn::parse_file(&code).expect("generated code parses");
    }
}

#[test]
fn soc_without_fe_space() {
    let text = GOOD.replacen(
        "  fe:                              # the frame-engine space (the ethernet node's `reg`)",
        "  fe2:",
        1,
    );
    let t = ddgen::load_texts(&[("mt9999.yaml", &text)]).expect_err("no fe").render();
    assert!(t.contains("SoC `mt9999` has no space `fe`") && t.contains("mt9999.yaml:"), "{t}");
}

#[test]
fn yaml_parser_limit_is_reported_in_words() {
    // 200,000 spaces of two nodes each: more nodes than the YAML parser accepts, under 4 MiB.
    let spaces: String = (0..200_000).map(|i| format!("s{i}: {{}}, ")).collect();
    let text = format!("name: x\nspaces: {{{spaces}}}\n");
    let t = ddgen::load_texts(&[("x.yaml", &text)]).expect_err("too many nodes").render();
    assert!(t.contains("register map too large or too complex: ") && t.contains("values, lists and mappings"), "{t}");
    assert!(!t.contains("Nodes {") && !t.contains("budget breached"), "{t}");
}

// ---- `remove` and layouts shared by SoCs ----

/// A SoC `mt9998` that extends the complete `mt9999` (so both are SoCs sharing every layout),
/// with `body` (YAML at the top level) added.
fn derived(body: &str) -> String {
    format!("name: mt9998\nextends: mt9999\n{body}soc:\n  compatible: [\"vendor,mt9998-eth\"]\n")
}

#[test]
fn remove_of_nothing() {
    let d = derived(
        "remove:\n  - fe.pdma.glo_cgf\n  - descriptors.rx_v1.l3_valid\n  - capabilities.hw_lr\n  - fe.pdma.glo_cfg.rx_dma_en.x\n",
    );
    let t = fails("remove_of_nothing", &[("mt9999.yaml", GOOD), ("mt9998.yaml", &d)]);
    assert!(t.contains("mt9998.yaml:4:5") && t.contains("did you mean `glo_cfg`"), "{t}");
    assert!(t.contains("mt9998.yaml:5:5") && t.contains("layout `rx_v1` has no field `l3_valid`"), "{t}");
    assert!(t.contains("mt9998.yaml:6:5") && t.contains("did you mean `hw_lro`"), "{t}");
    assert!(t.contains("mt9998.yaml:7:5") && t.contains("not a path"), "{t}");
}

#[test]
fn remove_without_extends() {
    let t = fails("remove_without_extends", &[("mt9999.yaml", &format!("{GOOD}remove: [fe.qdma]\n"))]);
    assert!(t.contains("extends no map"), "{t}");
}

#[test]
fn descriptor_layout_changed_in_place() {
    // The ddgen bug: the override used to change the one generated `RxV1` for both SoCs.
    let d = derived("descriptors:\n  rx_v1:\n    fields:\n      l4_valid: {bits: 25}\n");
    let t = fails("descriptor_changed_in_place", &[("mt9999.yaml", GOOD), ("mt9998.yaml", &d)]);
    assert!(t.contains("mt9998.yaml:6:") && t.contains("changes the descriptor layout `rx_v1` in place"), "{t}");
    assert!(t.contains("`mt9999` shares it") && t.contains("new name"), "{t}");
}

#[test]
fn register_layout_changed_in_place() {
    let d = derived(
        "spaces:\n  fe:\n    blocks:\n      pdma:\n        registers:\n          glo_cfg:\n            fields:\n              rx_dma_en: {bits: 3}\n",
    );
    let t = fails("register_changed_in_place", &[("mt9999.yaml", GOOD), ("mt9998.yaml", &d)]);
    assert!(
        t.contains("mt9998.yaml:10:") && t.contains("changes the layout of register `pdma.glo_cfg` in place"),
        "{t}"
    );
}

#[test]
fn removing_a_field_of_a_shared_register_is_a_change_in_place() {
    let d = derived("remove: [fe.pdma.glo_cfg.tx_dma_busy]\n");
    let t = fails("register_field_removed_in_place", &[("mt9999.yaml", GOOD), ("mt9998.yaml", &d)]);
    assert!(t.contains("mt9998.yaml:3:") && t.contains("in place"), "{t}");
}

#[test]
fn removed_items_are_gone_from_the_derived_soc_only() {
    let d = derived("remove: [fe.pdma.rx_ptr, fe.gdma, capabilities.rx_checksum, descriptors.tx_v1]\n");
    // The SoC lost its RX checksum register and capability with the block, and the TX layout
    // its inherited `tx_descriptor` names: it must give them again (here, a new block, a new
    // layout and the capabilities that name them).
    let fixed = d.replace(
        "soc:\n",
        "spaces:\n  fe:\n    blocks:\n      gdm:\n        base: 0x500\n        registers:\n          fwd_cfg_b: {offset: 0, fields: {ics_en: {bits: 22}}}\ndescriptors:\n  tx_v9: {size: 16, fields: {owner_cpu: {word: 2, bits: 31}}}\nsoc:\n",
    ) + "  capabilities:\n    rx_checksum: {register: fe.gdm.fwd_cfg_b, fields: [ics_en]}\n    tx_descriptor: tx_v9\n";
    let Err(without) = ddgen::load_texts(&[("mt9999.yaml", GOOD), ("mt9998.yaml", &d)]) else {
        panic!("the removed capability was not missed")
    };
    let text = without.render();
    assert!(text.contains("lacks capabilities: rx_checksum"), "{text}");
    let p = ddgen::load_texts(&[("mt9999.yaml", GOOD), ("mt9998.yaml", &fixed)]).unwrap_or_else(|r| panic!("{r}"));
    let json =
        |soc: &str| ddgen::dump::to_json(p.map(soc).unwrap(), p.socs().find(|(m, _)| m.name.value == soc).map(|x| x.1));
    let names = |v: &serde_json::Value| -> Vec<String> {
        v["spaces"]["fe"].as_array().unwrap().iter().map(|r| r["name"].as_str().unwrap().to_string()).collect()
    };
    let (base, new) = (json("mt9999"), json("mt9998"));
    assert!(
        names(&base).iter().any(|n| n.starts_with("pdma.rx_ptr")) && names(&base).iter().any(|n| n.starts_with("gdma"))
    );
    assert!(!names(&new).iter().any(|n| n.starts_with("pdma.rx_ptr") || n.starts_with("gdma[")), "{:?}", names(&new));
    assert!(names(&new).iter().any(|n| n == "gdm.fwd_cfg_b"));
    assert!(base["descriptors"].get("tx_v1").is_some() && new["descriptors"].get("tx_v1").is_none());
    let code = ddgen::generate(&p).expect("generates").file();
    assert!(code.contains("pub mod mt9998"));
}

#[test]
fn descriptor_layout_differs_between_socs() {
    let other = GOOD.replacen("name: mt9999", "name: mt9998", 1).replacen("mt9999-eth", "mt9998-eth", 1).replacen(
        "l4_valid: {word: 3, bits: 24}",
        "l4_valid: {word: 3, bits: 23}",
        1,
    );
    let t = fails("descriptor_layout_differs", &[("mt9999.yaml", GOOD), ("mt9998.yaml", &other)]);
    assert!(t.contains("descriptor layout `rx_v1` differs between `mt9999` and `mt9998`"), "{t}");
}

// ---- field arrays ----

#[test]
fn field_array_overruns_the_register() {
    let text = edit("rx_dma_en: {bits: 2}", "rx_dma_en: {bits: 30, array: {count: 4, stride: 1}}");
    let t = fails("field_array_overruns", &[("mt9999.yaml", &text)]);
    assert!(
        t.contains("mt9999.yaml:") && t.contains("field array `pdma.glo_cfg.rx_dma_en` runs past the register"),
        "{t}"
    );
    assert!(t.contains("element 3 ends at bit 33"), "{t}");
}

#[test]
fn field_array_overlaps_another_field() {
    // Elements at bits 2, 3, 4: the last one is bit 4 of `dma_size` (5:4).
    let text = edit("rx_dma_en: {bits: 2}", "rx_dma_en: {bits: 2, array: {count: 3, stride: 1}}");
    let t = fails("field_array_overlaps", &[("mt9999.yaml", &text)]);
    assert!(
        t.contains("mt9999.yaml:") && t.contains("fields `rx_dma_en` and `dma_size`") && t.contains("overlap"),
        "{t}"
    );
}

#[test]
fn field_array_elements_overlap_each_other() {
    let text = edit("bits: \"5:4\"", "bits: \"5:4\"\n                array: {count: 2, stride: 1}");
    let t = ddgen::load_texts(&[("mt9999.yaml", &text)]).expect_err("stride").render();
    assert!(t.contains("has stride 1, less than its width of 2 bits"), "{t}");
    let text = edit("rx_dma_en: {bits: 2}", "rx_dma_en: {bits: 2, array: {count: 1, stride: 1}}");
    let t = ddgen::load_texts(&[("mt9999.yaml", &text)]).expect_err("count").render();
    assert!(t.contains("has count 1; it must be 2..=32"), "{t}");
}

#[test]
fn field_arrays_generate_indexed_accessors() {
    let text =
        edit("rx_dma_en: {bits: 2}", "rx_dma_en: {bits: 2, array: {count: 2, stride: 1}, description: RX DMA n}")
            .replacen("dma_size:\n                bits: \"5:4\"", "dma_size:\n                bits: \"7:6\"", 1);
    let p = ddgen::load_texts(&[("mt9999.yaml", &text)]).unwrap_or_else(|r| panic!("{r}"));
    let code = ddgen::generate(&p).expect("generates").file();
    syn::parse_file(&code).expect("generated code parses");
    assert!(code.contains("pub const fn rx_dma_en(&self, n: usize) -> Option<bool>"), "getter");
    assert!(code.contains("pub const fn set_rx_dma_en(&mut self, n: usize, value: bool) -> bool"), "setter");
    assert!(code.contains("pub const RX_DMA_EN_COUNT: usize = 2;"), "count");
    let svd = ddgen::svd::to_svd(p.map("mt9999").expect("map"), &Default::default());
    assert!(svd.contains("<dim>2</dim>") && svd.contains("<name>rx_dma_en%s</name>"), "{svd}");
}

#[test]
fn hw_lro_timers_out_of_their_fields() {
    // Hardware LRO's age and aggregation times go into 16-bit fields of timer units, and must
    // be whole units.
    let bad = edit(
        "hw_lro: none ",
        "hw_lro: {rings: 3, ring_size: 8, buffer_size: 12288, max_segments: 64, timer_unit_us: 20, \
         age_time_us: 2000000, max_agg_time_us: 210, min_room: 1522, dip_rules_per_mac: 2} ",
    );
    let t = fails("hw_lro_timers_out_of_their_fields", &[("mt9999.yaml", &bad)]);
    assert!(t.contains("`hw_lro.age_time_us` (2000000 us) is 100000 timer units"), "{t}");
    assert!(t.contains("`hw_lro.max_agg_time_us` (210) is not a multiple of the timer unit"), "{t}");
    assert!(t.contains("mt9999.yaml:"), "{t}");
}
