//! ARMv7-A (MT7623's Cortex-A7; QEMU `virt` with `-cpu cortex-a7`): boot code and semihosting
//! exit. The target is soft-float, so no VFP set-up is needed.

use core::arch::{asm, global_asm};

/// Name printed in the banner.
pub const ARCH: &str = "armv7a";

// Stack from the linker script, .bss zeroed, then `fw_start`.
global_asm!(
    r#"
    .section .text.boot, "ax"
    .global _start
    .arm
_start:
    ldr     sp, =__stack_top
    ldr     r0, =__bss_start
    ldr     r1, =__bss_end
    mov     r2, #0
1:  cmp     r0, r1
    strlo   r2, [r0], #4
    blo     1b
    bl      fw_start
2:  wfe
    b       2b
"#
);

/// Ends the program with `code` as QEMU's exit status (semihosting SYS_EXIT_EXTENDED, A32).
pub fn exit(code: u32) -> ! {
    let block: [u32; 2] = [0x20026, code];
    // SAFETY: `svc #0x123456` is the A32 semihosting trap; r0 = SYS_EXIT_EXTENDED (0x20),
    // r1 = the parameter block, which lives across the call.
    unsafe { asm!("svc #0x123456", in("r0") 0x20u32, in("r1") block.as_ptr(), options(nostack)) };
    loop {
        // SAFETY: `wfe` only waits.
        unsafe { asm!("wfe", options(nomem, nostack)) };
    }
}
