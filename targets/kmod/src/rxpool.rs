//! Zero-copy receive: the chip's [`RxPool`], pages of the simulator's DMA memory that go up to
//! the stack as the heads of skbs (`napi_build_skb` in the glue) and come back when the stack
//! lets go of them.
//!
//! The simulator's DMA memory is one `dma_alloc_coherent` region for the module's DMA device,
//! which is declared cache-coherent (it is: the simulated engine's DMA is the CPU's own copy), so
//! the region lies in the kernel's linear map and, allocated from CMA, is made of pages with a
//! reference count each (the glue checks both, else zero-copy stays off). A pool buffer is one
//! such page: the engine writes the frame at [`HEADROOM`] bytes into it, and the glue builds an
//! skb over the whole page (headroom, frame, `skb_shared_info` at the end), taking a page
//! reference for the stack. The pool keeps the pages it handed up in order; the oldest one whose
//! reference count is back to 1 (the stack freed every skb and frag on it) is the next fresh
//! buffer, as NIC drivers reuse pages, and a new page comes from DMA memory otherwise.
//!
//! Used by NAPI only (the RX handle's context), and by bring-up and teardown while nothing runs.

use crate::chip::Chip;
use alloc::collections::VecDeque;
use core::cell::UnsafeCell;
use core::ffi::c_void;

/// Bytes of one pool buffer: a page.
pub const PAGE: usize = 4096;
/// Bytes before the frame in its page (the skb's headroom, `NET_SKB_PAD` on arm64).
pub const HEADROOM: usize = 64;
/// Bytes at the end of the page kept for the skb's `skb_shared_info` (its aligned size is
/// 320 bytes on arm64; checked by the glue at build time).
pub const TAILROOM: usize = 384;

unsafe extern "C" {
    /// Whether the page at `cpu` has no user but the pool (its reference count is 1).
    fn fe_kmod_page_idle(cpu: *const u8) -> bool;
}

/// The pool's state.
#[derive(Debug)]
pub struct Pool {
    /// CPU address of the simulator's DMA memory.
    cpu_base: *mut u8,
    /// Its bus address.
    bus_base: u64,
    /// Its size.
    size: usize,
    /// Pages handed up to the stack, oldest first (bus addresses of their starts).
    lent: UnsafeCell<VecDeque<u64>>,
    /// Pages taken from DMA memory for the pool and not given back.
    pages: UnsafeCell<u64>,
}

impl Pool {
    /// A pool over the simulator's DMA memory at `cpu_base` (bus address `bus_base`, `size`
    /// bytes).
    pub fn new(cpu_base: *mut u8, bus_base: u64, size: usize) -> Self {
        Pool { cpu_base, bus_base, size, lent: UnsafeCell::new(VecDeque::new()), pages: UnsafeCell::new(0) }
    }

    /// The CPU address of bus address `bus` (inside the region).
    pub fn cpu(&self, bus: u64) -> Option<*mut u8> {
        let off = usize::try_from(bus.checked_sub(self.bus_base)?).ok()?;
        // SAFETY: `off` is inside the region (checked), so the result points into it.
        (off < self.size).then(|| unsafe { self.cpu_base.add(off) })
    }

    /// Pages the pool holds outside the ring (lent to the stack) and in all.
    pub fn counts(&self) -> (usize, u64) {
        // SAFETY: read by the one context that uses the pool (see the module documentation).
        unsafe { ((*self.lent.get()).len(), *self.pages.get()) }
    }

    /// A fresh page for the ring: the oldest page the stack gave back, or a new one from DMA
    /// memory. Its bus address.
    fn fresh(&self, chip: &Chip) -> Option<u64> {
        // SAFETY: NAPI or bring-up only (module documentation): no other reference.
        let lent = unsafe { &mut *self.lent.get() };
        if let Some(&page) = lent.front()
            && let Some(cpu) = self.cpu(page)
            // SAFETY: `cpu` is the start of a page of the region.
            && unsafe { fe_kmod_page_idle(cpu) }
        {
            lent.pop_front();
            return Some(page);
        }
        let page = chip.with(|s| s.dma_alloc(PAGE, PAGE))?;
        // SAFETY: as above.
        unsafe { *self.pages.get() += 1 };
        Some(page)
    }

    /// Gives back to DMA memory the page of lent address `addr` (a ring buffer at teardown).
    pub fn release(&self, chip: &Chip, addr: u64) {
        let page = addr - HEADROOM as u64;
        chip.with(|s| s.dma_free(page, PAGE));
        // SAFETY: teardown: nothing else runs.
        unsafe { *self.pages.get() -= 1 };
    }

    /// At teardown: gives back every lent page the stack let go of; returns how many it still
    /// holds (they cannot be freed: the region must then stay allocated).
    pub fn reclaim_lent(&self, chip: &Chip) -> usize {
        // SAFETY: teardown: nothing else runs.
        let lent = unsafe { &mut *self.lent.get() };
        let mut held = 0;
        for page in core::mem::take(lent) {
            // SAFETY: a page start inside the region.
            let idle = self.cpu(page).is_some_and(|c| unsafe { fe_kmod_page_idle(c) });
            if idle {
                chip.with(|s| s.dma_free(page, PAGE));
                // SAFETY: as above.
                unsafe { *self.pages.get() -= 1 };
            } else {
                held += 1;
                lent.push_back(page);
            }
        }
        held
    }
}

/// A filled pool page going up: its CPU address (the page's start); the frame is at
/// [`HEADROOM`].
#[derive(Debug)]
pub struct PageBuf(pub *mut c_void);

impl fe_driver::RxPool for Chip {
    type Buf = PageBuf;

    fn rx_alloc(&self, size: usize) -> Option<u32> {
        let pool = self.pool()?;
        if HEADROOM + size + TAILROOM > PAGE {
            return None;
        }
        let page = pool.fresh(self)?;
        u32::try_from(page + HEADROOM as u64).ok()
    }

    fn rx_swap(&self, filled: u32, _len: usize) -> Option<(u32, PageBuf)> {
        let pool = self.pool()?;
        let page = u64::from(filled).checked_sub(HEADROOM as u64)?;
        let cpu = pool.cpu(page)?;
        let fresh = pool.fresh(self)?;
        let Ok(lend) = u32::try_from(fresh + HEADROOM as u64) else {
            // Not reachable (the region lies below 4 GiB); the page goes back to the pool.
            self.with(|s| s.dma_free(fresh, PAGE));
            return None;
        };
        // SAFETY: NAPI only.
        unsafe { (*pool.lent.get()).push_back(page) };
        // The device is coherent (the module documentation): nothing to sync for the CPU.
        Some((lend, PageBuf(cpu.cast())))
    }
}
