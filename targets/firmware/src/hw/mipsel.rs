//! MIPS32 little-endian (MT7621's 1004Kc; QEMU `malta`): boot code and an exit through UHI
//! semihosting (`sdbbp 1`). Built with a nightly toolchain (`-Zbuild-std`); inline assembly on
//! MIPS is unstable.

use core::arch::{asm, global_asm};

/// Name printed in the banner.
pub const ARCH: &str = "mipsel";

// Stack from the linker script, .bss zeroed, then `fw_start`.
global_asm!(
    r#"
    .section .text.boot, "ax"
    .global _start
    .set noreorder
_start:
    la      $sp, __stack_top
    la      $t0, __bss_start
    la      $t1, __bss_end
1:  beq     $t0, $t1, 2f
    nop
    sw      $zero, 0($t0)
    b       1b
    addiu   $t0, $t0, 4
2:  jal     fw_start
    nop
3:  b       3b
    nop
    .set reorder
"#
);

/// Ends the program with `code` (UHI `exit`: $25 = 1, $4 = status, `sdbbp 1`).
pub fn exit(code: u32) -> ! {
    // SAFETY: the UHI semihosting call; QEMU ends the program when semihosting is on, otherwise
    // the debug breakpoint traps and we park below.
    unsafe { asm!("sdbbp 1", in("$25") 1u32, in("$4") code, options(nostack)) };
    loop {
        core::hint::spin_loop();
    }
}
