//! `fe` and standard output: a reader that stops early ends the run quietly; a write that fails
//! otherwise is an error, not a silent exit 0.

use std::process::{Command, Stdio};

/// Runs `fe ARGS` with standard output going to `stdout`; returns (exit code, stderr).
fn fe_to(args: &[&str], stdout: Stdio) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fe")).args(args).stdout(stdout).output().expect("run fe");
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A pipe whose reading end is already closed, as after `| head -1` has read its line.
fn closed_pipe() -> Stdio {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    writer.into()
}

#[path = "../../../driver/tests/support_boards/mod.rs"]
mod support_boards;

/// Any bundled board (the first found by compatible).
fn board() -> String {
    support_boards::all().swap_remove(0).path.to_string_lossy().into_owned()
}

#[test]
fn main_job_into_a_closed_pipe_exits_quietly() {
    // The main job's first line is the table header: the write fails before any simulation.
    let (code, err) = fe_to(&[], closed_pipe());
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("panicked") && !err.contains("error"), "{err}");
}

#[test]
fn probe_into_a_closed_pipe_exits_quietly() {
    for json in [false, true] {
        let mut args = vec!["probe"];
        if json {
            args.push("--json");
        }
        let b = board();
        args.push(&b);
        let (code, err) = fe_to(&args, closed_pipe());
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked") && !err.contains("error"), "{args:?}: {err}");
    }
}

#[test]
fn probe_to_a_full_disk_fails() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full");
    let (code, err) = fe_to(&["probe", &board()], full.into());
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("cannot write to standard output") && err.contains("No space left"), "{err}");
}
