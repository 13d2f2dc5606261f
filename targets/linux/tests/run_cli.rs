//! `fe run` and the main job: the driver on the simulator, RX checksum really switched in the
//! GDMA register, verdicts per frame, line-rate goodput, no illegal access.

use std::process::Command;

#[path = "../../../driver/tests/support_boards/mod.rs"]
mod support_boards;

fn fe(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_fe")).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

fn run_json(board: &str, rx_csum: &str) -> serde_json::Value {
    run_lro(board, rx_csum, "off")
}

fn run_lro(board: &str, rx_csum: &str, lro: &str) -> serde_json::Value {
    let path = fe_linux::dtc::dts_dir().join(board);
    let (code, out, err) = fe(&["run", "--dtb", path.to_str().unwrap(), "--rx-csum", rx_csum, "--lro", lro, "--json"]);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

#[test]
fn coalescing_modes_deliver_every_segment_in_fewer_frames() {
    for b in support_boards::all() {
        let (board, hw) = (b.file.as_str(), b.soc.caps.hw_lro.is_some());
        let mut modes = vec!["off", "soft"];
        if hw {
            modes.push("hw");
        }
        for rx_csum in ["on", "off"] {
            for lro in &modes {
                let v = run_lro(board, rx_csum, lro);
                assert_eq!(v["lro"], *lro, "{board}");
                assert_eq!(v["violations"], 0, "{board}");
                for m in v["macs"].as_array().unwrap() {
                    let rx = &m["rx"];
                    assert_eq!(rx["segments"], 4000, "{board} {rx_csum} {lro}: every segment delivered: {rx}");
                    let per = rx["frames_per_aggregate"].as_f64().unwrap();
                    if *lro == "off" {
                        assert_eq!(per, 1.0, "{board}");
                    } else {
                        assert!(per > 4.0, "{board} {rx_csum} {lro}: {per} segments per frame");
                    }
                }
            }
        }
        if !hw {
            let path = fe_linux::dtc::dts_dir().join(board);
            let (code, _, err) = fe(&["run", "--dtb", path.to_str().unwrap(), "--lro", "hw"]);
            assert_eq!(code, 1, "{board}: no hardware LRO");
            assert!(
                err.contains("lro hw") && err.contains("this SoC has no hardware LRO") && !err.contains("Unsupported("),
                "{err}"
            );
        }
    }
}

#[test]
fn rx_checksum_off_and_on_reach_the_register_and_the_verdicts() {
    for b in support_boards::all() {
        let board = b.file.as_str();
        let probed = fe_driver::dt::probe(&b.dtb).unwrap_or_else(|e| panic!("{board}: {e}"));
        let soc = probed.soc;
        // TCP goodput at line rate is 941.5 Mbit/s per Gbit/s; `fe run` brings a MAC without a
        // fixed link up at its PHY mode's natural speed. The floor is the goodput at that speed,
        // capped at 1 Gbit/s (the wire model's faster links are not held to line rate here).
        let floor = |id: u64| {
            let m = probed.macs().find(|m| u64::from(m.id) == id).expect("reported MAC is on the board");
            let speed = m.link.fixed_speed().unwrap_or(match m.phy_mode {
                "2500base-x" => 2500,
                "mii" | "rmii" => 100,
                _ => 1000,
            });
            0.99 * 941.5 * f64::from(speed.min(1000)) / 1000.0
        };
        let mask = u64::from(soc.caps.rx_checksum.mask);
        let off = run_json(board, "off");
        let on = run_json(board, "on");
        for (v, want_bits) in [(&off, 0), (&on, mask)] {
            assert_eq!(v["violations"], 0, "{board}");
            for m in v["macs"].as_array().unwrap() {
                assert_eq!(m["gdma_fwd_cfg"].as_u64().unwrap() & mask, want_bits, "{board}: GDMA checksum bits");
                let id = m["id"].as_u64().unwrap();
                assert!(m["tx"]["goodput_mbps"].as_f64().unwrap() >= floor(id), "{board}: {m}");
                assert_eq!(m["rx"]["frames"], 4000, "{board}: every frame delivered");
            }
        }
        assert_eq!(off["delivered_verified"], 0, "{board}: checking off, nothing is trusted");
        let per_mac_good = 4000 - 4000 / fe_linux::run::BAD_EVERY as u64;
        let macs = on["macs"].as_array().unwrap().len() as u64;
        assert_eq!(
            on["delivered_verified"].as_u64().unwrap(),
            per_mac_good * macs,
            "{board}: good frames verified, bad ones not"
        );
    }
}

#[test]
fn main_job_runs_every_bundled_board() {
    let (code, out, err) = fe(&[]);
    assert_eq!(code, 0, "{err}");
    for b in support_boards::all() {
        let soc = b.soc.name;
        let row = |l: &&str| l.starts_with(soc) && l.contains(&b.file) && l.contains(" off ");
        assert!(out.lines().any(|l| row(&l)), "{} ({soc}) missing:\n{out}", b.file);
    }
}

#[test]
fn run_reports_a_missing_file() {
    let (code, _, err) = fe(&["run", "--dtb", "/nonexistent/board.dts"]);
    assert_eq!(code, 1);
    assert!(err.contains("/nonexistent/board.dts"), "{err}");
}
