//! Every board in `dts/`, compiled with cpp + dtc as the kernel does and probed: the SoC, MACs,
//! switch ports, queue map and shaping decisions each board is written to show.

use fe_driver::dt::{Board, Duplex, Link, Shaping, probe};
use std::path::PathBuf;

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

#[test]
fn every_board_compiles_and_probes() {
    let mut n = 0;
    for e in std::fs::read_dir(fe_linux::dtc::dts_dir()).unwrap() {
        let p: PathBuf = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "dts") {
            let dtb = fe_linux::dtc::compile(&p, &[]).unwrap_or_else(|e| panic!("{e}"));
            probe(&dtb).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            n += 1;
        }
    }
    assert!(n >= 6, "expected at least 6 boards, found {n}");
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
