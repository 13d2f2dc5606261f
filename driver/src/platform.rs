//! The small traits the driver core is generic over: register buses, DMA memory addressed by
//! physical address, and a clock.
//!
//! The core never holds a pointer into DMA memory: it asks the platform to copy bytes and
//! little-endian descriptor words in and out at physical addresses, so it stays free of `unsafe`.
//! Real MMIO lives in `fe_regs::mmio` and a platform crate; tests use the simulator.
//!
//! # The DMA contract
//!
//! What the core does, and what a platform must provide, so that the engine and the CPU see
//! each other's writes in the right order on weakly ordered CPUs (arm64) and on SoCs whose DMA
//! is not cache-coherent (MT7621's MIPS):
//!
//! * **Write barrier before every doorbell.** After writing descriptors or buffers and before
//!   the MMIO write that lets the engine read them (a CPU index, a ring base, a DMA enable), the
//!   core calls [`DmaMemory::dma_wmb`]. Register writes through a [`Bus`] are relaxed: they are
//!   not ordered against DMA memory writes by themselves. A platform maps `dma_wmb` to Linux's
//!   `dma_wmb()`/`wmb()`, or to `dmb oshst` / `sync` on bare metal.
//! * **Read barrier after a done bit.** A descriptor the engine hands back is read in two
//!   steps: the word with its done/owner bit, then (only when it is set) [`DmaMemory::dma_rmb`],
//!   then its other words and its buffer. [`DmaMemory::dma_read_desc`] does exactly that; a
//!   platform may override it with a faster sequence of the same meaning.
//! * **Coherence is the platform's.** The accessors here see memory as the engine left it: on a
//!   non-coherent SoC, `dma_read*` invalidates and `dma_write*` cleans the cache lines they touch
//!   (or the memory is mapped uncached, as `dma_alloc_coherent` does).
//! * **Atomic register updates.** Registers that contexts running at the same time change (the
//!   interrupt masks: the hard-IRQ handler masks, the NAPI poll unmasks) are updated only
//!   through [`Bus::modify32`]; a platform whose handles run concurrently makes it atomic (a
//!   spinlock, `regmap_update_bits`). Other registers are written by one context at a time.
//! * **Lifetime.** Everything the core allocates with [`DmaMemory::dma_alloc`] it gives back
//!   with [`DmaMemory::dma_free`] when the driver is dropped, after the engines are stopped.
//! * **Lent RX buffers (zero-copy receive, [`RxPool`]).** A platform with a buffer pool lends
//!   ring 0 one buffer per descriptor ([`RxPool::rx_alloc`]). A buffer is the engine's while
//!   its descriptor is posted, the core's from the done bit on, and then either the stack's
//!   ([`RxPool::rx_swap`], called after the descriptor's read barrier, so the engine's writes
//!   to the buffer are visible once the platform has synced it for the CPU; the fresh buffer
//!   it returns is posted in its place, published by the poll's write barrier and doorbell) or
//!   posted again as it is (the pool was empty: the frame is dropped). The core never reads
//!   such a buffer's bytes on the zero-copy path, never trusts the address word the engine
//!   writes back (it keeps each slot's address itself), and gives back every buffer it still
//!   holds with [`DmaMemory::rx_release`] when the driver is dropped.
//!
//! The simulator enforces this contract: its DMA writes sit in a write buffer until the next
//! write barrier (a doorbell rung before it is reported, and the engine sees stale words), and a
//! descriptor read after its done bit without the read barrier in between is reported.

use fe_regs::Space;
use fe_regs::bus::Bus;

/// A DMA access the platform refused (outside DMA memory, or not mapped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmaError {
    /// Physical address of the access.
    pub addr: u64,
    /// Length of the access in bytes (an empty access cannot fail). 32 bits with a niche, so
    /// a `Result<(), DmaError>` fits two registers and the packet path checks it in one.
    pub len: core::num::NonZeroU32,
}

impl DmaError {
    /// The error of an access of `len` bytes at `addr` (0 reads as 1, beyond 4 GiB as 4 GiB).
    pub fn new(addr: u64, len: usize) -> Self {
        let len = u32::try_from(len).unwrap_or(u32::MAX);
        DmaError { addr, len: core::num::NonZeroU32::new(len).unwrap_or(core::num::NonZeroU32::MIN) }
    }
}

impl core::fmt::Display for DmaError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DMA access of {} bytes at {:#x} refused by the platform", self.len, self.addr)
    }
}

impl core::error::Error for DmaError {}

/// Physically contiguous memory the engine can reach, addressed by physical address (the DMA
/// contract is in the [module documentation](self)).
pub trait DmaMemory {
    /// Allocates `size` bytes aligned to `align` (a power of two); `None` when none is left.
    fn dma_alloc(&self, size: usize, align: usize) -> Option<u64>;
    /// Gives back `size` bytes at `addr` that [`DmaMemory::dma_alloc`] returned.
    fn dma_free(&self, addr: u64, size: usize);
    /// Gives back a `size`-byte buffer of the platform's RX pool ([`RxPool::rx_alloc`]) that
    /// was never handed up: the ring's buffers when the driver is dropped, one refused above
    /// 4 GiB. A platform with an [`RxPool`] must implement it; the default does nothing, for
    /// platforms without one (they never lend a buffer, so never get the call). It lives here,
    /// not in [`RxPool`], because the driver's `Drop` serves every platform.
    fn rx_release(&self, addr: u64, size: usize) {
        let _ = (addr, size);
    }
    /// Write barrier: DMA memory writes before it are visible to the engine before any MMIO
    /// write after it (Linux `dma_wmb()`).
    fn dma_wmb(&self);
    /// Read barrier: DMA memory reads after it see what the engine wrote before the done bit
    /// that a read before it saw (Linux `dma_rmb()`).
    fn dma_rmb(&self);
    /// Copies `out.len()` bytes at physical address `addr` into `out`.
    fn dma_read(&self, addr: u64, out: &mut [u8]) -> Result<(), DmaError>;
    /// Copies `data` to physical address `addr`.
    fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError>;

    /// Reads `out.len()` little-endian 32-bit words (descriptors) at `addr`.
    fn dma_read_words(&self, addr: u64, out: &mut [u32]) -> Result<(), DmaError> {
        let mut at = addr;
        for chunk in out.chunks_mut(WORDS_PER_ACCESS) {
            let mut bytes = [0u8; WORDS_PER_ACCESS * 4];
            let buf = bytes.get_mut(..chunk.len() * 4).unwrap_or_default();
            self.dma_read(at, buf)?;
            for (w, c) in chunk.iter_mut().zip(buf.chunks_exact(4)) {
                *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
            at += buf.len() as u64;
        }
        Ok(())
    }

    /// Reads the descriptor of `out.len()` words at `addr` if its word `ctrl` has a bit of
    /// `done` set: that word first, then [`DmaMemory::dma_rmb`], then every word into `out`.
    /// Returns whether it was done (`out` then holds the descriptor; otherwise only
    /// `out[ctrl]` is meaningful).
    #[inline]
    fn dma_read_desc(&self, addr: u64, ctrl: usize, done: u32, out: &mut [u32]) -> Result<bool, DmaError> {
        let Some(w) = out.get_mut(ctrl) else { return Ok(false) };
        let mut c = [0u32];
        self.dma_read_words(addr + 4 * ctrl as u64, &mut c)?;
        *w = c[0];
        if c[0] & done == 0 {
            return Ok(false);
        }
        self.dma_rmb();
        self.dma_read_words(addr, out)?;
        Ok(true)
    }

    /// Writes `words` as little-endian 32-bit words (descriptors) at `addr`.
    fn dma_write_words(&self, addr: u64, words: &[u32]) -> Result<(), DmaError> {
        let mut at = addr;
        for chunk in words.chunks(WORDS_PER_ACCESS) {
            let mut bytes = [0u8; WORDS_PER_ACCESS * 4];
            let buf = bytes.get_mut(..chunk.len() * 4).unwrap_or_default();
            for (c, w) in buf.chunks_exact_mut(4).zip(chunk) {
                c.copy_from_slice(&w.to_le_bytes());
            }
            self.dma_write(at, buf)?;
            at += buf.len() as u64;
        }
        Ok(())
    }
}

/// A pool of RX buffers the platform lends ring 0, for zero-copy receive
/// ([`crate::Eth::poll_buffers`]); its part of the DMA contract is in the
/// [module documentation](self).
///
/// A Linux platform maps it onto a page pool: `rx_alloc` is `page_pool_dev_alloc_pages` and
/// its DMA address; `rx_swap` is that for the fresh buffer, then `dma_sync_single_for_cpu` and
/// `build_skb` over the filled one (the skb is [`RxPool::Buf`]); [`DmaMemory::rx_release`]
/// (which a pool platform implements too) is `page_pool_put_full_page`. The platform keeps the
/// headroom and tailroom `build_skb` needs around the address it lends. A firmware can lend
/// indices into a static buffer array. Buffers the stack got go back to the pool through the
/// stack (`kfree_skb`), not through the core.
///
/// Descriptors hold 32-bit addresses, so buffers are lent below 4 GiB (Linux: a 32-bit DMA
/// mask) and their addresses are `u32`. One call per frame ([`RxPool::rx_swap`]) rather than an
/// allocation and a take: the frame goes up only once its replacement is certain, and the
/// receive path makes as many platform calls as the copying one. Keep [`RxPool::Buf`] to 8
/// bytes (a pointer, an index) where you can: `rx_swap`'s answer then comes back in registers.
pub trait RxPool: Platform {
    /// What the stack owns once a frame is handed up: an skb or page, an index, a handle.
    type Buf;
    /// A fresh buffer of at least `size` bytes for the engine to fill (its DMA address, synced
    /// for the device); `None` when the pool is empty. Used to fill the ring at
    /// [`crate::Eth::rx_pool_attach`]; [`RxPool::rx_swap`] lends buffers of the same size.
    fn rx_alloc(&self, size: usize) -> Option<u32>;
    /// The buffer at `filled` holds a received frame of `len` bytes from its start: when the
    /// pool has a fresh buffer (of the ring's size), the filled one becomes the stack's
    /// (returned as [`RxPool::Buf`]) with the fresh one's address; otherwise `None` and nothing
    /// changes (the frame is dropped and its buffer posted again). Called after the
    /// descriptor's read barrier: the platform syncs the filled buffer for the CPU here where
    /// its DMA is not coherent.
    fn rx_swap(&self, filled: u32, len: usize) -> Option<(u32, Self::Buf)>;
}

/// Words the default word accessors move per byte access (a 32-byte stack buffer).
const WORDS_PER_ACCESS: usize = 8;

/// Time for the driver: a monotonic clock and a busy-wait or sleeping delay.
pub trait Clock {
    /// Nanoseconds since an arbitrary, fixed origin.
    fn now_ns(&self) -> u64;
    /// Waits at least `ns` nanoseconds.
    fn delay_ns(&self, ns: u64);
}

/// Everything the core needs from the machine it runs on.
pub trait Platform: DmaMemory + Clock {
    /// Bus onto the frame-engine registers (the Ethernet node's `reg`).
    type Fe: Bus;
    /// Bus onto a syscon's registers (ETHSYS, SGMIISYS, ...: every space but `fe`).
    type Syscon: Bus;
    /// The frame-engine bus (space `fe`, the hot path).
    fn fe(&self) -> Self::Fe;
    /// The bus of syscon space `space` (the generated space id; the SoC's capabilities say
    /// which device-tree property locates it), or `None` when the platform has no window for it
    /// (the board has no such syscon). Asked with [`Space::Fe`] it may give the frame engine.
    fn syscon(&self, space: Space) -> Option<Self::Syscon>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::RefCell;

    /// 256 bytes of DMA memory at physical address 0x1000.
    struct Mem(RefCell<[u8; 256]>);

    impl DmaMemory for Mem {
        fn dma_alloc(&self, _size: usize, _align: usize) -> Option<u64> {
            None
        }
        fn dma_free(&self, _addr: u64, _size: usize) {}
        fn dma_wmb(&self) {}
        fn dma_rmb(&self) {}
        fn dma_read(&self, addr: u64, out: &mut [u8]) -> Result<(), DmaError> {
            let at = usize::try_from(addr - 0x1000).unwrap();
            let m = self.0.borrow();
            out.copy_from_slice(m.get(at..at + out.len()).ok_or(DmaError::new(addr, out.len()))?);
            Ok(())
        }
        fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError> {
            let at = usize::try_from(addr - 0x1000).unwrap();
            let mut m = self.0.borrow_mut();
            m.get_mut(at..at + data.len()).ok_or(DmaError::new(addr, data.len()))?.copy_from_slice(data);
            Ok(())
        }
    }

    #[test]
    fn word_accessors_move_runs_longer_than_one_access() {
        let m = Mem(RefCell::new([0; 256]));
        let words: [u32; 21] = core::array::from_fn(|i| 0x0101_0101 * i as u32 + 7);
        m.dma_write_words(0x1004, &words).unwrap();
        let mut back = [0u32; 21];
        m.dma_read_words(0x1004, &mut back).unwrap();
        assert_eq!(back, words);
        assert_eq!(m.0.borrow()[4..8], 7u32.to_le_bytes(), "little-endian in memory");
    }

    #[test]
    fn word_accessors_report_the_access_that_failed() {
        let m = Mem(RefCell::new([0; 256]));
        let mut out = [0u32; 20];
        // Words 0..16 (two accesses) are inside; the third (words 16..20, at 0x1100) is not.
        let e = m.dma_read_words(0x10c0, &mut out).unwrap_err();
        assert_eq!(e, DmaError::new(0x1100, 16));
    }
}
