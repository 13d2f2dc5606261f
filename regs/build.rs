//! Runs ddgen over every `regs/*.yaml` and writes the register crate's generated module.

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    println!("cargo::rerun-if-changed={}", dir.display());
    let files = match ddgen::yaml_files(&dir) {
        Ok(f) => f,
        Err(e) => {
            println!("cargo::error={e}");
            return;
        }
    };
    for f in &files {
        println!("cargo::rerun-if-changed={}", f.display());
    }
    let project = match ddgen::load(&files) {
        Ok(p) => p,
        Err(report) => {
            // Show every diagnostic with file:line:column, then fail the build.
            for line in report.render().lines() {
                println!("cargo::warning={line}");
            }
            println!(
                "cargo::error=ddgen found {} error(s) in regs/*.yaml (see warnings above, or run `cargo run -p ddgen -- check`)",
                report.error_count()
            );
            return;
        }
    };
    let generated = match ddgen::generate(&project) {
        Ok(g) => g,
        Err(e) => {
            println!("cargo::error={e}");
            return;
        }
    };
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR")).join("fe_regs.rs");
    if let Err(e) = std::fs::write(&out, generated.file()) {
        println!("cargo::error=cannot write {}: {e}", out.display());
    }
}
