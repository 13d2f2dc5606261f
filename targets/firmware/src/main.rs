//! The firmware image (see `targets/firmware/README.md`). On a bare-metal target this is the
//! `no_main` entry behind the boot code of `hw`; on the host it runs the same boards as a plain
//! program, so the logic can be tried without QEMU.

#![cfg_attr(target_os = "none", no_std, no_main)]

#[cfg(not(target_os = "none"))]
fn main() {
    let mut out = String::new();
    let failed = fe_firmware::transfer::run_all(&mut out, fe_firmware::transfer::BYTES);
    print!("{out}");
    std::process::exit(i32::from(failed != 0));
}
