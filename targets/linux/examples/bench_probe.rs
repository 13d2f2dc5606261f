//! Benchmark (not a test): how long probing one DTB takes, for every board in `dts/`.
//!
//! `cargo run --release -p fe-linux --example bench_probe` prints a table and writes
//! `target/bench/probe.json`. `... -- --only BOARD.dts N` probes one board N times and exits
//! (for `valgrind --tool=callgrind`, see `scripts/bench-probe`).

use std::hint::black_box;
use std::time::Instant;

fn boards() -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(fe_linux::dtc::dts_dir())
        .expect("dts/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dts"))
        .collect();
    v.sort();
    v.into_iter()
        .map(|p| {
            let dtb = fe_linux::dtc::compile(&p, &[]).unwrap_or_else(|e| panic!("{e}"));
            (p.file_name().unwrap().to_string_lossy().into_owned(), dtb)
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 4 && args[1] == "--only" {
        let dtb =
            fe_linux::dtc::compile(&fe_linux::dtc::dts_dir().join(&args[2]), &[]).unwrap_or_else(|e| panic!("{e}"));
        let n: usize = args[3].parse().expect("N");
        for _ in 0..n {
            black_box(fe_driver::dt::probe(black_box(&dtb)).is_ok());
        }
        return;
    }
    let iterations = 20_000;
    let mut rows = Vec::new();
    println!("{:<28} {:>7} {:>12} {:>12}", "board", "bytes", "ns/probe", "probes/s");
    for (name, dtb) in boards() {
        assert!(fe_driver::dt::probe(&dtb).is_ok(), "{name} does not probe");
        // Warm up, then take the best of 5 runs (the least disturbed by other work).
        let mut best = f64::MAX;
        for _ in 0..5 {
            let t = Instant::now();
            for _ in 0..iterations {
                black_box(fe_driver::dt::probe(black_box(&dtb)).is_ok());
            }
            best = best.min(t.elapsed().as_nanos() as f64 / iterations as f64);
        }
        println!("{:<28} {:>7} {:>12.0} {:>12.0}", name, dtb.len(), best, 1e9 / best);
        rows.push(serde_json::json!({"board": name, "dtb_bytes": dtb.len(), "ns_per_probe": best.round()}));
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench");
    std::fs::create_dir_all(&dir).ok();
    let out = dir.join("probe.json");
    std::fs::write(
        &out,
        serde_json::to_string_pretty(&serde_json::json!({"iterations": iterations, "boards": rows})).unwrap(),
    )
    .ok();
    println!("wrote {}", out.display());
}
