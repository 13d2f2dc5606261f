//! Every board in `dts/`, compiled with cpp + dtc as the kernel does and probed: the SoC, MACs,
//! switch ports, queue map and shaping decisions each board is written to show.

use fe_driver::dt::{Board, Duplex, EthNode, Link, NewMac, NewPort, Shaping, probe};
use std::path::PathBuf;

#[path = "../driver/tests/support_boards/mod.rs"]
mod support_boards;

fn compile(board: &str) -> Vec<u8> {
    let path = fe_linux::dtc::dts_dir().join(board);
    fe_linux::dtc::compile(&path, &[]).unwrap_or_else(|e| panic!("{e}\n(scripts/test installs device-tree-compiler)"))
}

fn with_board(board: &str, f: impl FnOnce(&Board)) {
    let dtb = compile(board);
    let p = probe(&dtb).unwrap_or_else(|e| panic!("{board}: {e}"));
    f(&p);
}

fn labels(p: &Board) -> Vec<(String, u32, u8, u8)> {
    p.switch_ports().map(|s| (s.label.to_string(), s.port, s.queue, s.conduit_mac)).collect()
}

/// Every board file in `dts/`.
fn boards() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(fe_linux::dtc::dts_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "dts"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_board_compiles_and_probes() {
    let mut n = 0;
    for p in boards() {
        let dtb = fe_linux::dtc::compile(&p, &[]).unwrap_or_else(|e| panic!("{e}"));
        let b = probe(&dtb).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(b.warnings().count(), 0, "{}: a bundled board probes without warnings", p.display());
        n += 1;
    }
    assert!(n > 0, "no board in dts/");
}

#[test]
fn every_dts_is_a_board_and_every_soc_has_one() {
    // The boards the cross-SoC tests iterate over are found by compatible; a .dts that names no
    // SoC (a typo in its compatible) would silently drop out of them, and a SoC without a board
    // would be tested by no board test.
    let found = support_boards::all();
    let files: Vec<String> = boards().iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(found.iter().map(|b| b.file.clone()).collect::<Vec<_>>(), files, "every .dts is found as a board");
    for soc in fe_regs::SOCS {
        assert!(found.iter().any(|b| b.soc.name == soc.name), "{}: no board in dts/", soc.name);
        let b = support_boards::of_soc(soc);
        assert!(b.iter().all(|b| fe_driver::dt::probe(&b.dtb).unwrap().soc.name == soc.name), "{}", soc.name);
    }
}

#[test]
fn every_board_can_be_built_by_hand_to_the_same_result() {
    // What a kernel does with its OF tree: the same facts through Board's checked builder give
    // the same MACs, queues, ports and shaping decisions as the probe.
    for p in boards() {
        let dtb = fe_linux::dtc::compile(&p, &[]).unwrap_or_else(|e| panic!("{e}"));
        let probed = probe(&dtb).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let node = EthNode {
            compatible: probed.compatible,
            path: probed.path,
            reg: probed.reg,
            ethsys_path: probed.ethsys_path,
            ethsys_reg: probed.ethsys_reg,
        };
        let mut b = Board::new(node, probed.irqs()).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        for m in probed.macs() {
            let mode = (!m.phy_mode.is_empty()).then_some(m.phy_mode);
            b.add_mac(NewMac {
                id: u32::from(m.id),
                path: m.path,
                enabled: m.enabled,
                phy_mode: mode,
                link: m.link,
                sfp: m.sfp,
                in_band: m.in_band,
            })
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        }
        for s in probed.switch_ports() {
            b.add_switch_port(NewPort {
                label: s.label,
                port: u64::from(s.port),
                switch_ports: fe_driver::dt::probe::SWITCH_PORTS[0].1,
                path: s.path,
                conduit_mac: s.conduit_mac,
                speed: s.speed,
            })
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        }
        assert!(std::ptr::eq(b.soc, probed.soc), "{}", p.display());
        assert_eq!(b.macs, probed.macs, "{}", p.display());
        assert_eq!(b.ports, probed.ports, "{}", p.display());
        assert_eq!(b.irqs(), probed.irqs(), "{}", p.display());
    }
}

/// Replaces every occurrence of the string `from` (not the tail of a longer word) in `bytes`
/// with `to` (same length).
fn patch(bytes: &mut [u8], from: &[u8], to: &[u8]) -> usize {
    assert_eq!(from.len(), to.len());
    let mut n = 0;
    let mut i = 1;
    while i + from.len() <= bytes.len() {
        if &bytes[i..i + from.len()] == from && !bytes[i - 1].is_ascii_alphanumeric() {
            bytes[i..i + from.len()].copy_from_slice(to);
            n += 1;
            i += from.len();
        } else {
            i += 1;
        }
    }
    n
}

#[test]
fn report_escapes_control_characters_from_the_device_tree() {
    let mut dtb = compile("mt7621-router.dts");
    // A label that clears the screen and a phy mode with a bell, both the length of the originals.
    assert!(patch(&mut dtb, b"lan1\0", b"\x1b[2J\0") > 0);
    assert!(patch(&mut dtb, b"rgmii\0", b"rg\x07ii\0") > 0);
    let p = probe(&dtb).unwrap_or_else(|e| panic!("{e}"));
    let text = fe_linux::report::text(&p);
    for line in text.lines() {
        assert!(!line.chars().any(char::is_control), "raw control character in {line:?}");
    }
    assert!(text.contains("\\u{1b}[2J"), "{text}");
    assert!(text.contains("rg\\u{7}ii"), "{text}");
    let json = serde_json::to_string(&fe_linux::report::to_json(&p)).unwrap();
    assert!(!json.chars().any(char::is_control), "{json}");
}

#[test]
fn unsupported_phy_mode_is_a_warning_in_text_and_json() {
    let mut dtb = compile("mt7621-router.dts");
    // gmac1's rgmii becomes a mode no MAC of any SoC lists; the board still probes.
    assert!(patch(&mut dtb, b"rgmii\0", b"xgmii\0") > 0);
    let p = probe(&dtb).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.warnings().count(), 1);
    let text = fe_linux::report::text(&p);
    let warning = text.lines().find(|l| l.starts_with("warning")).unwrap_or_else(|| panic!("no warning in {text}"));
    assert!(warning.contains("mac@1") && warning.contains("\"xgmii\"") && warning.contains("disabled"), "{warning}");
    let json = fe_linux::report::to_json(&p);
    let w = &json["warnings"][0];
    assert!(w["path"].as_str().unwrap().ends_with("mac@1"), "{json}");
    assert_eq!(w["property"], "phy-mode");
    assert!(w["message"].as_str().unwrap().contains("xgmii"));
    assert_eq!(json["macs"][1]["enabled"], false);
    assert!(!json["switch_ports"].as_array().unwrap().is_empty(), "the switch ports are kept");
}

#[test]
fn mt7621_router() {
    with_board("mt7621-router.dts", |p| {
        assert_eq!(p.soc.name, "mt7621");
        assert_eq!((p.reg.base, p.reg.size), (0x1e10_0000, 0x10000));
        assert_eq!(p.ethsys_reg.base, 0x1e00_0000);
        assert_eq!(p.irqs().len(), 1);
        let m0 = p.macs[0].unwrap();
        assert_eq!((m0.phy_mode, m0.link), ("trgmii", Link::Fixed { speed: 1000, duplex: Duplex::Full, pause: true }));
        assert_eq!(p.macs[1].unwrap().phy_mode, "rgmii");
        assert_eq!(
            labels(p),
            [("wan", 0, 3, 0), ("lan1", 1, 4, 0), ("lan2", 2, 5, 0), ("lan3", 3, 6, 0), ("lan4", 4, 7, 0)]
                .map(|(l, a, b, c)| (l.to_string(), a, b, c))
        );
    });
}

#[test]
fn mt7621_gmac1_disabled() {
    with_board("mt7621-gmac1-disabled.dts", |p| {
        assert!(p.macs[0].unwrap().enabled);
        assert!(!p.macs[1].unwrap().enabled);
        assert_eq!(p.enabled_macs().count(), 1);
    });
}

#[test]
fn mt7621_slow_port_is_shaped() {
    with_board("mt7621-lan-100m.dts", |p| {
        let lan4 = p.switch_ports().find(|s| s.label == "lan4").unwrap();
        assert_eq!((lan4.speed, lan4.queue, lan4.shaping), (Some(100), 7, Shaping::Shaped { speed: 100 }));
        assert!(p.switch_ports().filter(|s| s.label != "lan4").all(|s| s.shaping == Shaping::AtLinkUp));
        // The MAC queues themselves are never shaped: they are not switch ports.
        assert_eq!(p.macs[0].unwrap().queue, 0);
    });
}

#[test]
fn mt7623n_bpi_r2() {
    with_board("mt7623n-bpi-r2.dts", |p| {
        assert_eq!(p.soc.name, "mt7623");
        assert_eq!(p.irqs().iter().map(|i| i.number()).collect::<Vec<_>>(), [200, 199, 198]);
        assert_eq!(p.macs[0].unwrap().phy_mode, "trgmii");
        assert_eq!(p.macs[1].unwrap().phy_mode, "rgmii");
        assert!(p.macs().all(|m| m.link.fixed_speed() == Some(1000)));
        let l = labels(p);
        assert_eq!(l.iter().map(|x| x.0.as_str()).collect::<Vec<_>>(), ["wan", "lan0", "lan1", "lan2", "lan3"]);
        assert!(l.iter().all(|x| x.2 as u32 == x.1 + 3), "port N -> queue N+3");
        assert!(l.iter().all(|x| x.3 == 0), "both CPU links are 1000; ties go to gmac0 (TRGMII, port 6)");
    });
}

#[test]
fn mt7986a_bpi_r3() {
    with_board("mt7986a-bpi-r3.dts", |p| {
        assert_eq!(p.soc.name, "mt7986");
        assert_eq!(p.irqs().len(), 4);
        assert_eq!(p.macs[0].unwrap().link.fixed_speed(), Some(2500));
        let m1 = p.macs[1].unwrap();
        assert_eq!((m1.phy_mode, m1.in_band, m1.link), ("2500base-x", true, Link::InBand));
        assert!(m1.sfp.is_some());
        let lan4 = p.switch_ports().find(|s| s.label == "lan4").unwrap();
        assert_eq!((lan4.port, lan4.queue, lan4.shaping), (5, 8, Shaping::AtLinkUp));
    });
}

#[test]
fn mt7986a_phy_handle() {
    with_board("mt7986a-phy-handle.dts", |p| match p.macs[1].unwrap().link {
        Link::Phy { phy } => assert!(phy.to_string().ends_with("ethernet-phy@5"), "{phy}"),
        other => panic!("expected a PHY link, got {other:?}"),
    });
}
