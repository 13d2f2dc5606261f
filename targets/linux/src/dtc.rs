//! Compiling `.dts` files the way the kernel does: `cpp` for includes and macros, then `dtc`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The project's `dts/` folder (board sources and the `dt-bindings` headers they include).
pub fn dts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../dts")
}

fn have(tool: &str) -> bool {
    Command::new(tool).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

/// Makes sure `cpp` and `dtc` exist: when one is missing and apt-get is there (as on the
/// project's Debian machines, run as root), installs Debian's packages once, saying so.
/// Returns an error naming what to install otherwise.
pub fn ensure_tools() -> Result<(), String> {
    let missing: Vec<&str> = [("cpp", "cpp"), ("dtc", "device-tree-compiler")]
        .into_iter()
        .filter(|(t, _)| !have(t))
        .map(|(_, p)| p)
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("note: installing {} (needed to compile the board device trees)", missing.join(" "));
    let ok = Command::new("apt-get")
        .args(["install", "-y", "-qq"])
        .args(&missing)
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status()
        .is_ok_and(|s| s.success())
        || (Command::new("apt-get").args(["update", "-qq"]).status().is_ok_and(|s| s.success())
            && Command::new("apt-get")
                .args(["install", "-y", "-qq"])
                .args(&missing)
                .env("DEBIAN_FRONTEND", "noninteractive")
                .status()
                .is_ok_and(|s| s.success()));
    if ok && have("cpp") && have("dtc") {
        Ok(())
    } else {
        Err(format!("cpp and dtc are needed to compile device trees: install {} (Debian)", missing.join(" ")))
    }
}

/// Address space `cpp` may use (KiB): an `#include` of an endless or huge file makes it fail
/// with "memory exhausted" instead of filling the machine.
const CPP_MEMORY_KIB: u64 = 1 << 20;

/// Compiles `dts` to a DTB in memory: `cpp -nostdinc -undef -x assembler-with-cpp` with the
/// `extra_includes`, then the file's folder, `dts/` and `dts/include` as include paths, then
/// `dtc -I dts -O dtb`. Errors name the file and carry the tools' messages. Nothing grows
/// without bound: `cpp` runs under an address-space limit, and the preprocessed source and the
/// DTB are read up to [`MAX_DT_BYTES`].
pub fn compile(dts: &Path, extra_includes: &[PathBuf]) -> Result<Vec<u8>, String> {
    ensure_tools()?;
    let dir = dts.parent().unwrap_or(Path::new("."));
    let mut cpp = Command::new("sh");
    cpp.args(["-c", &format!("ulimit -v {CPP_MEMORY_KIB} 2>/dev/null; exec \"$0\" \"$@\""), "cpp"]);
    cpp.args(["-nostdinc", "-undef", "-D__DTS__", "-x", "assembler-with-cpp"]);
    // Extra include folders first, so a kernel tree's headers win over the minimal ones here.
    for inc in extra_includes.iter().chain([dir.to_path_buf(), dts_dir(), dts_dir().join("include")].iter()) {
        cpp.arg("-I").arg(inc);
    }
    cpp.arg(dts);
    let pre = run_bounded(&mut cpp, None).map_err(|e| match e {
        Bounded::Spawn(e) => format!("cannot run cpp for {}: {e} (install gcc/cpp)", dts.display()),
        Bounded::TooLong => format!(
            "{} expands to more than {MAX_DT_BYTES} bytes (4 MiB) after #include and macros, the limit for a \
             device tree; preprocessing stopped there",
            dts.display()
        ),
        Bounded::Failed(err) => format!("cpp failed on {}:\n{}", dts.display(), err.trim_end()),
    })?;
    let mut dtc = Command::new("dtc");
    dtc.args(["-q", "-I", "dts", "-O", "dtb", "-o", "-", "-"]);
    run_bounded(&mut dtc, Some(pre)).map_err(|e| match e {
        Bounded::Spawn(e) => format!("cannot run dtc for {}: {e} (install device-tree-compiler)", dts.display()),
        Bounded::TooLong => format!("dtc made a DTB of more than {MAX_DT_BYTES} bytes from {}", dts.display()),
        Bounded::Failed(err) => format!("dtc failed on {}:\n{}", dts.display(), err.trim_end()),
    })
}

/// Why [`run_bounded`] gave no output.
enum Bounded {
    /// The tool could not be started.
    Spawn(std::io::Error),
    /// It wrote more than [`MAX_DT_BYTES`] (it was killed).
    TooLong,
    /// It failed; its standard error (at most 64 KiB).
    Failed(String),
}

/// Runs `cmd` with `input` on its standard input and returns its standard output, reading at
/// most [`MAX_DT_BYTES`] of it (the tool is killed past that) and 64 KiB of its errors.
fn run_bounded(cmd: &mut Command, input: Option<Vec<u8>>) -> Result<Vec<u8>, Bounded> {
    use std::io::Read;
    let mut child = cmd
        .stdin(if input.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(Bounded::Spawn)?;
    let writer = child.stdin.take().zip(input).map(|(mut stdin, input)| {
        // A tool that stops reading (it failed, or was killed) ends the write with an error.
        std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input))
    });
    let stderr = child.stderr.take().map(|e| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = e.take(64 << 10).read_to_string(&mut s);
            s
        })
    });
    let mut out = Vec::new();
    let read = child.stdout.take().map(|o| o.take(MAX_DT_BYTES as u64 + 1).read_to_end(&mut out));
    let too_long = out.len() > MAX_DT_BYTES;
    if too_long {
        let _ = child.kill();
    }
    let status = child.wait();
    let _ = writer.map(std::thread::JoinHandle::join);
    let err = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    if too_long {
        return Err(Bounded::TooLong);
    }
    match (read, status) {
        (Some(Ok(_)), Ok(s)) if s.success() => Ok(out),
        (_, Ok(s)) if !s.success() => Err(Bounded::Failed(err)),
        (Some(Err(e)), _) | (_, Err(e)) => Err(Bounded::Failed(format!("{e}\n{err}"))),
        _ => Err(Bounded::Failed(err)),
    }
}

/// Largest device tree (source or blob) accepted: board DTBs are tens of KiB, the largest
/// upstream ones a few hundred.
pub const MAX_DT_BYTES: usize = 4 << 20;

/// Reads a DTB, or compiles a DTS (chosen by the `.dts`/`.dtsi` extension or the content).
///
/// At most [`MAX_DT_BYTES`] + 1 bytes are read, so an endless input (`/dev/zero`) or a huge file
/// is refused without filling memory.
pub fn load(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(MAX_DT_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if bytes.len() > MAX_DT_BYTES {
        return Err(format!(
            "{} holds more than {MAX_DT_BYTES} bytes (4 MiB), the limit for a device tree; reading stopped there",
            path.display()
        ));
    }
    let is_source = path.extension().is_some_and(|e| e == "dts" || e == "dtsi")
        || bytes.starts_with(b"/dts-v1/")
        || bytes.starts_with(b"#include");
    if is_source { compile(path, &[]) } else { Ok(bytes) }
}
