//! Fuzz target `load`: arbitrary bytes as register maps must never make ddgen panic.
//!
//! The input is split at NUL bytes into up to four YAML files (`f0.yaml`, `f1.yaml`, ...), so one
//! input can hold a base and the maps that extend it. Whatever happens, every diagnostic is
//! rendered (spans are clamped into the text); whatever loads is generated, the generated Rust is
//! parsed, and each map is dumped as JSON.

#![no_main]

use libfuzzer_sys::fuzz_target;

/// Most files one input is split into.
const MAX_FILES: usize = 4;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parts: Vec<&str> = text.splitn(MAX_FILES, '\0').collect();
    let names: Vec<String> = (0..parts.len()).map(|i| format!("f{i}.yaml")).collect();
    let files: Vec<(&str, &str)> = names.iter().map(String::as_str).zip(parts.iter().copied()).collect();
    match ddgen::load_texts(&files) {
        Err(report) => {
            assert!(report.error_count() > 0, "a failed load reports no error");
            let _ = report.render();
        }
        Ok(project) => {
            for w in &project.warnings {
                let _ = w.render(&project.sources);
            }
            let generated = match ddgen::generate(&project) {
                Ok(g) => g.file(),
                Err(e) => panic!("accepted maps: {e}"),
            };
            if let Err(e) = syn::parse_file(&generated) {
                panic!("accepted maps generate Rust that does not parse: {e}");
            }
            for (map, caps) in project.maps.iter().zip(&project.caps) {
                let _ = serde_json::to_string(&ddgen::dump::to_json(map, caps.as_ref()));
            }
        }
    }
});
