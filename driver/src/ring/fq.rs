//! The QDMA free queue ("scratch" ring): a linked list of pages the engine buffers frames in
//! between taking them from the TX ring and sending them. Its descriptors are TX descriptors,
//! in DMA memory or in the frame engine's SRAM as the SoC says ([`crate::ring::mem`]); its
//! pages are always DMA memory.

use crate::desc::{self, TxDesc};
use crate::platform::{DmaError, Platform};
use crate::ring::mem::{DescAccess, DescMem, Place};
use crate::ring::{AllocError, alloc32};
use fe_regs::descriptors::DescriptorLayout;
use fe_regs::maps::QdmaMap;
use fe_regs::values::{QdmaFqCount, QdmaFqHead, QdmaFqTail};

/// Descriptors (and pages) in the QDMA free queue.
pub const FQ_SIZE: usize = 256;

/// The QDMA free queue: its descriptors, its pages, and whether the engine holds them.
#[derive(Debug)]
pub(crate) struct FreeQueue {
    pub(crate) ring: DescMem,
    pages: u64,
    desc_size: usize,
    page_size: usize,
    /// The engine holds the pages (from `reset` to close).
    pub(crate) in_engine: bool,
}

impl FreeQueue {
    /// A free queue of [`FQ_SIZE`] descriptors of `desc_size` bytes at `place`, and its pages
    /// of `page_size` bytes from `p`.
    pub(crate) fn new<P: Platform>(
        p: &P,
        desc_size: usize,
        page_size: usize,
        place: Place,
    ) -> Result<Self, AllocError> {
        let ring = DescMem::alloc(p, place, desc_size * FQ_SIZE, desc_size.max(16))?;
        let pages = alloc32(p, page_size * FQ_SIZE, 64).inspect_err(|_| ring.free(p, desc_size * FQ_SIZE))?;
        Ok(FreeQueue { ring, pages, desc_size, page_size, in_engine: false })
    }

    /// Returns the queue's DMA memory to the platform.
    pub(crate) fn free<P: Platform>(&self, p: &P) {
        self.ring.free(p, self.desc_size * FQ_SIZE);
        p.dma_free(self.pages, self.page_size * FQ_SIZE);
    }

    /// Links every page into the list (descriptors in `layout`), publishes them and points the
    /// QDMA's free-queue registers of `q` at it (at open; the engine's TX DMA is off).
    pub(crate) fn reset<P: Platform>(&mut self, p: &P, layout: DescriptorLayout, q: &QdmaMap) -> Result<(), DmaError> {
        let ds = self.desc_size as u64;
        let ring = self.ring.phys();
        for i in 0..FQ_SIZE as u64 {
            let next = if i + 1 < FQ_SIZE as u64 { ring + (i + 1) * ds } else { 0 };
            let d = TxDesc {
                addr: (self.pages + i * self.page_size as u64) as u32,
                next: next as u32,
                len: self.page_size as u16,
                ..TxDesc::default()
            };
            let (w, n) = desc::encode_tx(layout, &d);
            self.ring.write_words(p, ring + i * ds, &w[..n])?;
        }
        p.dma_wmb();
        let fe = p.fe();
        let q = q.bind(&fe);
        q.fq_head().write_value(QdmaFqHead(ring as u32));
        q.fq_tail().write_value(QdmaFqTail((ring + (FQ_SIZE as u64 - 1) * ds) as u32));
        q.fq_count().write_value(QdmaFqCount(FQ_SIZE as u32));
        q.fq_blen().write(|v| v.set_blen(self.page_size as u16));
        self.in_engine = true;
        Ok(())
    }
}
