//! Compiles every board device tree in `dts/` (cpp + dtc, as `dts/compile.sh` does) into OUT_DIR
//! and writes `boards.rs`, the table the image embeds with `include_bytes!`; on bare-metal targets
//! also passes this crate's linker script for the architecture.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn main() {
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let dts_dir = manifest.join("../../dts");
    println!("cargo:rerun-if-changed={}", dts_dir.display());
    println!("cargo:rerun-if-changed=build.rs");

    for tool in ["cpp", "dtc"] {
        let ok = Command::new(tool).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status();
        if !ok.is_ok_and(|s| s.success()) {
            panic!(
                "fe-firmware embeds the board device trees and needs `{tool}` to compile them: run \
                 scripts/test (it installs what is missing) or `apt-get install device-tree-compiler cpp`"
            );
        }
    }

    let mut boards: Vec<PathBuf> = fs::read_dir(&dts_dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dts_dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "dts"))
        .collect();
    boards.sort();
    let mut table = String::from("/// Every board device tree of `dts/`, compiled at build time: (board name, DTB).\n");
    table.push_str("pub static BOARDS: &[(&str, &[u8])] = &[\n");
    for dts in &boards {
        let name = dts.file_stem().and_then(|s| s.to_str()).expect("board file names are UTF-8");
        let dtb = out.join(format!("{name}.dtb"));
        compile(&dts_dir, dts, &dtb);
        writeln!(table, "    ({name:?}, include_bytes!({:?})),", dtb.display().to_string()).unwrap();
    }
    table.push_str("];\n");
    fs::write(out.join("boards.rs"), table).expect("write boards.rs");

    let target = env::var("TARGET").unwrap_or_default();
    let script = match target.as_str() {
        "aarch64-unknown-none" | "aarch64-unknown-none-softfloat" => Some("link-aarch64.x"),
        t if t.starts_with("armv7a-none-eabi") => Some("link-armv7a.x"),
        t if t.starts_with("mipsel-unknown-none") => Some("link-mipsel.x"),
        _ => None,
    };
    if let Some(s) = script {
        println!("cargo:rerun-if-changed={s}");
        println!("cargo:rustc-link-arg-bins=-T{}", manifest.join(s).display());
    }
}

/// `cpp -nostdinc -undef -x assembler-with-cpp -D__DTS__ -I dts/include -I dts IN | dtc -O dtb`.
fn compile(dts_dir: &Path, dts: &Path, dtb: &Path) {
    let pre = Command::new("cpp")
        .args(["-nostdinc", "-undef", "-x", "assembler-with-cpp", "-D__DTS__", "-I"])
        .arg(dts_dir.join("include"))
        .arg("-I")
        .arg(dts_dir)
        .arg(dts)
        .output()
        .unwrap_or_else(|e| panic!("cpp {}: {e}", dts.display()));
    if !pre.status.success() {
        panic!("cpp failed on {}:\n{}", dts.display(), String::from_utf8_lossy(&pre.stderr));
    }
    let mut dtc = Command::new("dtc")
        .args(["-q", "-I", "dts", "-O", "dtb", "-o"])
        .arg(dtb)
        .arg("-")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("dtc {}: {e}", dts.display()));
    let mut stdin = dtc.stdin.take().expect("piped stdin");
    std::io::Write::write_all(&mut stdin, &pre.stdout).unwrap_or_else(|e| panic!("dtc {}: {e}", dts.display()));
    drop(stdin);
    let res = dtc.wait_with_output().unwrap_or_else(|e| panic!("dtc {}: {e}", dts.display()));
    if !res.status.success() {
        panic!("dtc failed on {}:\n{}", dts.display(), String::from_utf8_lossy(&res.stderr));
    }
}
