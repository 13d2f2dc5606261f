//! DMA memory: a contiguous region addressed by physical address, shared by driver and engine.

use crate::violation::Violation;
use alloc::vec;
use alloc::vec::Vec;

/// Physical address where DMA memory starts (away from 0, so a null pointer is out of range).
pub const DMA_BASE: u64 = 0x8000_0000;

/// Where DMA memory's bytes live.
#[derive(Debug)]
enum Backing {
    /// The model's own heap memory, at [`DMA_BASE`].
    Owned(Vec<u8>),
    /// Memory the host lent for the model's lifetime, at the address the host's DMA API gave it
    /// (a kernel module's `dma_alloc_coherent` region): the engine's DMA then really goes
    /// through memory the kernel mapped for a device.
    Lent(&'static mut [u8]),
}

impl Backing {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Owned(v) => v,
            Backing::Lent(s) => s,
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Backing::Owned(v) => v,
            Backing::Lent(s) => s,
        }
    }
}

/// DMA-able memory with a first-fit allocator that takes memory back.
#[derive(Debug)]
pub struct DmaMemory {
    bytes: Backing,
    /// Physical (bus) address of the first byte.
    base: u64,
    /// High-water mark: accesses beyond it are out of range.
    next: usize,
    /// Live allocations `(start, end)`, sorted by start.
    live: Vec<(usize, usize)>,
}

impl DmaMemory {
    /// `size` bytes of zeroed DMA memory.
    #[must_use]
    pub fn new(size: usize) -> Self {
        DmaMemory { bytes: Backing::Owned(vec![0; size]), base: DMA_BASE, next: 0, live: Vec::new() }
    }

    /// DMA memory over `region`, which the device reaches at bus address `base` (the host
    /// zeroed it). Allocations stay below 4 GiB only if the region does: descriptors hold 32-bit
    /// addresses, and the driver refuses memory above.
    #[must_use]
    pub fn over(region: &'static mut [u8], base: u64) -> Self {
        DmaMemory { bytes: Backing::Lent(region), base, next: 0, live: Vec::new() }
    }

    /// Memory another party allocates from (a guest's RAM behind a bus: its kernel owns the
    /// allocator), lent at bus address `base`: every byte is addressable from the start, and
    /// [`DmaMemory::alloc`] is not used.
    #[must_use]
    pub fn guest_ram(region: &'static mut [u8], base: u64) -> Self {
        let next = region.len();
        DmaMemory { bytes: Backing::Lent(region), base, next, live: Vec::new() }
    }

    /// Allocates `size` bytes aligned to `align` (a power of two): the first gap between live
    /// allocations that fits; `None` when memory is full.
    pub fn alloc(&mut self, size: usize, align: usize) -> Option<u64> {
        let align = align.max(1);
        let mut from = 0usize;
        let mut at = self.live.len();
        for (k, &(s, e)) in self.live.iter().enumerate() {
            let start = from.checked_add(align - 1)? & !(align - 1);
            if start.checked_add(size)? <= s {
                at = k;
                break;
            }
            from = e;
        }
        let start = from.checked_add(align - 1)? & !(align - 1);
        let end = start.checked_add(size)?;
        if end > self.bytes.bytes().len() {
            return None;
        }
        self.live.insert(at, (start, end));
        self.next = self.next.max(end);
        Some(self.base + start as u64)
    }

    /// Gives back the allocation of `size` bytes at `addr`; a free that matches no live
    /// allocation is refused.
    pub fn free(&mut self, addr: u64, size: usize) -> Result<(), Violation> {
        let bad = Violation::BadDmaFree { addr, len: size };
        let start = addr.checked_sub(self.base).ok_or(bad)? as usize;
        let k = self.live.iter().position(|&(s, e)| s == start && e - s == size).ok_or(bad)?;
        self.live.remove(k);
        Ok(())
    }

    /// Bytes allocated and not yet freed.
    #[must_use]
    pub fn in_use(&self) -> usize {
        self.live.iter().map(|(s, e)| e - s).sum()
    }

    /// Highest address ever allocated, as bytes from the start.
    #[must_use]
    pub fn used(&self) -> usize {
        self.next
    }

    fn range(&self, addr: u64, len: usize) -> Result<core::ops::Range<usize>, Violation> {
        let bad = Violation::DmaOutOfRange { addr, len };
        let start = addr.checked_sub(self.base).ok_or(bad)? as usize;
        let end = start.checked_add(len).ok_or(bad)?;
        if end > self.next {
            return Err(bad);
        }
        Ok(start..end)
    }

    /// The `len` bytes at `addr`.
    pub fn read(&self, addr: u64, len: usize) -> Result<&[u8], Violation> {
        let r = self.range(addr, len)?;
        Ok(&self.bytes.bytes()[r])
    }

    /// Writes `data` at `addr`.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), Violation> {
        let r = self.range(addr, data.len())?;
        self.bytes.bytes_mut()[r].copy_from_slice(data);
        Ok(())
    }

    /// Reads `N` little-endian words at `addr` (a descriptor).
    pub fn read_words<const N: usize>(&self, addr: u64) -> Result<[u32; N], Violation> {
        let mut w = [0u32; N];
        self.read_words_into(addr, &mut w)?;
        Ok(w)
    }

    /// Reads `out.len()` little-endian words at `addr`.
    pub fn read_words_into(&self, addr: u64, out: &mut [u32]) -> Result<(), Violation> {
        let b = self.read(addr, 4 * out.len())?;
        // Descriptors are aligned in memory that is: whole-word loads, not four byte loads and
        // shifts a word (the kernel module's target forbids unaligned loads).
        if let Ok(words) = bytemuck::try_cast_slice::<u8, u32>(b) {
            for (o, w) in out.iter_mut().zip(words) {
                *o = u32::from_le(*w);
            }
            return Ok(());
        }
        for (w, c) in out.iter_mut().zip(b.chunks_exact(4)) {
            *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Ok(())
    }

    /// Writes `N` words little-endian at `addr`.
    pub fn write_words<const N: usize>(&mut self, addr: u64, words: &[u32; N]) -> Result<(), Violation> {
        let r = self.range(addr, 4 * N)?;
        let bytes = &mut self.bytes.bytes_mut()[r];
        if let Ok(dst) = bytemuck::try_cast_slice_mut::<u8, u32>(bytes) {
            for (d, w) in dst.iter_mut().zip(words) {
                *d = w.to_le();
            }
            return Ok(());
        }
        for (c, w) in bytes.chunks_exact_mut(4).zip(words) {
            let [a, b, c2, d] = w.to_le_bytes();
            (c[0], c[1], c[2], c[3]) = (a, b, c2, d);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lent_memory_is_addressed_from_the_host_base() {
        let region: &'static mut [u8] = alloc::boxed::Box::leak(vec![0u8; 4096].into_boxed_slice());
        let mut m = DmaMemory::over(region, 0x4123_0000);
        let a = m.alloc(64, 64).unwrap();
        assert_eq!(a, 0x4123_0000);
        m.write(a + 8, &[1, 2, 3]).unwrap();
        assert_eq!(m.read(a + 8, 3).unwrap(), &[1, 2, 3]);
        assert!(m.read(DMA_BASE, 1).is_err(), "the model's own base means nothing here");
        assert!(m.alloc(8192, 64).is_none(), "no more than the host lent");
        m.free(a, 64).unwrap();
        assert_eq!(m.in_use(), 0);
    }

    #[test]
    fn words_are_little_endian_at_aligned_and_unaligned_addresses() {
        let mut m = DmaMemory::new(256);
        let a = m.alloc(64, 64).unwrap();
        for at in [a, a + 1, a + 2, a + 3, a + 4] {
            m.write_words(at, &[0x0403_0201, 0x0807_0605]).unwrap();
            assert_eq!(m.read(at, 8).unwrap(), &[1, 2, 3, 4, 5, 6, 7, 8], "at {at:#x}");
            assert_eq!(m.read_words::<2>(at).unwrap(), [0x0403_0201, 0x0807_0605], "at {at:#x}");
            let mut one = [0u32];
            m.read_words_into(at + 4, &mut one).unwrap();
            assert_eq!(one, [0x0807_0605], "at {at:#x}");
        }
        assert!(m.read_words::<2>(a + 60).is_err(), "past the end");
    }
}
