//! `fe run --irq` on every bundled board: RX and TX run only from the model's interrupt lines,
//! NAPI style (the handler masks, the poll loop runs to budget until a poll returns less, then
//! unmasks; TX is reclaimed only on its interrupt). Every frame arrives both ways, interrupts are
//! counted from the model (simulated time, never the wall clock), the YAML's interrupt moderation
//! takes fewer interrupts than moderation off, goodput stays at the polled run's line rate, and
//! the model sees no illegal access.

use fe_driver::eth::LroMode;
use fe_linux::run::{self, Drive, FRAMES, Report};
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../../../driver/tests/support_boards/mod.rs"]
mod support_boards;

/// Every bundled board (found by compatible: `support_boards`).
fn boards() -> Vec<PathBuf> {
    support_boards::all().into_iter().map(|b| b.path).collect()
}

fn run_board(path: &Path, lro: LroMode, drive: Drive) -> Report {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let dtb = fe_linux::dtc::load(path).unwrap_or_else(|e| panic!("{e}"));
    run::run_with(&name, &dtb, true, lro, drive).unwrap_or_else(|e| panic!("{e}"))
}

/// Every frame both ways, interrupts counted, no violation, no spurious interrupt.
fn check_complete(r: &Report, what: &str) {
    assert_eq!(r.violations, 0, "{} {what}: model violations", r.board);
    assert_eq!(r.spurious_irqs, 0, "{} {what}: spurious interrupts", r.board);
    assert!(!r.macs.is_empty(), "{} {what}: no MAC with a link", r.board);
    for m in &r.macs {
        assert_eq!(m.tx.frames, FRAMES as u64, "{} {what} mac {}: every TX frame on the wire", r.board, m.id);
        assert_eq!(m.rx.segments, FRAMES as u64, "{} {what} mac {}: every RX segment delivered", r.board, m.id);
        assert!(m.tx.irqs > 0 && m.rx.irqs > 0, "{} {what} mac {}: interrupts counted", r.board, m.id);
    }
    assert!(r.drops.iter().all(|(_, n)| *n == 0), "{} {what}: drops {:?}", r.board, r.drops);
}

#[test]
fn napi_from_interrupts_on_every_board_moderation_takes_fewer_interrupts_at_line_rate() {
    let mut moderated = 0;
    for path in boards() {
        let polled = run_board(&path, LroMode::Off, Drive::Poll);
        let on = run_board(&path, LroMode::Off, Drive::Irq { moderation: true });
        let off = run_board(&path, LroMode::Off, Drive::Irq { moderation: false });
        check_complete(&on, "moderation on");
        check_complete(&off, "moderation off");
        let soc = fe_driver::dt::probe(&fe_linux::dtc::load(&path).unwrap()).unwrap().soc;
        let m = soc.caps.irq.moderation;
        moderated += usize::from(m.is_some());
        for ((p, a), b) in polled.macs.iter().zip(&on.macs).zip(&off.macs) {
            let b_name = &on.board;
            if let Some(m) = m {
                assert!(
                    a.rx.irqs < b.rx.irqs,
                    "{b_name} mac {}: RX {} irqs moderated, {} not",
                    a.id,
                    a.rx.irqs,
                    b.rx.irqs
                );
                assert!(
                    a.tx.irqs < b.tx.irqs,
                    "{b_name} mac {}: TX {} irqs moderated, {} not",
                    a.id,
                    a.tx.irqs,
                    b.tx.irqs
                );
                // No interrupt holds more completions than the packet limit allows.
                let floor = FRAMES as u64 / u64::from(m.rx.packets.max(1));
                assert!(a.rx.irqs >= floor, "{b_name} mac {}: {} RX irqs under the packet limit", a.id, a.rx.irqs);
            }
            for (d, pd, dir) in [(&a.rx, &p.rx, "rx"), (&a.tx, &p.tx, "tx"), (&b.rx, &p.rx, "rx"), (&b.tx, &p.tx, "tx")]
            {
                assert!(
                    d.goodput_mbps >= pd.goodput_mbps * 0.99,
                    "{b_name} mac {} {dir}: {} Mbit/s from interrupts, {} polled",
                    a.id,
                    d.goodput_mbps,
                    pd.goodput_mbps
                );
            }
        }
    }
    assert!(moderated > 0, "no bundled board's SoC has interrupt moderation in its YAML");
}

#[test]
fn coalescing_runs_from_interrupts_too() {
    for path in boards() {
        let soc = fe_driver::dt::probe(&fe_linux::dtc::load(&path).unwrap()).unwrap().soc;
        for lro in run::lro_modes(soc).into_iter().filter(|l| *l != LroMode::Off) {
            let r = run_board(&path, lro, Drive::Irq { moderation: true });
            check_complete(&r, run::lro_name(lro));
            for m in &r.macs {
                assert!(m.rx.frames < m.rx.segments, "{} {}: segments coalesced", r.board, run::lro_name(lro));
            }
        }
    }
}

fn fe(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_fe")).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

#[test]
fn the_cli_reports_interrupts_only_with_irq() {
    let board = boards().remove(0);
    let b = board.to_str().unwrap();
    let (code, out, err) = fe(&["run", "--dtb", b, "--irq", "--irq-moderation", "off", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["interrupts"]["moderation"], false, "{v}");
    for m in v["macs"].as_array().unwrap() {
        assert!(m["rx"]["irqs"].as_u64().unwrap() > 0 && m["rx"]["irqs_per_frame"].as_f64().unwrap() > 0.0, "{m}");
    }
    let (code, out, err) = fe(&["run", "--dtb", b, "--irq"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(run::HEADER_IRQ), "{out}");
    // Without --irq: the polled run's table and JSON, no interrupt fields.
    let (code, out, err) = fe(&["run", "--dtb", b, "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v.get("interrupts").is_none() && v["macs"][0]["rx"].get("irqs").is_none(), "{v}");
    let (code, out, _) = fe(&["run", "--dtb", b]);
    assert_eq!(code, 0);
    assert!(out.starts_with(&format!("{}\n", run::HEADER)), "{out}");
    // --irq-moderation means nothing without --irq.
    let (code, _, err) = fe(&["run", "--dtb", b, "--irq-moderation", "off"]);
    assert_eq!(code, 2, "{err}");
}
