//! Everything that touches the machine, and the only `unsafe` in the image: the boot code (per
//! architecture), the UART, the exit through semihosting, the heap over the RAM the linker
//! script leaves free, and the panic handler.

use core::fmt;
use core::panic::PanicInfo;
use linked_list_allocator::LockedHeap;

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "aarch64")]
pub mod bus;
#[cfg(target_arch = "aarch64")]
pub use aarch64::{ARCH, exit};

#[cfg(target_arch = "arm")]
mod armv7a;
#[cfg(target_arch = "arm")]
pub use armv7a::{ARCH, exit};

#[cfg(target_arch = "mips")]
mod mipsel;
#[cfg(target_arch = "mips")]
pub use mipsel::{ARCH, exit};

/// The simulator's and the sockets' heap (the driver core allocates only its tables, once, when
/// it is built). A linked-list
/// allocator: frees memory (the simulator allocates per frame, so a bump allocator would grow
/// without bound), needs no platform glue beyond a spin lock, and builds on every core here.
#[global_allocator]
static HEAP: LockedHeap = LockedHeap::empty();

unsafe extern "C" {
    static __heap_start: u8;
    static __heap_end: u8;
}

/// Gives the RAM between `__heap_start` and `__heap_end` (linker script) to the allocator.
fn init_heap() {
    let start = (&raw const __heap_start) as usize;
    let end = (&raw const __heap_end) as usize;
    // SAFETY: the linker script reserves [__heap_start, __heap_end) for the heap and nothing
    // else uses it; this runs once, before the first allocation.
    unsafe { HEAP.lock().init(start as *mut u8, end - start) };
}

/// Called by each architecture's boot code once the stack and `.bss` are ready.
#[unsafe(no_mangle)]
extern "C" fn fw_start() -> ! {
    init_heap();
    crate::fw_main()
}

/// The console UART (write-only).
pub struct Uart;

impl fmt::Write for Uart {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for b in s.bytes() {
            if b == b'\n' {
                arch_putc(b'\r');
            }
            arch_putc(b);
        }
        Ok(())
    }
}

#[cfg(any(target_arch = "aarch64", target_arch = "arm"))]
fn arch_putc(b: u8) {
    // PL011 of QEMU's `virt` machine: data register at +0, flag register at +0x18 (bit 5: TX full).
    const BASE: usize = 0x0900_0000;
    // SAFETY: BASE is the PL011's MMIO window on `virt`; volatile 32-bit accesses to its DR and FR.
    unsafe {
        while core::ptr::read_volatile((BASE + 0x18) as *const u32) & (1 << 5) != 0 {}
        core::ptr::write_volatile(BASE as *mut u32, u32::from(b));
    }
}

#[cfg(target_arch = "mips")]
fn arch_putc(b: u8) {
    // The 16550 of QEMU's `malta` (ISA 0x3f8 through KSEG1): THR at +0, LSR at +5 (bit 5: THR empty).
    const BASE: usize = 0xb800_03f8;
    // SAFETY: BASE is the UART's uncached MMIO window on `malta`; volatile byte accesses.
    unsafe {
        while core::ptr::read_volatile((BASE + 5) as *const u8) & (1 << 5) == 0 {}
        core::ptr::write_volatile(BASE as *mut u8, b);
    }
}

#[panic_handler]
fn panic(info: &PanicInfo<'_>) -> ! {
    use core::fmt::Write as _;
    let _ = writeln!(Uart, "fe-firmware: PANIC: {info}");
    exit(101)
}
