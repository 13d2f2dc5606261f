//! `fe probe`: the JSON format and errors that name the file.

#[test]
fn fe_probe_json_format() {
    let exe = env!("CARGO_BIN_EXE_fe");
    let board = fe_linux::dtc::dts_dir().join("mt7621-lan-100m.dts");
    let out = std::process::Command::new(exe).args(["probe", "--json"]).arg(&board).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["soc", "compatible", "reg", "irqs", "ethsys_reg", "macs", "switch_ports", "capabilities"] {
        assert!(v.get(key).is_some(), "missing key {key}");
    }
    assert_eq!(v["soc"], "mt7621");
    assert_eq!(v["macs"][0]["speed"], 1000);
    assert_eq!(v["macs"][0]["duplex"], "full");
    let lan4 = v["switch_ports"].as_array().unwrap().iter().find(|s| s["label"] == "lan4").unwrap();
    assert_eq!(
        (lan4["queue"].as_u64(), lan4["shaped"].as_bool(), lan4["shaper_value"].as_u64()),
        (Some(7), Some(true), Some(0x7814_1e73))
    );
    assert!(v["switch_ports"][0]["shaped"].is_null(), "unknown speed: decided at link-up");
    assert_eq!(v["capabilities"]["tx_queues"], 16);
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
