//! `fe probe` and `fe run --dtb` stop reading an input that is too large, with an error naming it.

use std::process::Command;

/// Runs `fe ARGS` under a 1 GiB address-space limit, so a reader that does not stop fails
/// quickly here instead of filling the machine's memory; returns (exit code, stderr).
fn fe_limited(args: &str) -> (Option<i32>, String) {
    let out = Command::new("sh")
        .args(["-c", &format!("ulimit -v 1048576 && exec \"$0\" {args}"), env!("CARGO_BIN_EXE_fe")])
        .output()
        .expect("run fe under sh");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn probe_stops_reading_an_endless_input() {
    let (code, err) = fe_limited("probe /dev/zero");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("/dev/zero holds more than 4194304 bytes"), "{err}");
}

#[test]
fn run_stops_reading_an_endless_input() {
    let (code, err) = fe_limited("run --dtb /dev/zero");
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("/dev/zero holds more than 4194304 bytes"), "{err}");
}

#[test]
fn probe_refuses_a_file_over_the_limit() {
    let dir = std::env::temp_dir().join(format!("fe-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.dtb");
    std::fs::File::create(&big).unwrap().set_len(fe_linux::dtc::MAX_DT_BYTES as u64 + 1).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fe")).arg("probe").arg(&big).output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("big.dtb holds more than"), "{err}");
}

#[test]
fn a_source_whose_include_is_huge_is_refused_when_preprocessed() {
    let dir = std::env::temp_dir().join(format!("fe-big-include-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 5 MiB of plain text: cpp copies it through, past the 4 MiB limit.
    let line = "abcdefghijklmnopqrstuvwxyz012345678901234567890123456789012345678\n";
    std::fs::write(dir.join("huge.h"), line.repeat((5 << 20) / line.len())).unwrap();
    std::fs::write(dir.join("board.dts"), "/dts-v1/;\n#include \"huge.h\"\n/ { };\n").unwrap();
    let (code, err) = fe_limited(&format!("probe {}", dir.join("board.dts").display()));
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("board.dts expands to more than 4194304 bytes"), "{err}");
}

#[test]
fn a_source_that_includes_an_endless_file_is_refused() {
    let dir = std::env::temp_dir().join(format!("fe-zero-include-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("board.dts"), "/dts-v1/;\n#include \"/dev/zero\"\n/ { };\n").unwrap();
    let (code, err) = fe_limited(&format!("probe {}", dir.join("board.dts").display()));
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("board.dts"), "the error names the source: {err}");
}
