//! The CPU's side of DMA memory, as a weakly ordered CPU sees it: writes wait in a write buffer
//! until a write barrier publishes them, and an RX descriptor's done bit orders nothing until a
//! read barrier follows it. The model uses this to hold the driver to the DMA contract of
//! `fe_driver::platform`: a doorbell rung before the barrier is reported (and the engine acts on
//! the stale memory), and so is a read that follows a done bit without the read barrier.
//!
//! A long write (at least [`THROUGH_MIN`] bytes: a frame's payload, not a descriptor) that no
//! buffered write overlaps goes to memory at once and is only *counted* as unpublished until
//! the barrier: the doorbell check is the same, the bytes are copied once instead of twice,
//! and a weakly ordered CPU may indeed make such a write visible early. Descriptors, whose
//! staleness is what a missing barrier breaks, always wait in the buffer.

use crate::dma::DmaMemory;
use crate::violation::Violation;
use alloc::vec::Vec;

/// Bytes from which a CPU write may go to memory at once (see the module documentation).
pub(crate) const THROUGH_MIN: usize = 128;

/// CPU writes to DMA memory not yet published, and the read-ordering state.
#[derive(Debug, Default)]
pub(crate) struct CpuView {
    /// Buffered writes: `(physical address, offset into bytes, length)`, oldest first.
    pending: Vec<(u64, usize, usize)>,
    /// Their data.
    bytes: Vec<u8>,
    /// Long writes already in memory that still count as unpublished until the barrier.
    through: usize,
    /// The smallest address range holding every buffered pending write (`lo..hi`; empty when
    /// none): a read outside it sees memory as it is, with no walk over the pending writes.
    span: (u64, u64),
    /// An RX descriptor whose done bit the CPU read with no read barrier since.
    unordered: Option<u64>,
}

/// Where RX descriptors are and which bit says done: `(ring base, descriptors)` per ring, the
/// word holding the done bit and its mask.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RxRings<'a> {
    /// Rings as programmed.
    pub rings: &'a [(u64, u64)],
    /// Index of the word with the done bit.
    pub ctrl: usize,
    /// The done bit's mask.
    pub done: u32,
}

impl RxRings<'_> {
    /// The descriptor whose done word is exactly `addr`, if any (descriptors are 16 bytes).
    fn done_word(&self, addr: u64) -> Option<u64> {
        self.rings.iter().find_map(|&(base, n)| {
            let off = addr.checked_sub(base)?;
            let desc = base + off / 16 * 16;
            (off < n * 16 && off % 16 == 4 * self.ctrl as u64).then_some(desc)
        })
    }
}

impl CpuView {
    /// Writes waiting for a barrier.
    pub(crate) fn pending(&self) -> usize {
        self.pending.len() + self.through
    }

    /// A CPU write: checked against DMA memory now, buffered until [`CpuView::wmb`]; a long one
    /// that no buffered write overlaps goes to memory now and counts as pending until then.
    pub(crate) fn write(&mut self, mem: &mut DmaMemory, addr: u64, data: &[u8]) -> Result<(), Violation> {
        mem.read(addr, data.len())?;
        if data.len() >= THROUGH_MIN && !self.overlaps_buffered(addr, data.len()) {
            // Checked above; memory does not shrink.
            let _ = mem.write(addr, data);
            self.through += 1;
            return Ok(());
        }
        self.note_pending(addr, data.len());
        self.bytes.extend_from_slice(data);
        Ok(())
    }

    /// Whether a buffered pending write overlaps `len` bytes at `addr` (a write there must wait
    /// behind it, or the barrier would put the older bytes on top).
    fn overlaps_buffered(&self, addr: u64, len: usize) -> bool {
        let end = addr + len as u64;
        addr < self.span.1 && self.span.0 < end && self.pending.iter().any(|&(a, _, n)| a < end && addr < a + n as u64)
    }

    /// [`CpuView::write`] of little-endian words (a descriptor), without a byte buffer first.
    pub(crate) fn write_words(&mut self, mem: &DmaMemory, addr: u64, words: &[u32]) -> Result<(), Violation> {
        let len = 4 * words.len();
        mem.read(addr, len)?;
        self.note_pending(addr, len);
        self.bytes.reserve(len);
        for w in words {
            self.bytes.extend_from_slice(&w.to_le_bytes());
        }
        Ok(())
    }

    /// Records a pending write of `len` bytes at `addr` whose data is appended to `bytes` next.
    fn note_pending(&mut self, addr: u64, len: usize) {
        self.pending.push((addr, self.bytes.len(), len));
        let end = addr + len as u64;
        self.span =
            if self.span.0 >= self.span.1 { (addr, end) } else { (self.span.0.min(addr), self.span.1.max(end)) };
    }

    /// Write barrier: every pending write reaches memory, in order.
    pub(crate) fn wmb(&mut self, mem: &mut DmaMemory) {
        for &(addr, at, len) in &self.pending {
            // Checked when buffered; memory does not shrink.
            let _ = mem.write(addr, &self.bytes[at..at + len]);
        }
        self.pending.clear();
        self.through = 0;
        self.bytes.clear();
        self.span = (0, 0);
    }

    /// A CPU read of device memory (the SRAM through the bus) at physical address `addr` that
    /// returned `word`. Bus reads are ordered among themselves, so it needs no barrier; but a
    /// done bit read this way orders nothing for the DMA-memory reads (the buffer) that follow,
    /// until a read barrier.
    pub(crate) fn device_read(&mut self, rx: RxRings<'_>, addr: u64, word: u32) {
        if let Some(desc) = rx.done_word(addr).filter(|_| word & rx.done != 0) {
            self.unordered = Some(desc);
        }
    }

    /// Read barrier.
    pub(crate) fn rmb(&mut self) {
        self.unordered = None;
    }

    /// A CPU read into `out`: memory with the CPU's own pending writes on top (a CPU sees its
    /// own stores). Returns a violation when it breaks the read ordering.
    pub(crate) fn read(
        &mut self,
        mem: &DmaMemory,
        rx: RxRings<'_>,
        addr: u64,
        out: &mut [u8],
    ) -> Result<Option<Violation>, Violation> {
        out.copy_from_slice(mem.read(addr, out.len())?);
        let end = addr + out.len() as u64;
        if addr < self.span.1 && self.span.0 < end {
            for &(a, at, len) in &self.pending {
                let (lo, hi) = (a.max(addr), (a + len as u64).min(end));
                if lo < hi {
                    let src = &self.bytes[at + (lo - a) as usize..at + (hi - a) as usize];
                    out[(lo - addr) as usize..(hi - addr) as usize].copy_from_slice(src);
                }
            }
        }
        let first = out.first_chunk::<4>().map_or(0, |w| u32::from_le_bytes(*w));
        Ok(self.ordered(rx, addr, out.len(), first))
    }

    /// [`CpuView::read`] of little-endian words (a descriptor, a done word): no byte copies
    /// unless one of the CPU's pending writes overlaps them.
    pub(crate) fn read_words(
        &mut self,
        mem: &DmaMemory,
        rx: RxRings<'_>,
        addr: u64,
        out: &mut [u32],
    ) -> Result<Option<Violation>, Violation> {
        let len = out.len() * 4;
        let end = addr + len as u64;
        if addr < self.span.1 && self.span.0 < end {
            // The CPU's own writes on top: through bytes, a descriptor at a time.
            let mut v = None;
            for (k, chunk) in out.chunks_mut(8).enumerate() {
                let mut bytes = [0u8; 32];
                let buf = &mut bytes[..chunk.len() * 4];
                v = v.or(self.read(mem, rx, addr + 32 * k as u64, buf)?);
                for (w, c) in chunk.iter_mut().zip(buf.chunks_exact(4)) {
                    *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                }
            }
            return Ok(v);
        }
        mem.read_words_into(addr, out)?;
        Ok(self.ordered(rx, addr, len, out.first().copied().unwrap_or(0)))
    }

    /// The read-ordering check of a CPU read of `len` bytes at `addr` whose first word is
    /// `first`: reading done words (of one descriptor after another, as a teardown does)
    /// orders nothing and needs no barrier; any other read after a set done bit does.
    fn ordered(&mut self, rx: RxRings<'_>, addr: u64, len: usize, first: u32) -> Option<Violation> {
        if let (4, Some(desc)) = (len, rx.done_word(addr)) {
            if first & rx.done != 0 {
                self.unordered = Some(desc);
            }
            return None;
        }
        self.unordered.take().map(|desc| Violation::ReadBeforeBarrier { desc, addr })
    }
}

#[cfg(test)]
mod tests {
    use super::{CpuView, RxRings, THROUGH_MIN};
    use crate::dma::DmaMemory;
    use alloc::vec;
    use alloc::vec::Vec;

    const NO_RINGS: RxRings<'static> = RxRings { rings: &[], ctrl: 0, done: 0 };

    fn read(cpu: &mut CpuView, mem: &DmaMemory, addr: u64, len: usize) -> Vec<u8> {
        let mut out = vec![0; len];
        cpu.read(mem, NO_RINGS, addr, &mut out).unwrap();
        out
    }

    /// Long writes go through, short ones wait; either way the CPU reads its own writes, each
    /// counts as pending until the barrier, and the barrier leaves the newest bytes everywhere.
    #[test]
    fn long_writes_go_through_and_the_newest_bytes_win() {
        let mut mem = DmaMemory::new(4096);
        let base = mem.alloc(4096, 16).unwrap();
        let mut cpu = CpuView::default();
        let long = vec![0xaa; THROUGH_MIN * 2];
        cpu.write(&mut mem, base, &long).unwrap();
        assert_eq!(cpu.pending(), 1, "a long write counts as unpublished");
        assert_eq!(mem.read(base, 4).unwrap(), &[0xaa; 4], "and is in memory already");
        // A short write on top of it waits, and the CPU sees it over memory.
        cpu.write(&mut mem, base + 8, &[1, 2, 3, 4]).unwrap();
        assert_eq!(mem.read(base + 8, 4).unwrap(), &[0xaa; 4], "the engine does not see it yet");
        assert_eq!(read(&mut cpu, &mem, base + 6, 8), [0xaa, 0xaa, 1, 2, 3, 4, 0xaa, 0xaa]);
        // A long write over a buffered short one must wait behind it.
        let newer = vec![0x55; THROUGH_MIN];
        cpu.write(&mut mem, base, &newer).unwrap();
        assert_eq!(mem.read(base, 4).unwrap(), &[0xaa; 4], "buffered behind the short write");
        assert_eq!(read(&mut cpu, &mem, base + 6, 4), [0x55; 4], "the CPU sees its newest bytes");
        assert_eq!(cpu.pending(), 3);
        cpu.wmb(&mut mem);
        assert_eq!(cpu.pending(), 0);
        assert_eq!(mem.read(base, THROUGH_MIN).unwrap(), &newer[..], "newest bytes after the barrier");
        assert_eq!(mem.read(base + THROUGH_MIN as u64, 4).unwrap(), &[0xaa; 4]);
        // Out of range: refused, nothing written, nothing pending.
        assert!(cpu.write(&mut mem, base + 4096 - 8, &long).is_err());
        assert_eq!(cpu.pending(), 0);
    }
}
