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

/// Compiles `dts` to a DTB in memory: `cpp -nostdinc -undef -x assembler-with-cpp` with the
/// `extra_includes`, then the file's folder, `dts/` and `dts/include` as include paths, then
/// `dtc -I dts -O dtb`. Errors name the file and carry the tools' messages.
pub fn compile(dts: &Path, extra_includes: &[PathBuf]) -> Result<Vec<u8>, String> {
    ensure_tools()?;
    let dir = dts.parent().unwrap_or(Path::new("."));
    let mut cpp = Command::new("cpp");
    cpp.args(["-nostdinc", "-undef", "-D__DTS__", "-x", "assembler-with-cpp"]);
    // Extra include folders first, so a kernel tree's headers win over the minimal ones here.
    for inc in extra_includes.iter().chain([dir.to_path_buf(), dts_dir(), dts_dir().join("include")].iter()) {
        cpp.arg("-I").arg(inc);
    }
    cpp.arg(dts);
    let pre = cpp.output().map_err(|e| format!("cannot run cpp for {}: {e} (install gcc/cpp)", dts.display()))?;
    if !pre.status.success() {
        return Err(format!("cpp failed on {}:\n{}", dts.display(), String::from_utf8_lossy(&pre.stderr).trim_end()));
    }
    let mut dtc = Command::new("dtc")
        .args(["-q", "-I", "dts", "-O", "dtb", "-o", "-", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run dtc for {}: {e} (install device-tree-compiler)", dts.display()))?;
    let mut stdin = dtc.stdin.take().ok_or("dtc has no stdin")?;
    let input = pre.stdout;
    let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
    let out = dtc.wait_with_output().map_err(|e| format!("dtc on {}: {e}", dts.display()))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(format!("dtc failed on {}:\n{}", dts.display(), String::from_utf8_lossy(&out.stderr).trim_end()));
    }
    Ok(out.stdout)
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
