//! Benchmark (not a test): how many frames per second of host time the model moves.
//!
//! `cargo run --release -p fe-sim --example bench_sim` prints a table and writes
//! `target/bench/sim.json`: 64-byte and 1514-byte frames through QDMA TX onto the wire, and
//! through the wire into PDMA RX (with the ring refilled as a driver would), per SoC.

#[path = "../tests/common/mod.rs"]
mod common;

use common::*;
use fe_regs::bus::Bus;
use fe_sim::packet;
use std::time::Instant;

fn tx_rate(soc: &'static fe_regs::SocInfo, len: usize, n: usize) -> f64 {
    let mut rig = new_rig(soc);
    let frame = packet::build_raw([2; 6], [4; 6], None, 0x0800, len, 1);
    let t = Instant::now();
    for i in 0..n {
        send_when_free(&mut rig, 0, 0, &frame);
        if i % 8 == 7 {
            rig.sim.advance(8 * fe_sim::wire::frame_time_ns(len, 1000));
            let _ = rig.sim.take_sent(0);
        }
    }
    rig.sim.advance(1_000_000_000);
    assert_eq!(rig.sim.stats().tx_frames as usize, n);
    n as f64 / t.elapsed().as_secs_f64()
}

fn rx_rate(soc: &'static fe_regs::SocInfo, len: usize, n: usize) -> f64 {
    let rig = new_rig(soc);
    let frame = packet::build_raw([2; 6], [4; 6], None, 0x0800, len, 1);
    let pcrx = soc.fe.pdma.pcrx_ptr.at(0).unwrap().offset() as usize;
    let t = Instant::now();
    let mut next = 0u32;
    for _ in 0..n / 6 {
        for _ in 0..6 {
            rig.sim.send_to_mac(0, frame.clone());
        }
        rig.sim.advance(6 * fe_sim::wire::frame_time_ns(len, 1000));
        // Give the six filled descriptors back, as the driver's poll would.
        for _ in 0..6 {
            give_rx(&rig, next);
            rig.sim.fe().write32(pcrx, next);
            next = (next + 1) % RX_RING;
        }
    }
    assert_eq!(rig.sim.stats().rx_frames as usize, n / 6 * 6, "{:?}", rig.sim.stats());
    (n / 6 * 6) as f64 / t.elapsed().as_secs_f64()
}

fn main() {
    let n = 300_000;
    let mut rows = Vec::new();
    println!("{:<8} {:>6} {:>14} {:>14}", "SoC", "bytes", "TX frames/s", "RX frames/s");
    for soc in fe_regs::SOCS {
        for len in [60, 1514] {
            let (tx, rx) = (tx_rate(soc, len, n), rx_rate(soc, len, n));
            println!("{:<8} {:>6} {:>14.0} {:>14.0}", soc.name, len, tx, rx);
            rows.push(format!("{{\"soc\": \"{}\", \"frame_bytes\": {len}, \"tx_frames_per_s\": {tx:.0}, \"rx_frames_per_s\": {rx:.0}}}", soc.name));
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench");
    std::fs::create_dir_all(&dir).ok();
    let out = dir.join("sim.json");
    std::fs::write(&out, format!("{{\"frames\": {n}, \"results\": [{}]}}\n", rows.join(", "))).ok();
    println!("wrote {}", out.display());
}
