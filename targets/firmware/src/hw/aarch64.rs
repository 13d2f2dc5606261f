//! AArch64 (QEMU `virt`, Cortex-A53, EL1): boot code, exception vectors, semihosting exit.

use core::arch::{asm, global_asm};

/// Name printed in the banner.
pub const ARCH: &str = "aarch64";

// Core 0 only (others park); stack from the linker script; FP/SIMD on (CPACR_EL1.FPEN = 0b11,
// Rust code uses NEON registers); exception vectors; .bss zeroed; then `fw_start`.
global_asm!(
    r#"
    .section .text.boot, "ax"
    .global _start
_start:
    mrs     x0, mpidr_el1
    and     x0, x0, #0xff
    cbnz    x0, 9f
    ldr     x0, =__stack_top
    mov     sp, x0
    mov     x0, #(3 << 20)
    msr     cpacr_el1, x0
    isb
    ldr     x0, =__vectors
    msr     vbar_el1, x0
    isb
    ldr     x0, =__bss_start
    ldr     x1, =__bss_end
1:  cmp     x0, x1
    b.hs    2f
    str     xzr, [x0], #8
    b       1b
2:  bl      fw_start
9:  wfe
    b       9b

    .section .text.vectors, "ax"
    .balign 0x800
__vectors:
    .rept 16
    .balign 0x80
    mrs     x0, esr_el1
    mrs     x1, elr_el1
    mrs     x2, far_el1
    b       fw_exception
    .endr
"#
);

/// Any exception (there are no interrupts): report and exit non-zero.
#[unsafe(no_mangle)]
extern "C" fn fw_exception(esr: u64, elr: u64, far: u64) -> ! {
    use core::fmt::Write as _;
    let _ = writeln!(super::Uart, "fe-firmware: EXCEPTION esr={esr:#x} elr={elr:#x} far={far:#x}");
    exit(102)
}

/// Ends the program with `code` as QEMU's exit status (semihosting SYS_EXIT, AArch64 form).
pub fn exit(code: u32) -> ! {
    // ADP_Stopped_ApplicationExit and the status, as the parameter block SYS_EXIT takes.
    let block: [u64; 2] = [0x20026, u64::from(code)];
    // SAFETY: `hlt #0xf000` is the A64 semihosting trap; w0 = SYS_EXIT (0x18), x1 = the block,
    // which lives across the call. QEMU ends the program; without semihosting we park below.
    unsafe { asm!("hlt #0xf000", in("w0") 0x18u32, in("x1") block.as_ptr(), options(nostack)) };
    loop {
        // SAFETY: `wfe` only waits.
        unsafe { asm!("wfe", options(nomem, nostack)) };
    }
}
