//! `fe netdev`, `fe ctl` and `fe stats` where they cannot work: no TUN device, no root, no
//! running netdev. Each fails with a message naming what failed and exit code 1, never a panic,
//! and creates nothing. (The working path needs root and is covered by `scripts/netdev-test`.)

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

fn output(mut c: Command) -> (i32, String, String) {
    let o = c.output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into(),
        String::from_utf8_lossy(&o.stderr).into(),
    )
}

fn fe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_fe"))
}

#[path = "../../../driver/tests/support_boards/mod.rs"]
mod support_boards;

/// Any bundled board (the first found by compatible).
fn board() -> String {
    support_boards::all().swap_remove(0).path.to_string_lossy().into_owned()
}

#[test]
fn netdev_without_a_tun_device_names_the_device_and_creates_nothing() {
    let prefix = format!("fe-cli-{}", std::process::id());
    let mut c = fe();
    c.args(["netdev", "--dtb", &board(), "--netns-prefix", &prefix]).env("FE_TUN_DEVICE", "/nonexistent/net/tun");
    let (code, out, err) = output(c);
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("open /nonexistent/net/tun: No such file or directory"), "{err}");
    assert!(err.contains("the tun driver and its device are needed"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!std::path::Path::new(&format!("/run/netns/{prefix}-dut")).exists());
    assert!(!std::path::Path::new(&format!("/run/fe/{prefix}.sock")).exists());
}

#[test]
fn netdev_without_root_says_it_needs_root() {
    let prefix = format!("fe-cli-nr-{}", std::process::id());
    let args = ["netdev", "--dtb", "/nonexistent.dts", "--netns-prefix", &prefix];
    let mut c = if fe_linux::netdev::sys::euid() == 0 {
        // Run a copy of the binary as nobody (the copy sits where nobody can execute it).
        let Ok(setpriv) = which("setpriv") else {
            eprintln!("skipped: running as root without setpriv to drop privileges");
            return;
        };
        let dir = std::env::temp_dir().join(format!("fe-cli-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
        let exe = dir.join("fe");
        // The copy is written by `cp` in a process of its own: a write descriptor opened here
        // would be inherited by children that sibling tests fork meanwhile, and executing the
        // copy while any of them still holds it fails with ETXTBSY ("Text file busy").
        let copied = Command::new("cp").arg(env!("CARGO_BIN_EXE_fe")).arg(&exe).status().unwrap();
        assert!(copied.success(), "cp {} {}: {copied}", env!("CARGO_BIN_EXE_fe"), exe.display());
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut c = Command::new(setpriv);
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"]).arg(&exe);
        c
    } else {
        fe()
    };
    // A device anyone can open, so the missing privilege is what stops it.
    c.args(args).env("FE_TUN_DEVICE", "/dev/null");
    let (code, out, err) = output(c);
    let _ = std::fs::remove_dir_all(std::env::temp_dir().join(format!("fe-cli-{}", std::process::id())));
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("fe netdev must run as root"), "{err}");
    assert!(err.contains("effective uid is"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    let path = std::env::var_os("PATH").ok_or(())?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file()).ok_or(())
}

#[test]
fn ctl_and_stats_without_a_running_netdev_say_so() {
    let sock = std::env::temp_dir().join(format!("fe-cli-missing-{}.sock", std::process::id()));
    let s = sock.to_string_lossy().into_owned();
    for args in [
        vec!["stats", "--socket", &s],
        vec!["stats", "--json", "--socket", &s],
        vec!["ctl", "--socket", &s, "rx-csum", "off"],
        vec!["ctl", "--socket", &s, "lro", "soft"],
    ] {
        let mut c = fe();
        c.args(&args);
        let (code, _, err) = output(c);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(err.contains(&format!("connect {s}: No such file or directory (is fe netdev running?)")), "{err}");
    }
}

#[test]
fn ctl_rejects_bad_values_before_connecting() {
    for args in [vec!["ctl", "rx-csum", "maybe"], vec!["ctl", "lro", "fast"]] {
        let mut c = fe();
        c.args(&args);
        let (code, _, err) = output(c);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("invalid value"), "{err}");
    }
    let mut c = fe();
    c.args(["ctl", "lro-dst", "0", "10.1"]);
    let (code, _, err) = output(c);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("bad IPv4 address"), "{err}");
}

#[test]
fn ctl_and_stats_refuse_a_prefix_that_leaves_the_socket_directory() {
    let long = "x".repeat(33);
    for prefix in ["../../x", "a/b", "..", long.as_str()] {
        for args in [vec!["stats", "--netns-prefix", prefix], vec!["ctl", "--netns-prefix", prefix, "lro", "soft"]] {
            let mut c = fe();
            c.args(&args);
            let (code, _, err) = output(c);
            assert_eq!(code, 1, "{args:?}: {err}");
            assert!(err.contains("bad --netns-prefix") && err.contains("1 to 32 characters"), "{args:?}: {err}");
            assert!(!err.contains("connect"), "refused before connecting: {err}");
        }
    }
}
