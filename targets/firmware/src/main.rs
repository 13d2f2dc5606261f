//! The firmware image (see `targets/firmware/README.md`). On a bare-metal target this is the
//! `no_main` program that `hw`'s boot code enters; on the host it runs the same boards as a plain
//! program, so the logic can be tried without QEMU.

#![cfg_attr(target_os = "none", no_std, no_main)]
#![cfg_attr(target_arch = "mips", feature(asm_experimental_arch))]
#![deny(unsafe_code)]

#[cfg(target_os = "none")]
extern crate alloc;

#[cfg(target_os = "none")]
#[allow(unsafe_code)]
mod hw;

/// Entered from the boot code with a stack, zeroed `.bss`, FP/SIMD on and a heap; never returns.
#[cfg(target_os = "none")]
fn fw_main() -> ! {
    use core::fmt::Write as _;
    let mut uart = hw::Uart;
    // Booted with a device tree that holds a frame engine (QEMU's `mtk-frame-engine`): drive it.
    // A tree without one (virt's own) leaves the image on its in-image model.
    #[cfg(target_arch = "aarch64")]
    if let Some(dtb) = hw::bus::boot_dtb() {
        match fe_driver::dt::probe(dtb) {
            Ok(_) => hw::exit(on_device(&mut uart, dtb)),
            Err(e) => {
                let _ = writeln!(uart, "fe-firmware: no frame engine in the boot device tree ({e}): in-image model");
            }
        }
    }
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

/// The machine booted the image with a device tree holding a frame engine (QEMU's
/// `mtk-frame-engine`): drive that device through MMIO instead of the in-image model. Gives the
/// exit status.
#[cfg(all(target_os = "none", target_arch = "aarch64"))]
fn on_device(uart: &mut hw::Uart, dtb: &'static [u8]) -> u32 {
    use core::fmt::Write as _;
    const BYTES: usize = 1 << 20;
    let Ok(board) = fe_driver::dt::probe(dtb) else { return 1 };
    let _ = writeln!(uart, "fe-firmware {}: driver core on the device at {:#x}, smoltcp", hw::ARCH, board.reg.base);
    match fe_firmware::device::run(dtb, hw::bus::BusPlatform::new(&board), BYTES) {
        Ok(r) => {
            let ok = r.passed(BYTES);
            let _ = writeln!(
                uart,
                "fw-device soc={} macs={}->{} bytes={} bad_bytes={} ms={} goodput_mbps={:.1} hw_verified={} sw_verified={} drops_tx={} drops_rx={} result={}",
                r.soc,
                r.macs.0,
                r.macs.1,
                r.bytes,
                r.bad_bytes,
                r.ns / 1_000_000,
                r.goodput_mbps(),
                r.adapter.rx_hw_verified,
                r.adapter.rx_sw_verified,
                r.drops.0,
                r.drops.1,
                if ok { "PASS" } else { "FAIL" }
            );
            u32::from(!ok)
        }
        Err(e) => {
            let _ = writeln!(uart, "fw-device result=FAIL error=\"{e}\"");
            1
        }
    }
}

#[cfg(not(target_os = "none"))]
fn main() {
    let mut out = String::new();
    let failed = fe_firmware::transfer::run_all(&mut out, fe_firmware::transfer::BYTES);
    print!("{out}");
    std::process::exit(i32::from(failed != 0));
}
