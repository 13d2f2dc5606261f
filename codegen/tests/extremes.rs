//! Every number in a register map, one at a time, replaced by values near the limits of the
//! integer types ddgen parses them into (u32, u64): loading, validating, generating, dumping,
//! SVD and HTML never panic, and what is refused renders an error. This is the deterministic
//! companion of `no_panic.rs` (random mutations): it reaches every validation pass that combines
//! YAML numbers, because every number of the maps is visited.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

const MINI: &str = include_str!("fixtures/mini/mt9999.yaml");
const BASE: &str = include_str!("../../regs/netsys-v1.yaml");

/// Values at the edges of u32 and u64 (and 0, which divides).
const EXTREMES: [u64; 5] = [0, u32::MAX as u64, u32::MAX as u64 + 1, 1 << 63, u64::MAX];

/// Byte ranges of every decimal or hex literal in `text` (a digit run not inside a word).
fn numbers(text: &str) -> Vec<std::ops::Range<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut k = 0;
    while k < b.len() {
        if b[k].is_ascii_digit() && (k == 0 || !(b[k - 1].is_ascii_alphanumeric() || b[k - 1] == b'_')) {
            let end = text[k..].find(|c: char| !c.is_ascii_alphanumeric()).map_or(text.len(), |e| k + e);
            out.push(k..end);
            k = end;
        } else {
            k += 1;
        }
    }
    out
}

/// Runs every stage of ddgen on `files`; returns a description of what went wrong, if anything.
fn run_all(files: &[(&str, &str)]) -> Option<String> {
    let r = catch_unwind(AssertUnwindSafe(|| match ddgen::load_texts(files) {
        Ok(p) => {
            // The emitters' arithmetic runs here; formatting the file (slow) adds none.
            let _ = ddgen::generate(&p);
            for (m, c) in p.maps.iter().zip(&p.caps) {
                let _ = ddgen::dump::to_json(m, c.as_ref());
                let _ = ddgen::svd::to_svd(m, &HashMap::new());
            }
            let links = ddgen::doc::Links::new(&p.sources, std::path::Path::new("/tmp/doc"), None);
            let _ = ddgen::doc::render(&p, &links);
            None
        }
        Err(r) if r.error_count() == 0 => Some("refused without an error".to_string()),
        Err(r) => (!r.render().contains("error")).then(|| "an error that renders no error".to_string()),
    }));
    match r {
        Ok(v) => v,
        Err(e) => Some(
            e.downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into()),
        ),
    }
}

/// Substitutes each extreme into each number of the file at `which` (others unchanged).
fn sweep(files: &[(&str, &str)], which: usize) -> Vec<String> {
    let (name, text) = files[which];
    let mut failures = Vec::new();
    for range in numbers(text) {
        for v in EXTREMES {
            let changed = format!("{}{v}{}", &text[..range.start], &text[range.end..]);
            let mut set: Vec<(&str, &str)> = files.to_vec();
            set[which] = (name, &changed);
            if let Some(why) = run_all(&set) {
                let line = text[..range.start].matches('\n').count() + 1;
                failures.push(format!("{name}:{line}: `{}` -> {v}: {why}", &text[range.clone()]));
            }
        }
    }
    failures
}

fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}

#[test]
fn every_number_of_the_small_map_at_the_type_limits() {
    quiet_panics();
    let failures = sweep(&[("mt9999.yaml", MINI)], 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_number_of_each_bundled_derived_map_at_the_type_limits() {
    quiet_panics();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../regs");
    let mut failures = Vec::new();
    let mut swept = 0;
    for path in ddgen::yaml_files(std::path::Path::new(dir)).unwrap() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "netsys-v1.yaml" {
            continue; // the base: swept below, once, under one derived map
        }
        let text = std::fs::read_to_string(&path).unwrap();
        failures.extend(sweep(&[("netsys-v1.yaml", BASE), (&name, &text)], 1));
        swept += 1;
    }
    assert!(swept > 0, "no derived maps found in {dir}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_number_of_the_base_map_at_the_type_limits() {
    quiet_panics();
    let failures = sweep(&[("netsys-v1.yaml", BASE)], 0);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
