//! Fuzz target: any bytes given to the device-tree probe return a board or an error, never a
//! panic; an error, a warning and every node path of a board always render.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::fmt::Write;

fuzz_target!(|data: &[u8]| {
    let mut out = String::new();
    match fe_driver::dt::probe(data) {
        Ok(b) => {
            let _ = write!(out, "{} {} {}", b.path, b.ethsys_path, b.compatible);
            for m in b.macs() {
                let _ = write!(out, "{} {:?} {:?}", m.path, m.link, m.sfp);
            }
            for p in b.switch_ports() {
                let _ = write!(out, "{} {}", p.path, p.path == b.path);
            }
            for w in b.warnings() {
                let _ = write!(out, "{w}");
            }
        }
        Err(e) => {
            let _ = write!(out, "{e}");
        }
    }
});
