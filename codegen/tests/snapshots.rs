//! Snapshots of the generated code and the JSON dump for every bundled SoC.
//!
//! A codegen change shows up as a reviewable diff under `snapshots/`; CI (which sets `CI=true`)
//! fails on any mismatch instead of writing new snapshots. Bless changes with `cargo insta review`.

use std::path::Path;

fn bundled() -> ddgen::Project {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../regs");
    let files = ddgen::yaml_files(&dir).expect("bundled maps");
    match ddgen::load(&files) {
        Ok(p) => p,
        Err(r) => panic!("bundled maps do not validate:\n{r}"),
    }
}

fn settings() -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("../snapshots"));
    s.set_prepend_module_to_snapshot(false);
    s.set_omit_expression(true);
    s
}

/// The SoC table is the one line of the shared code that every SoC changes; the `shared`
/// snapshot holds it masked (so adding a SoC adds snapshot files and changes none), and
/// [`soc_table_lists_every_soc_in_map_order`] checks it.
const SOCS_MASK: &str =
    "pub static SOCS: [&SocInfo; N] = [/* every SoC's INFO, checked by soc_table_lists_every_soc_in_map_order */];";

/// The `SOCS` item of the shared code: (its text, the text with it masked).
fn split_soc_table(shared: &str) -> (String, String) {
    let start = shared.find("pub static SOCS:").expect("shared code has the SOCS table");
    let end = start + shared[start..].find("];").expect("end of the SOCS table") + 2;
    (shared[start..end].to_string(), format!("{}{SOCS_MASK}{}", &shared[..start], &shared[end..]))
}

#[test]
fn generated_code_per_soc() {
    let p = bundled();
    let g = ddgen::generate(&p).expect("generates");
    let socs: Vec<&String> = p.socs().map(|(m, _)| &m.name.value).collect();
    assert!(!socs.is_empty(), "no SoC in regs/");
    assert_eq!(g.socs.iter().map(|s| &s.0).collect::<Vec<_>>(), socs, "one generated module per SoC");
    settings().bind(|| {
        insta::assert_snapshot!("shared", split_soc_table(&g.shared).1);
        for (soc, code) in &g.socs {
            insta::assert_snapshot!(format!("soc_{soc}"), code);
        }
    });
}

#[test]
fn soc_table_lists_every_soc_in_map_order() {
    let p = bundled();
    let g = ddgen::generate(&p).expect("generates");
    let (table, _) = split_soc_table(&g.shared);
    let refs: Vec<String> = p.socs().map(|(m, _)| format!("&{}::INFO", m.name.value.replace('-', "_"))).collect();
    let want = format!("pub static SOCS: [&SocInfo; {}] = [{}];", refs.len(), refs.join(", "));
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ").replace("[ ", "[").replace(", ]", "]");
    assert_eq!(squash(&table), squash(&want));
}

#[test]
fn json_dump_per_map() {
    let p = bundled();
    settings().bind(|| {
        for (m, c) in p.maps.iter().zip(&p.caps) {
            let v = ddgen::dump::to_json(m, c.as_ref());
            insta::assert_snapshot!(format!("dump_{}", m.name.value), serde_json::to_string_pretty(&v).unwrap());
        }
    });
}

#[test]
fn generation_is_deterministic() {
    let a = ddgen::generate(&bundled()).expect("generates").file();
    let b = ddgen::generate(&bundled()).expect("generates").file();
    assert_eq!(a, b);
}

#[test]
fn generated_file_parses_as_rust() {
    let code = ddgen::generate(&bundled()).expect("generates").file();
    assert!(!code.contains("compile_error!"), "the emitter produced tokens that do not parse");
    syn::parse_file(&code).expect("generated code parses");
}

#[test]
fn reset_values_reach_both_the_typed_map_and_the_metadata() {
    let yaml = include_str!("fixtures/mini/mt9999.yaml").replacen("reset: 0x00000000", "reset: 0x00000004", 1);
    let p = ddgen::load_texts(&[("mt9999.yaml", &yaml)]).unwrap_or_else(|r| panic!("{r}"));
    let code = ddgen::generate(&p).expect("generates").file();
    assert!(code.contains("crate::values::PdmaGloCfg(0x00000004)"), "typed map carries the reset");
    let meta = code.find("name: \"pdma.glo_cfg\"").expect("metadata entry");
    assert!(code[meta..].split('}').next().unwrap().contains("reset: 0x00000004"), "metadata carries the reset");
}

/// The end (exclusive) of the last register of space `fe` on `map`, array elements included.
fn fe_end(map: &ddgen::model::Map) -> u64 {
    let fe = map.spaces.iter().find(|s| s.name.value == "fe").expect("every SoC has fe");
    let span = |a: &Option<ddgen::model::Array>| a.as_ref().map_or(0, |a| a.stride.value * (a.count.value - 1));
    fe.blocks
        .iter()
        .flat_map(|b| {
            b.registers.iter().map(move |r| b.base.value + r.offset.value + span(&b.array) + span(&r.array) + 4)
        })
        .max()
        .unwrap_or(0)
}

/// Issue 18's rule for snapshots: a new SoC that brings a space, a block and a register no
/// other SoC has leaves every existing SoC's generated module byte-identical (their snapshots
/// do not change; only the shared items and the new SoC's module do).
#[test]
fn a_soc_with_new_spaces_blocks_and_registers_leaves_other_soc_modules_unchanged() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../regs");
    let files = ddgen::yaml_files(&dir).expect("bundled maps");
    let texts: Vec<(String, String)> =
        files.iter().map(|f| (f.display().to_string(), std::fs::read_to_string(f).expect("readable map"))).collect();
    let before = bundled();
    let (base, _) = before.socs().next().expect("a bundled SoC");
    let first_block = &base.spaces.iter().find(|s| s.name.value == "fe").expect("fe").blocks[0];
    // Past every register of the base's `fe`, in a new block and in the base's first block.
    let free = fe_end(base).next_multiple_of(0x100);
    let name = "fe-test-stable";
    let yaml = format!(
        "name: {name}\nextends: {base}\ndescription: Fictitious SoC of the snapshot-stability test\n\
         spaces:\n  test_sys:\n    description: A syscon only this SoC has\n    dt: {{property: \"example,test-sys\"}}\n\
         \x20   blocks:\n      ctl:\n        base: 0x0\n        registers:\n          mode:\n            offset: 0x0\n\
         \x20           description: Mode\n            fields: {{sel: {{bits: 0, description: Select}}}}\n\
         \x20 fe:\n    blocks:\n      test_blk:\n        base: {free:#x}\n        registers:\n          only_here:\n\
         \x20           offset: 0x0\n            description: Only on this SoC\n            fields: {{on: {{bits: 0, description: On}}}}\n\
         \x20     {first}:\n        registers:\n          also_only_here:\n            offset: {off:#x}\n\
         \x20           description: Only on this SoC\n            fields: {{on: {{bits: 1, description: On}}}}\n\
         soc:\n  compatible: [\"example,{name}-eth\"]\n",
        base = base.name.value,
        first = first_block.name.value,
        off = free + 0x100 - first_block.base.value,
    );
    let mut all: Vec<(&str, &str)> = texts.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    all.push(("fe-test-stable.yaml", &yaml));
    let after =
        ddgen::load_texts(&all).unwrap_or_else(|r| panic!("the fictitious SoC does not validate:\n{r}\n{yaml}"));
    let (g0, g1) = (ddgen::generate(&before).expect("generates"), ddgen::generate(&after).expect("generates"));
    for (soc, code) in &g0.socs {
        let now = g1.socs.iter().find(|(s, _)| s == soc).map(|(_, c)| c);
        assert_eq!(now, Some(code), "module {soc} changed when {name} was added");
    }
    assert!(g1.shared.contains("TestSys(") && g1.shared.contains("also_only_here"), "the new items are generated");
    assert!(g1.socs.iter().any(|(s, c)| s == name && c.contains("crate::SpaceMap::TestSys(&TEST_SYS)")));
}
