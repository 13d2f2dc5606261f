//! The bundled boards, found by compatible: every `dts/*.dts` with a node whose `compatible`
//! names a SoC in `fe_regs::SOCS`. One definition for every test crate (driver, targets/linux,
//! tests), included with `#[path]`, so a new board or SoC needs no test edit.

#![allow(dead_code)]

use std::path::PathBuf;

/// One bundled board.
pub struct Bundled {
    /// File name in `dts/` (`mt7621-router.dts`).
    pub file: String,
    /// Full path of the `.dts`.
    pub path: PathBuf,
    /// The compiled device tree.
    pub dtb: Vec<u8>,
    /// The SoC its Ethernet node is compatible with.
    pub soc: &'static fe_regs::SocInfo,
}

/// The SoC whose compatible strings a node of `dtb` names (the first such node, depth first).
pub fn soc_of(dtb: &[u8]) -> Option<&'static fe_regs::SocInfo> {
    let tree = fe_driver::dt::walk::Tree::parse(dtb).ok()?;
    let mut found = None;
    tree.walk(&mut |v| {
        let strings = v.node.property("compatible").and_then(|p| fe_driver::dt::props::strings(p.value));
        for c in strings.into_iter().flatten() {
            if let Some(soc) = fe_regs::by_compatible(c) {
                found = Some(soc);
                return fe_driver::dt::walk::Flow::Stop;
            }
        }
        fe_driver::dt::walk::Flow::Continue
    });
    found
}

/// Every bundled board, sorted by file name. A `.dts` that does not compile fails the test
/// (it is a broken bundled file); one without a known compatible is not a board and is skipped
/// with a note. Panics when `dts/` holds no board at all.
pub fn all() -> Vec<Bundled> {
    let dir = fe_linux::dtc::dts_dir();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dts/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "dts"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let file = path.file_name().expect("file name").to_string_lossy().into_owned();
        let dtb = fe_linux::dtc::compile(&path, &[]).unwrap_or_else(|e| panic!("{file}: {e}"));
        match soc_of(&dtb) {
            Some(soc) => out.push(Bundled { file, path, dtb, soc }),
            None => eprintln!("note: {file} names no SoC of fe_regs::SOCS; not a board"),
        }
    }
    assert!(!out.is_empty(), "no board in {}", dir.display());
    out
}

/// The bundled boards of `soc`.
pub fn of_soc(soc: &fe_regs::SocInfo) -> Vec<Bundled> {
    all().into_iter().filter(|b| core::ptr::eq(b.soc, soc) || b.soc.name == soc.name).collect()
}

/// Asserts that `chosen` is not empty: a test that needs a board shape fails when no bundled
/// board has it, instead of passing over nothing.
pub fn require_some<T>(chosen: &[T], shape: &str) {
    assert!(!chosen.is_empty(), "no bundled board has {shape}; add one to dts/");
}
