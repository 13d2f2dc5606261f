//! The small traits the driver core is generic over: register buses, DMA memory addressed by
//! physical address, and a clock.
//!
//! The core never holds a pointer into DMA memory: it asks the platform to copy bytes and
//! little-endian descriptor words in and out at physical addresses, so it stays free of `unsafe`.
//! Real MMIO lives in `fe_regs::mmio` and a platform crate; tests use the simulator.

use fe_regs::bus::Bus;

/// A DMA access the platform refused (outside DMA memory, or not mapped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DmaError {
    /// Physical address of the access.
    pub addr: u64,
    /// Length of the access in bytes.
    pub len: usize,
}

/// Physically contiguous memory the engine can reach, addressed by physical address.
pub trait DmaMemory {
    /// Allocates `size` bytes aligned to `align` (a power of two); `None` when none is left.
    fn dma_alloc(&self, size: usize, align: usize) -> Option<u64>;
    /// Copies `out.len()` bytes at physical address `addr` into `out`.
    fn dma_read(&self, addr: u64, out: &mut [u8]) -> Result<(), DmaError>;
    /// Copies `data` to physical address `addr`.
    fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError>;

    /// Reads `out.len()` little-endian 32-bit words (a descriptor) at `addr`.
    fn dma_read_words(&self, addr: u64, out: &mut [u32]) -> Result<(), DmaError> {
        let mut bytes = [0u8; 32];
        let len = out.len() * 4;
        let buf = bytes.get_mut(..len).ok_or(DmaError { addr, len })?;
        self.dma_read(addr, buf)?;
        for (w, c) in out.iter_mut().zip(buf.chunks_exact(4)) {
            *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        Ok(())
    }

    /// Writes `words` as little-endian 32-bit words (a descriptor) at `addr`.
    fn dma_write_words(&self, addr: u64, words: &[u32]) -> Result<(), DmaError> {
        let mut bytes = [0u8; 32];
        let len = words.len() * 4;
        let buf = bytes.get_mut(..len).ok_or(DmaError { addr, len })?;
        for (c, w) in buf.chunks_exact_mut(4).zip(words) {
            c.copy_from_slice(&w.to_le_bytes());
        }
        self.dma_write(addr, buf)
    }
}

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
    /// Bus onto the ETHSYS syscon registers (`mediatek,ethsys`).
    type Ethsys: Bus;
    /// The frame-engine bus.
    fn fe(&self) -> Self::Fe;
    /// The ETHSYS bus.
    fn ethsys(&self) -> Self::Ethsys;
}
