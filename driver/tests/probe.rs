//! The probe on trees built in code: the good case in detail, then one test per error, each
//! checking the error kind, the node path and the property it names.

mod support;

use fe_driver::dt::board::{fe_extent, min_window};
use fe_driver::dt::{
    Board, Duplex, EthNode, IrqSpec, Link, NewMac, NewPort, NodePath, ProbeErrorKind as K, Region, Shaping, probe,
    probe_into,
};
use std::mem::MaybeUninit;
use support::{ETH, Node, dtb, mt7621_board};

const SWITCH_PORTS: &str = "/ethernet@1e100000/mdio-bus/switch@1f/ports";

fn err_of(root: &Node) -> (K<'static>, String, Option<String>, String) {
    let bytes: &'static [u8] = Box::leak(dtb(root).into_boxed_slice());
    match probe(bytes) {
        Ok(p) => panic!("probe accepted a bad tree: {p:?}"),
        Err(e) => (e.kind, e.path.to_string(), e.property.map(str::to_string), e.to_string()),
    }
}

#[test]
fn mt7621_board_probes() {
    let bytes = dtb(&mt7621_board());
    let p = probe(&bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.soc.name, "mt7621");
    assert_eq!(p.compatible, "mediatek,mt7621-eth");
    assert_eq!(p.path.to_string(), ETH);
    assert_eq!((p.reg.base, p.reg.size), (0x1e10_0000, 0x10000));
    assert_eq!((p.ethsys_reg.base, p.ethsys_reg.size), (0x1e00_0000, 0x100));
    assert_eq!(p.irqs().len(), 1);
    assert_eq!(p.irqs()[0].number(), 3);
    let m0 = p.macs[0].unwrap();
    assert_eq!((m0.enabled, m0.phy_mode, m0.queue), (true, "trgmii", 0));
    assert_eq!(m0.link, Link::Fixed { speed: 1000, duplex: Duplex::Full, pause: true });
    assert_eq!(p.macs[1].unwrap().queue, 1);
    let ports: Vec<_> = p.switch_ports().collect();
    assert_eq!(ports.iter().map(|s| s.label).collect::<Vec<_>>(), ["wan", "lan1", "lan2", "lan3", "lan4"]);
    for s in &ports {
        assert_eq!(s.conduit_mac, 0);
        assert_eq!(s.queue as u32, s.port + 3, "switch port N uses queue N+3");
        assert_eq!(s.shaping, Shaping::AtLinkUp, "user port speed unknown until link-up");
    }
}

#[test]
fn slow_port_is_shaped_and_fast_port_is_not() {
    let mut t = mt7621_board();
    t.at("/ethernet@1e100000/mdio-bus/switch@1f/ports/port@4").set("max-speed", 100u32.to_be_bytes().to_vec());
    t.at("/ethernet@1e100000/mdio-bus/switch@1f/ports/port@3").set("max-speed", 1000u32.to_be_bytes().to_vec());
    let bytes = dtb(&t);
    let p = probe(&bytes).unwrap();
    let port = |n: u32| *p.switch_ports().find(|s| s.port == n).unwrap();
    assert_eq!(port(4).shaping, Shaping::Shaped { speed: 100 });
    assert_eq!(port(3).shaping, Shaping::Unshaped, "a port as fast as the conduit MAC is never shaped");
    assert_eq!(p.soc.caps.shaper.value_for(100), Some(0x7814_1e73));
}

#[test]
fn legacy_fixed_link_and_phy_connection_type() {
    let mut t = mt7621_board();
    let mac1 = t.at("/ethernet@1e100000/mac@1");
    mac1.children.clear();
    mac1.remove("phy-mode");
    mac1.set("phy-connection-type", b"rgmii\0".to_vec());
    mac1.set("fixed-link", [0u32, 1, 100, 0, 0].iter().flat_map(|c| c.to_be_bytes()).collect());
    let bytes = dtb(&t);
    let p = probe(&bytes).unwrap();
    assert_eq!(p.macs[1].unwrap().link, Link::Fixed { speed: 100, duplex: Duplex::Full, pause: false });
    assert_eq!(p.macs[1].unwrap().phy_mode, "rgmii");
}

#[test]
fn disabled_mac_is_reported_not_used() {
    let mut t = mt7621_board();
    t.at("/ethernet@1e100000/mac@1").set("status", b"disabled\0".to_vec());
    let bytes = dtb(&t);
    let p = probe(&bytes).unwrap();
    assert!(!p.macs[1].unwrap().enabled);
    assert_eq!(p.enabled_macs().count(), 1);
}

#[test]
fn two_address_cells() {
    let mut t = mt7621_board();
    t.set("#address-cells", 2u32.to_be_bytes().to_vec());
    t.set("#size-cells", 2u32.to_be_bytes().to_vec());
    t.at(ETH).set("reg", [0u32, 0x1e10_0000, 0, 0x10000].iter().flat_map(|c| c.to_be_bytes()).collect());
    t.at("/syscon@1e000000").set("reg", [0u32, 0x1e00_0000, 0, 0x100].iter().flat_map(|c| c.to_be_bytes()).collect());
    let bytes = dtb(&t);
    let p = probe(&bytes).unwrap();
    assert_eq!((p.reg.base, p.reg.size), (0x1e10_0000, 0x10000));
}

// ---- one test per error ----

#[test]
fn no_ethernet_node_lists_supported() {
    let mut t = mt7621_board();
    t.children.retain(|c| !c.name.starts_with("ethernet"));
    let (k, path, _, msg) = err_of(&t);
    assert_eq!(k, K::NoEthernetNode);
    assert_eq!(path, "/");
    for c in fe_regs::SOCS.iter().flat_map(|s| s.compatible) {
        assert!(msg.contains(&format!("\"{c}\"")), "{c} not listed: {msg}");
    }
}

#[test]
fn unknown_compatible_lists_supported() {
    let mut t = mt7621_board();
    t.at(ETH).set("compatible", b"mediatek,mt7988-eth\0".to_vec());
    let (k, path, prop, msg) = err_of(&t);
    assert_eq!(k, K::UnknownCompatible("mediatek,mt7988-eth"));
    assert_eq!((path.as_str(), prop.as_deref()), (ETH, Some("compatible")));
    let supported = msg.split_once("supported: ").map(|x| x.1).unwrap_or_else(|| panic!("no supported list: {msg}"));
    for c in fe_regs::SOCS.iter().flat_map(|s| s.compatible) {
        assert!(supported.contains(&format!("\"{c}\"")), "{c} not listed: {msg}");
    }
}

#[test]
fn disabled_ethernet_node() {
    let mut t = mt7621_board();
    t.at(ETH).set("status", b"disabled\0".to_vec());
    let (k, path, prop, _) = err_of(&t);
    assert_eq!((k, path.as_str(), prop.as_deref()), (K::Disabled, ETH, Some("status")));
}

#[test]
fn wrong_interrupt_count() {
    let mut t = mt7621_board();
    t.at(ETH).set("interrupts", [0u32, 3, 4, 0, 4, 4, 0, 5, 4].iter().flat_map(|c| c.to_be_bytes()).collect());
    let (k, path, prop, msg) = err_of(&t);
    assert_eq!(k, K::WrongIrqCount { expected: 1, found: 3 });
    assert_eq!((path.as_str(), prop.as_deref()), (ETH, Some("interrupts")));
    assert!(msg.contains("expected 1 interrupt"), "{msg}");
}

#[test]
fn interrupt_names_mismatch() {
    let mut t = mt7621_board();
    t.at(ETH).set("interrupt-names", b"fe0\0fe1\0".to_vec());
    let (k, _, prop, _) = err_of(&t);
    assert_eq!((k, prop.as_deref()), (K::IrqNamesMismatch { irqs: 1, names: 2 }, Some("interrupt-names")));
}

#[test]
fn missing_reg() {
    let mut t = mt7621_board();
    t.at(ETH).remove("reg");
    let (k, path, prop, _) = err_of(&t);
    assert_eq!((k, path.as_str(), prop.as_deref()), (K::MissingProperty, ETH, Some("reg")));
}

#[test]
fn reg_of_wrong_length() {
    let mut t = mt7621_board();
    t.at(ETH).set("reg", vec![0, 0, 0, 1, 0, 0]);
    let (k, _, prop, _) = err_of(&t);
    assert!(matches!(k, K::BadValue(_)) && prop.as_deref() == Some("reg"));
}

#[test]
fn unsupported_address_cells() {
    let mut t = mt7621_board();
    t.set("#address-cells", 3u32.to_be_bytes().to_vec());
    let (k, path, prop, _) = err_of(&t);
    assert_eq!((k, path.as_str(), prop.as_deref()), (K::BadCells { value: 3 }, ETH, Some("#address-cells")));
}

#[test]
fn missing_interrupt_parent() {
    let mut t = mt7621_board();
    t.at(ETH).remove("interrupt-parent");
    let (k, _, prop, _) = err_of(&t);
    assert_eq!((k, prop.as_deref()), (K::NoInterruptParent, Some("interrupt-parent")));
}

#[test]
fn missing_clock() {
    let mut t = mt7621_board();
    t.at(ETH).set("clock-names", b"fe\0".to_vec());
    let (k, _, prop, msg) = err_of(&t);
    assert_eq!((k, prop.as_deref()), (K::MissingClock("ethif"), Some("clock-names")));
    assert!(msg.contains("\"ethif\""), "{msg}");
}

#[test]
fn dangling_ethsys_phandle() {
    let mut t = mt7621_board();
    t.at(ETH).set("mediatek,ethsys", 99u32.to_be_bytes().to_vec());
    let (k, path, prop, _) = err_of(&t);
    assert_eq!((k, path.as_str(), prop.as_deref()), (K::DanglingPhandle(99), ETH, Some("mediatek,ethsys")));
}

#[test]
fn missing_ethsys() {
    let mut t = mt7621_board();
    t.at(ETH).remove("mediatek,ethsys");
    let (k, _, prop, _) = err_of(&t);
    assert_eq!((k, prop.as_deref()), (K::MissingProperty, Some("mediatek,ethsys")));
}

#[test]
fn mac_reg_out_of_range() {
    let mut t = mt7621_board();
    t.at("/ethernet@1e100000/mac@1").set("reg", 2u32.to_be_bytes().to_vec());
    let (k, path, prop, msg) = err_of(&t);
    assert_eq!(k, K::MacOutOfRange { reg: 2, macs: 2 });
    assert_eq!((path.as_str(), prop.as_deref()), ("/ethernet@1e100000/mac@1", Some("reg")));
    assert!(msg.contains("MACs 0..2"), "{msg}");
}

#[test]
fn duplicate_mac() {
    let mut t = mt7621_board();
    t.at("/ethernet@1e100000/mac@1").set("reg", 0u32.to_be_bytes().to_vec());
    let (k, path, _, _) = err_of(&t);
    assert_eq!((k, path.as_str()), (K::DuplicateMac(0), "/ethernet@1e100000/mac@1"));
}

#[test]
fn unsupported_phy_mode_disables_that_mac_with_a_warning_and_keeps_the_rest() {
    // Linux 6.12 binds such a board (phylink only warns): the other MAC and every switch port
    // stay, the MAC is kept disabled, and the board carries the warning.
    let good = dtb(&mt7621_board());
    let before = probe(&good).unwrap();
    let mut t = mt7621_board();
    t.at("/ethernet@1e100000/mac@1").set("phy-mode", b"trgmii\0".to_vec());
    let bytes = dtb(&t);
    let p = probe(&bytes).unwrap_or_else(|e| panic!("the probe refused the whole board: {e}"));
    let m1 = p.macs[1].unwrap();
    assert!(!m1.enabled && m1.unsupported_mode);
    assert_eq!(m1.phy_mode, "trgmii");
    assert!(p.macs[0].unwrap().enabled);
    assert_eq!(p.switch_ports().count(), before.switch_ports().count());
    let w: Vec<_> = p.warnings().collect();
    assert_eq!(w.len(), 1);
    assert!(matches!(w[0].kind, K::UnsupportedPhyMode { mode: "trgmii", .. }));
    assert_eq!((w[0].path.to_string().as_str(), w[0].property), ("/ethernet@1e100000/mac@1", Some("phy-mode")));
    assert!(w[0].to_string().contains("\"rgmii\""), "{}", w[0]);
    assert_eq!(before.warnings().count(), 0);
}

#[test]
fn unsupported_legacy_phy_connection_type_names_its_property() {
    let mut t = mt7621_board();
    let m = t.at("/ethernet@1e100000/mac@1");
    m.remove("phy-mode");
    m.set("phy-connection-type", b"trgmii\0".to_vec());
    let bytes = dtb(&t);
    let p = probe(&bytes).unwrap();
    assert_eq!(p.warnings().next().unwrap().property, Some("phy-connection-type"));
}

#[test]
fn missing_phy_mode() {
    let mut t = mt7621_board();
    t.at("/ethernet@1e100000/mac@0").remove("phy-mode");
    let (k, _, prop, _) = err_of(&t);
    assert_eq!((k, prop.as_deref()), (K::MissingProperty, Some("phy-mode")));
}

#[test]
fn impossible_fixed_link_speed() {
    let mut t = mt7621_board();
    t.at("/ethernet@1e100000/mac@0/fixed-link").set("speed", 1234u32.to_be_bytes().to_vec());
    let (k, path, prop, _) = err_of(&t);
    assert_eq!(
        (k, path.as_str(), prop.as_deref()),
        (K::BadSpeed(1234), "/ethernet@1e100000/mac@0/fixed-link", Some("speed"))
    );
}

#[test]
fn bad_managed_value() {
    let mut t = mt7621_board();
    t.at("/ethernet@1e100000/mac@1").set("managed", b"sometimes\0".to_vec());
    let (k, _, prop, _) = err_of(&t);
    assert_eq!((k, prop.as_deref()), (K::BadManaged("sometimes"), Some("managed")));
}

#[test]
fn dangling_phy_handle() {
    let mut t = mt7621_board();
    let m = t.at("/ethernet@1e100000/mac@1");
    m.children.clear();
    m.set("phy-handle", 42u32.to_be_bytes().to_vec());
    let (k, path, prop, _) = err_of(&t);
    assert_eq!(
        (k, path.as_str(), prop.as_deref()),
        (K::DanglingPhandle(42), "/ethernet@1e100000/mac@1", Some("phy-handle"))
    );
}

#[test]
fn bad_string() {
    let mut t = mt7621_board();
    t.at(ETH).set("clock-names", b"fe".to_vec());
    let (k, _, prop, _) = err_of(&t);
    assert_eq!((k, prop.as_deref()), (K::BadString, Some("clock-names")));
}

#[test]
fn disabled_fixed_link_child_is_not_used() {
    // mac@1 has a PHY and a disabled fixed-link child: Linux reads only available children, so
    // the link is the PHY's.
    let mut t = mt7621_board();
    t.at("/ethernet@1e100000/mdio-bus")
        .children
        .push(Node::new("ethernet-phy@5").cells("reg", &[5]).cells("phandle", &[9]));
    let m = t.at("/ethernet@1e100000/mac@1");
    m.set("phy-handle", 9u32.to_be_bytes().to_vec());
    m.at("fixed-link").set("status", b"disabled\0".to_vec());
    let bytes = dtb(&t);
    let p = probe(&bytes).unwrap();
    match p.macs[1].unwrap().link {
        Link::Phy { phy } => assert_eq!(phy.to_string(), "/ethernet@1e100000/mdio-bus/ethernet-phy@5"),
        other => panic!("a disabled fixed-link child was used: {other:?}"),
    }
    // Without a PHY the MAC's link is unknown, not the disabled fixed link.
    t.at("/ethernet@1e100000/mac@1").remove("phy-handle");
    let bytes = dtb(&t);
    assert_eq!(probe(&bytes).unwrap().macs[1].unwrap().link, Link::Unknown);
}

#[test]
fn a_disabled_mac_never_fails_the_probe() {
    // Linux skips unavailable MAC nodes before reading them.
    let mut t = mt7621_board();
    let m = t.at("/ethernet@1e100000/mac@1");
    m.set("status", b"disabled\0".to_vec());
    m.set("managed", b"sometimes\0".to_vec());
    m.set("phy-handle", 42u32.to_be_bytes().to_vec());
    let bytes = dtb(&t);
    let p = probe(&bytes).unwrap_or_else(|e| panic!("a disabled MAC failed the probe: {e}"));
    let m1 = p.macs[1].unwrap();
    assert!(!m1.enabled);
    assert_eq!(m1.link, Link::Unknown);
    assert_eq!(p.enabled_macs().count(), 1);
    // One past the SoC's MACs, or a second mac@0: left out, the board probes.
    for reg in [2u32, 0] {
        let mut t = mt7621_board();
        let m = t.at("/ethernet@1e100000/mac@1");
        m.set("status", b"disabled\0".to_vec());
        m.set("reg", reg.to_be_bytes().to_vec());
        // A CPU port to the left-out MAC: a MAC all the same, not an error.
        t.at(SWITCH_PORTS).children.push(Node::new("port@5").cells("reg", &[5]).cells("ethernet", &[4]));
        let bytes = dtb(&t);
        let p = probe(&bytes).unwrap_or_else(|e| panic!("reg {reg}: {e}"));
        assert_eq!(p.macs().count(), 1, "reg {reg}");
        assert!(p.macs[0].unwrap().enabled);
    }
    // A disabled mac@0 before the enabled one does not take its id.
    let mut t = mt7621_board();
    let eth = t.at(ETH);
    let mut ghost = eth.children.iter().find(|c| c.name == "mac@1").unwrap().clone();
    ghost.name = "mac@9".into();
    ghost.set("reg", 0u32.to_be_bytes().to_vec());
    ghost.set("status", b"disabled\0".to_vec());
    ghost.remove("phandle");
    eth.children.insert(0, ghost);
    let bytes = dtb(&t);
    let p = probe(&bytes).unwrap_or_else(|e| panic!("a disabled duplicate took the id: {e}"));
    assert!(p.macs[0].unwrap().enabled);
    assert_eq!(p.macs[0].unwrap().path.to_string(), "/ethernet@1e100000/mac@0");
}

#[test]
fn disabled_ports_node_has_no_ports() {
    let mut t = mt7621_board();
    t.at(SWITCH_PORTS).set("status", b"disabled\0".to_vec());
    let bytes = dtb(&t);
    assert_eq!(probe(&bytes).unwrap().switch_ports().count(), 0);
}

#[test]
fn register_window_smaller_than_the_map_is_refused() {
    let bytes = dtb(&mt7621_board());
    let p = probe(&bytes).unwrap();
    let need = min_window(p.soc, p.compatible);
    assert!(need > 0 && need <= fe_extent(p.soc));
    for size in [0, need - 4] {
        let mut t = mt7621_board();
        t.at(ETH).set("reg", [0x1e10_0000u32, size as u32].iter().flat_map(|c| c.to_be_bytes()).collect());
        let (k, path, prop, msg) = err_of(&t);
        assert_eq!((k, path.as_str(), prop.as_deref()), (K::RegTooSmall { size, need }, ETH, Some("reg")));
        assert!(msg.contains("smaller than"), "{msg}");
    }
    // `#size-cells = <0>` on the parent: the window has no size at all.
    let mut t = mt7621_board();
    t.set("#size-cells", 0u32.to_be_bytes().to_vec());
    t.at(ETH).set("reg", 0x1e10_0000u32.to_be_bytes().to_vec());
    t.at("/syscon@1e000000").set("reg", 0x1e00_0000u32.to_be_bytes().to_vec());
    t.at("/interrupt-controller@1fbc0000").set("reg", 0x1fbc_0000u32.to_be_bytes().to_vec());
    let (k, path, _, _) = err_of(&t);
    assert_eq!((k, path.as_str()), (K::RegTooSmall { size: 0, need }, ETH));
}

#[test]
fn cpu_port_pointing_at_a_non_mac_names_the_node() {
    let mut t = mt7621_board();
    // phandle 2 is the ETHSYS syscon, not a MAC.
    t.at(&format!("{SWITCH_PORTS}/port@6")).set("ethernet", 2u32.to_be_bytes().to_vec());
    let (k, path, prop, msg) = err_of(&t);
    match k {
        K::NotAMac { node } => assert_eq!(node.to_string(), "/syscon@1e000000"),
        other => panic!("expected NotAMac, got {other:?}"),
    }
    assert_eq!((path, prop.as_deref()), (format!("{SWITCH_PORTS}/port@6"), Some("ethernet")));
    assert!(msg.contains("points at /syscon@1e000000, which is not a MAC"), "{msg}");
}

#[test]
fn switch_port_number_is_checked_against_the_switch() {
    for reg in [0xffff_ffffu32, 7] {
        let mut t = mt7621_board();
        t.at(&format!("{SWITCH_PORTS}/port@4")).set("reg", reg.to_be_bytes().to_vec());
        let (k, path, prop, msg) = err_of(&t);
        assert_eq!(k, K::PortOutOfRange { port: u64::from(reg), ports: 7 });
        assert_eq!((path, prop.as_deref()), (format!("{SWITCH_PORTS}/port@4"), Some("reg")));
        assert!(msg.contains("ports 0..7"), "{msg}");
    }
}

#[test]
fn control_characters_in_messages_are_escaped() {
    let mut t = mt7621_board();
    t.at(ETH).set("compatible", b"mediatek,\x1b[2Jmt7988-eth\0".to_vec());
    let (_, _, _, msg) = err_of(&t);
    assert!(!msg.contains('\x1b') && msg.contains("\\u{1b}[2J"), "{msg}");
}

#[test]
fn probe_into_fills_the_callers_slot() {
    let bytes = dtb(&mt7621_board());
    let mut slot = MaybeUninit::uninit();
    let b = probe_into(&bytes, &mut slot).unwrap();
    let p = probe(&bytes).unwrap();
    assert_eq!(b.macs, p.macs);
    assert_eq!(b.ports, p.ports);
    assert!(probe_into(&bytes[..40], &mut slot).is_err());
}

// ---- boards built without a blob (a kernel has its device tree through the OF API) ----

fn node(soc: &fe_regs::SocInfo, size: u64) -> EthNode<'static> {
    EthNode {
        compatible: soc.compatible[0],
        path: NodePath::new("/soc/ethernet"),
        reg: Region { base: 0x1000_0000, size },
        ethsys_path: NodePath::new("/soc/syscon"),
        ethsys_reg: Region { base: 0x1100_0000, size: 0x1000 },
    }
}

fn irqs(soc: &fe_regs::SocInfo) -> Vec<IrqSpec> {
    (0..soc.caps.irq.lines).map(|i| IrqSpec { cells: [0, 100 + u32::from(i), 4, 0], ncells: 3 }).collect()
}

fn mac(id: u32, mode: &'static str) -> NewMac<'static> {
    NewMac {
        id,
        path: NodePath::new(["/soc/ethernet/mac@0", "/soc/ethernet/mac@1", "/soc/ethernet/mac@2"][id as usize % 3]),
        enabled: true,
        phy_mode: Some(mode),
        link: Link::Fixed { speed: 1000, duplex: Duplex::Full, pause: true },
        sfp: None,
        in_band: false,
    }
}

fn port(n: u64, speed: Option<u32>) -> NewPort<'static> {
    NewPort {
        label: "lan",
        port: n,
        switch_ports: 7,
        path: NodePath::new("/soc/switch/ports/port"),
        conduit_mac: 0,
        speed,
    }
}

#[test]
fn every_soc_builds_a_board_by_hand() {
    for soc in fe_regs::SOCS {
        let irqs = irqs(soc);
        let mut b = Board::new(node(soc, fe_extent(soc)), &irqs).unwrap_or_else(|e| panic!("{}: {e}", soc.name));
        assert!(std::ptr::eq(b.soc, soc));
        assert_eq!(b.irqs(), &irqs[..]);
        for (id, caps) in soc.caps.macs.iter().enumerate() {
            b.add_mac(mac(id as u32, caps.phy_modes[0])).unwrap_or_else(|e| panic!("{}: {e}", soc.name));
        }
        assert_eq!(b.enabled_macs().count(), soc.caps.macs.len());
        assert!(b.macs().all(|m| m.queue == m.id));
        b.add_switch_port(port(0, Some(100))).unwrap();
        b.add_switch_port(port(1, None)).unwrap();
        let ports: Vec<_> = b.switch_ports().copied().collect();
        assert_eq!(ports[0].queue, 3, "{}: port N uses queue N+3", soc.name);
        assert_eq!(ports[0].shaping, Shaping::Shaped { speed: 100 }, "{}", soc.name);
        assert_eq!(ports[1].shaping, Shaping::AtLinkUp, "{}", soc.name);
        assert_eq!(b.warnings().count(), 0);

        // Into a slot the caller owns.
        let mut slot = MaybeUninit::uninit();
        let b2 = Board::init(&mut slot, node(soc, fe_extent(soc)), &irqs).unwrap();
        b2.add_mac(mac(0, soc.caps.macs[0].phy_modes[0])).unwrap();
        assert_eq!(b2.macs().count(), 1);
    }
}

#[test]
fn a_board_built_by_hand_is_checked_like_a_probed_one() {
    for soc in fe_regs::SOCS {
        let irqs = irqs(soc);
        let need = fe_extent(soc);
        let small = Board::new(node(soc, need.min(min_window(soc, soc.compatible[0])) - 4), &irqs).unwrap_err();
        assert!(matches!(small.kind, K::RegTooSmall { .. } | K::SramRings(_)), "{}: {small}", soc.name);
        let few = Board::new(node(soc, need), &irqs[1..]).unwrap_err();
        assert!(matches!(few.kind, K::WrongIrqCount { .. }), "{}: {few}", soc.name);
        let mut unknown = node(soc, need);
        unknown.compatible = "mediatek,no-such-eth";
        assert!(matches!(Board::new(unknown, &irqs).unwrap_err().kind, K::UnknownCompatible(_)));

        let mut b = Board::new(node(soc, need), &irqs).unwrap();
        let nmacs = soc.caps.macs.len() as u32;
        let e = b.add_mac(mac(nmacs, "rgmii")).unwrap_err();
        assert_eq!(e.kind, K::MacOutOfRange { reg: nmacs, macs: nmacs as usize });
        // Conduit 0 is not there yet.
        assert_eq!(b.add_switch_port(port(0, None)).unwrap_err().kind, K::ConduitNotEnabled(0));
        b.add_mac(mac(0, soc.caps.macs[0].phy_modes[0])).unwrap();
        assert_eq!(b.add_mac(mac(0, soc.caps.macs[0].phy_modes[0])).unwrap_err().kind, K::DuplicateMac(0));
        let mut no_mode = mac(1, "x");
        no_mode.phy_mode = None;
        assert_eq!(b.add_mac(no_mode).unwrap_err().kind, K::MissingProperty);
        let mut slow = mac(1, soc.caps.macs[1].phy_modes[0]);
        slow.link = Link::Fixed { speed: 1234, duplex: Duplex::Full, pause: false };
        assert_eq!(b.add_mac(slow).unwrap_err().kind, K::BadSpeed(1234));
        // A phy mode the MAC does not list: kept disabled, with a warning.
        b.add_mac(mac(1, "no-such-mode")).unwrap();
        assert!(!b.macs[1].unwrap().enabled);
        assert_eq!(b.warnings().count(), 1);
        assert_eq!(b.add_switch_port(port(7, None)).unwrap_err().kind, K::PortOutOfRange { port: 7, ports: 7 });
        assert_eq!(b.add_switch_port(port(0, Some(123))).unwrap_err().kind, K::BadSpeed(123));
        for n in 0..fe_driver::dt::board::MAX_PORTS as u64 {
            let mut p = port(n % 7, None);
            p.switch_ports = 7;
            b.add_switch_port(p).unwrap();
        }
        assert_eq!(b.add_switch_port(port(0, None)).unwrap_err().kind, K::TooManyPorts);
    }
}
