//! The firmware image (see `targets/firmware/README.md`). On a bare-metal target this is the
//! `no_main` program that `hw`'s boot code enters; on the host it runs the same boards as a plain
//! program, so the logic can be tried without QEMU.

#![cfg_attr(target_os = "none", no_std, no_main)]
#![cfg_attr(target_arch = "mips", feature(asm_experimental_arch))]
#![deny(unsafe_code)]

#[cfg(target_os = "none")]
#[allow(unsafe_code)]
mod hw;

/// Entered from the boot code with a stack, zeroed `.bss`, FP/SIMD on and a heap; never returns.
#[cfg(target_os = "none")]
fn fw_main() -> ! {
    use core::fmt::Write as _;
    let mut uart = hw::Uart;
    let _ = writeln!(
        uart,
        "fe-firmware {}: driver core + simulator + smoltcp, {} boards",
        hw::ARCH,
        fe_firmware::boards::BOARDS.len()
    );
    let failed = fe_firmware::transfer::run_all(&mut uart, fe_firmware::transfer::BYTES);
    let _ = writeln!(uart, "fe-firmware: {}", if failed == 0 { "all runs passed" } else { "FAILED" });
    hw::exit(if failed == 0 { 0 } else { 1 })
}

#[cfg(not(target_os = "none"))]
fn main() {
    let mut out = String::new();
    let failed = fe_firmware::transfer::run_all(&mut out, fe_firmware::transfer::BYTES);
    print!("{out}");
    std::process::exit(i32::from(failed != 0));
}
