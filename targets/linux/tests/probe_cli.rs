//! `fe probe`: the JSON format and errors that name the file.

#[path = "../../../driver/tests/support_boards/mod.rs"]
mod support_boards;

/// Every bundled board: the JSON keys, and values that follow from the board (as the probe
/// reads it) and the SoC's capabilities. At least one board has a port shaped at probe time.
#[test]
fn fe_probe_json_format() {
    let exe = env!("CARGO_BIN_EXE_fe");
    let mut shaped_ports = 0;
    for b in support_boards::all() {
        let name = &b.file;
        let out = std::process::Command::new(exe).args(["probe", "--json"]).arg(&b.path).output().unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        for key in ["soc", "compatible", "reg", "irqs", "ethsys_reg", "macs", "switch_ports", "capabilities"] {
            assert!(v.get(key).is_some(), "{name}: missing key {key}");
        }
        let p = fe_driver::dt::probe(&b.dtb).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(v["soc"], b.soc.name, "{name}");
        assert_eq!(v["compatible"], p.compatible, "{name}");
        assert_eq!(v["capabilities"]["tx_queues"], b.soc.caps.tx_queues, "{name}");
        assert_eq!(v["irqs"].as_array().unwrap().len(), p.irqs().len(), "{name}");
        for m in p.macs() {
            let j = v["macs"].as_array().unwrap().iter().find(|j| j["id"] == m.id).expect("MAC in the JSON");
            match m.link {
                fe_driver::dt::Link::Fixed { speed, duplex, .. } => {
                    assert_eq!(j["speed"], speed, "{name} mac {}", m.id);
                    let d = if duplex == fe_driver::dt::Duplex::Full { "full" } else { "half" };
                    assert_eq!(j["duplex"], d, "{name} mac {}", m.id);
                }
                _ => assert!(j["speed"].is_null(), "{name} mac {}: no fixed speed", m.id),
            }
        }
        for s in p.switch_ports() {
            let j = v["switch_ports"].as_array().unwrap().iter().find(|j| j["port"] == s.port).expect("port in JSON");
            assert_eq!(j["queue"], s.queue, "{name} port {}", s.port);
            match s.shaping {
                fe_driver::dt::Shaping::Shaped { speed } => {
                    shaped_ports += 1;
                    assert_eq!(j["shaped"], true, "{name} port {}", s.port);
                    assert_eq!(
                        j["shaper_value"],
                        b.soc.caps.shaper.value_for(speed).unwrap(),
                        "{name} port {}",
                        s.port
                    );
                }
                fe_driver::dt::Shaping::AtLinkUp => {
                    assert!(j["shaped"].is_null(), "{name} port {}: unknown speed, decided at link-up", s.port)
                }
                fe_driver::dt::Shaping::Unshaped => assert_eq!(j["shaped"], false, "{name} port {}", s.port),
            }
        }
    }
    assert!(shaped_ports > 0, "no bundled board has a switch port shaped at probe time (max-speed below its conduit)");
}

#[test]
fn fe_probe_reports_errors_with_the_file() {
    let exe = env!("CARGO_BIN_EXE_fe");
    let dir = std::env::temp_dir().join(format!("fe-probe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.dtb");
    std::fs::write(&bad, b"not a device tree at all, just text that is long enough").unwrap();
    let out = std::process::Command::new(exe).args(["probe"]).arg(&bad).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.dtb") && err.contains("magic"), "{err}");
}
