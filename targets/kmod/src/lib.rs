//! The Rust half of `fe_eth.ko`: the driver core (`fe-driver`) and the simulator (`fe-sim`)
//! as a `#![no_std]` static library, linked with the C glue in `glue/` (see `README.md`).
//!
//! This file holds what any Rust code in a kernel needs: the global allocator (kernel
//! `kvmalloc`/`kvfree` through the glue), the panic handler (reports through the glue and stops
//! the kernel; never unwinds) and logging. Everything that touches the driver core's API is in
//! [`dev`], behind the `fe_rs_*` functions the glue calls.

#![no_std]
#![deny(missing_docs)]

extern crate alloc;

pub mod chip;
pub mod dev;
pub mod rxpool;

use core::alloc::{GlobalAlloc, Layout};
use core::fmt::{self, Write as _};

/// The board device trees bundled into the module (the module parameter `board` picks one).
pub mod boards {
    include!(concat!(env!("OUT_DIR"), "/boards.rs"));
}

// Provided by the C glue (glue/fe_eth_main.c).
unsafe extern "C" {
    /// `size` bytes aligned to `align`, zeroed when `zero`; null when none is left. Uses
    /// GFP_KERNEL only in the glue's own process-context calls, GFP_ATOMIC otherwise.
    fn fe_kmod_alloc(size: usize, align: usize, zero: bool) -> *mut u8;
    /// Frees what `fe_kmod_alloc` returned for the same `align`.
    fn fe_kmod_free(ptr: *mut u8, align: usize);
    /// Prints `len` bytes at `msg` to the kernel log at `level` (0 info, 1 warning, 2 error).
    fn fe_kmod_log(level: u32, msg: *const u8, len: usize);
    /// Reports `len` bytes at `msg` and stops the kernel (`panic`); never returns. Declared as
    /// returning so that the call is followed by code objtool can follow (it does not know this
    /// function is `__noreturn`, and code ending in a call looks to it like a fall-through off
    /// the end of the function).
    fn fe_kmod_panic(msg: *const u8, len: usize);
}

/// The kernel's allocator as Rust's global allocator.
struct KernelAlloc;

// SAFETY: the glue returns memory of at least `size` bytes aligned to `align` or null, and
// frees only what it returned; both are safe in any context the Rust code is called from.
unsafe impl GlobalAlloc for KernelAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: plain FFI call, see the impl's comment.
        unsafe { fe_kmod_alloc(layout.size(), layout.align(), false) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        unsafe { fe_kmod_alloc(layout.size(), layout.align(), true) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` with this layout's alignment.
        unsafe { fe_kmod_free(ptr, layout.align()) }
    }
}

#[global_allocator]
static ALLOC: KernelAlloc = KernelAlloc;

/// A message formatted on the stack (no allocation: it must work when allocation failed).
pub(crate) struct Line {
    buf: [u8; 256],
    len: usize,
}

impl Line {
    /// An empty line.
    pub(crate) const fn new() -> Self {
        Line { buf: [0; 256], len: 0 }
    }
    /// The bytes written so far.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        self.buf.get(..self.len).unwrap_or_default()
    }
}

impl fmt::Write for Line {
    /// Appends what fits; the rest is cut off.
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.buf.len() - self.len;
        let n = s.len().min(room);
        if let (Some(dst), Some(src)) = (self.buf.get_mut(self.len..self.len + n), s.as_bytes().get(..n)) {
            dst.copy_from_slice(src);
        }
        self.len += n;
        Ok(())
    }
}

/// Log levels of [`log`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum Level {
    /// `KERN_INFO`.
    Info = 0,
    /// `KERN_WARNING`.
    Warn = 1,
    /// `KERN_ERR`.
    Err = 2,
}

/// Prints one line to the kernel log.
pub(crate) fn log(level: Level, args: fmt::Arguments<'_>) {
    let mut l = Line::new();
    let _ = l.write_fmt(args);
    let b = l.as_bytes();
    // SAFETY: `b` is valid for `b.len()` bytes during the call.
    unsafe { fe_kmod_log(level as u32, b.as_ptr(), b.len()) }
}

/// `printk`-style logging: `klog!(Info, "...", args)`.
#[macro_export]
macro_rules! klog {
    ($level:ident, $($arg:tt)*) => {
        $crate::log($crate::Level::$level, format_args!($($arg)*))
    };
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    let mut l = Line::new();
    let _ = write!(l, "{info}");
    let b = l.as_bytes();
    // SAFETY: `b` is valid for `b.len()` bytes.
    unsafe { fe_kmod_panic(b.as_ptr(), b.len()) };
    // `panic()` does not return; a loop, not a trap, is what objtool expects after the call.
    loop {
        core::hint::spin_loop();
    }
}
