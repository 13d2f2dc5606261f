//! The driver core's platform on a real bus (AArch64 `virt` with the QEMU device
//! `mtk-frame-engine`): registers through `fe_regs::mmio::Mmio` at the windows the device tree
//! gives, DMA memory from the heap (the MMU is off: addresses are physical and every access is
//! uncached, so the device and the CPU see the same bytes without cache maintenance), barriers as
//! `dmb`, time from the generic timer. Also finds the device tree QEMU puts at the start of RAM.

use alloc::vec::Vec;
use core::alloc::Layout;
use core::arch::asm;
use core::cell::RefCell;
use fe_driver::dt::Board;
use fe_driver::platform::{Clock, DmaError, DmaMemory, Platform};
use fe_regs::Space;
use fe_regs::mmio::Mmio;

/// Where QEMU's `virt` puts the device tree for an image that is not a Linux kernel.
const DTB_AT: usize = 0x4000_0000;
/// The flattened device tree magic.
const FDT_MAGIC: u32 = 0xd00d_feed;
/// Largest tree this accepts (the image starts 512 KiB into RAM).
const DTB_MAX: usize = 512 << 10;

/// The device tree at the start of RAM, if QEMU put one there.
pub fn boot_dtb() -> Option<&'static [u8]> {
    // SAFETY: RAM starts at DTB_AT on `virt` and the linker script keeps the image and its data
    // out of its first 512 KiB, so these words are mapped and nothing writes them.
    let (magic, size) = unsafe {
        let p = DTB_AT as *const u32;
        (u32::from_be(p.read_volatile()), u32::from_be(p.add(1).read_volatile()) as usize)
    };
    if magic != FDT_MAGIC || !(40..=DTB_MAX).contains(&size) {
        return None;
    }
    // SAFETY: as above; `size` bytes (the header's totalsize) lie within the first 512 KiB.
    Some(unsafe { core::slice::from_raw_parts(DTB_AT as *const u8, size) })
}

/// The board's windows as buses, DMA memory from the heap, the generic timer as clock.
#[derive(Debug)]
pub struct BusPlatform {
    fe: Mmio,
    syscons: Vec<(Space, Mmio)>,
    /// DMA allocations still held: (address, layout), so `dma_free` can give them back.
    held: RefCell<Vec<(u64, Layout)>>,
}

impl BusPlatform {
    /// Buses onto `board`'s register windows.
    pub fn new(board: &Board<'_>) -> Self {
        // SAFETY: the windows come from the device tree the machine booted with; the device maps
        // them (MMU off: physical addresses) and nothing else in the image touches them.
        let bus = |base: u64, size: u64| unsafe { Mmio::new(base as usize as *mut u8, size as usize) };
        BusPlatform {
            fe: bus(board.reg.base, board.reg.size),
            syscons: board.syscons().map(|s| (s.space, bus(s.reg.base, s.reg.size))).collect(),
            held: RefCell::new(Vec::new()),
        }
    }
}

impl DmaMemory for BusPlatform {
    fn dma_alloc(&self, size: usize, align: usize) -> Option<u64> {
        let layout = Layout::from_size_align(size.max(1), align.max(16)).ok()?;
        // SAFETY: a non-zero-sized layout; the pointer is checked for null.
        let p = unsafe { alloc::alloc::alloc_zeroed(layout) };
        if p.is_null() {
            return None;
        }
        self.held.borrow_mut().push((p as u64, layout));
        Some(p as u64)
    }
    fn dma_free(&self, addr: u64, _size: usize) {
        let mut held = self.held.borrow_mut();
        if let Some(i) = held.iter().position(|(a, _)| *a == addr) {
            let (a, layout) = held.swap_remove(i);
            // SAFETY: `a` came from `alloc_zeroed` with `layout` and is freed once.
            unsafe { alloc::alloc::dealloc(a as *mut u8, layout) };
        }
    }
    fn dma_wmb(&self) {
        // SAFETY: a barrier only orders memory accesses.
        unsafe { asm!("dmb oshst", options(nostack, preserves_flags)) };
    }
    fn dma_rmb(&self) {
        // SAFETY: as above.
        unsafe { asm!("dmb oshld", options(nostack, preserves_flags)) };
    }
    fn dma_read(&self, addr: u64, out: &mut [u8]) -> Result<(), DmaError> {
        self.check(addr, out.len())?;
        for (k, b) in out.iter_mut().enumerate() {
            // SAFETY: `check` keeps the range inside an allocation this platform holds.
            *b = unsafe { ((addr as usize + k) as *const u8).read_volatile() };
        }
        Ok(())
    }
    fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError> {
        self.check(addr, data.len())?;
        for (k, b) in data.iter().enumerate() {
            // SAFETY: as in `dma_read`.
            unsafe { ((addr as usize + k) as *mut u8).write_volatile(*b) };
        }
        Ok(())
    }
}

impl BusPlatform {
    /// Refuses a DMA access outside every allocation this platform holds.
    fn check(&self, addr: u64, len: usize) -> Result<(), DmaError> {
        let inside = self
            .held
            .borrow()
            .iter()
            .any(|(a, l)| addr >= *a && addr.saturating_add(len as u64) <= a + l.size() as u64);
        if inside { Ok(()) } else { Err(DmaError::new(addr, len)) }
    }
}

impl Clock for BusPlatform {
    fn now_ns(&self) -> u64 {
        let (count, freq): (u64, u64);
        // SAFETY: reading the generic timer's counter and frequency has no side effect.
        unsafe {
            asm!("isb", "mrs {c}, cntvct_el0", "mrs {f}, cntfrq_el0", c = out(reg) count, f = out(reg) freq,
                 options(nomem, nostack, preserves_flags));
        }
        (u128::from(count) * 1_000_000_000 / u128::from(freq.max(1))) as u64
    }
    fn delay_ns(&self, ns: u64) {
        let end = self.now_ns().saturating_add(ns);
        while self.now_ns() < end {
            core::hint::spin_loop();
        }
    }
}

impl Platform for BusPlatform {
    type Fe = Mmio;
    type Syscon = Mmio;
    fn fe(&self) -> Mmio {
        self.fe
    }
    fn syscon(&self, space: Space) -> Option<Mmio> {
        self.syscons.iter().find(|(s, _)| *s == space).map(|(_, b)| *b)
    }
}
