//! Fuzz target: any bytes given to the device-tree probe return a platform or an error, never a
//! panic; an error always renders.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match fe_driver::dt::probe(data) {
        Ok(p) => {
            let _ = p.enabled_macs().count() + p.switch_ports().count();
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
