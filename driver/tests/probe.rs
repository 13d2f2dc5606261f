//! The probe on trees built in code: the good case in detail, then one test per error, each
//! checking the error kind, the node path and the property it names.

mod support;

use fe_driver::dt::{Duplex, Link, ProbeErrorKind as K, Shaping, probe};
use support::{ETH, Node, dtb, mt7621_board};

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
    assert!(msg.contains("\"mediatek,mt7621-eth\"") && msg.contains("\"mediatek,mt7986-eth\""), "{msg}");
}

#[test]
fn unknown_compatible_lists_supported() {
    let mut t = mt7621_board();
    t.at(ETH).set("compatible", b"mediatek,mt7988-eth\0".to_vec());
    let (k, path, prop, msg) = err_of(&t);
    assert_eq!(k, K::UnknownCompatible("mediatek,mt7988-eth"));
    assert_eq!((path.as_str(), prop.as_deref()), (ETH, Some("compatible")));
    assert!(msg.contains("supported: \"mediatek,mt7621-eth\""), "{msg}");
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
fn unsupported_phy_mode() {
    let mut t = mt7621_board();
    t.at("/ethernet@1e100000/mac@1").set("phy-mode", b"trgmii\0".to_vec());
    let (k, path, prop, msg) = err_of(&t);
    assert!(matches!(k, K::UnsupportedPhyMode { mode: "trgmii", .. }));
    assert_eq!((path.as_str(), prop.as_deref()), ("/ethernet@1e100000/mac@1", Some("phy-mode")));
    assert!(msg.contains("\"rgmii\""), "{msg}");
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
