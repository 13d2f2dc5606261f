//! The simulated chip as the driver core's [`Platform`], behind its own lock.
//!
//! The split handles ([`fe_driver::Eth::split`]) run on several CPUs at once: `ndo_start_xmit`
//! on [`fe_driver::EthTx`], NAPI on [`fe_driver::EthRx`], the interrupt path on
//! [`fe_driver::EthIrq`], ethtool on [`fe_driver::EthCtl`]. Each handle has its own lock in the
//! glue (or none). What they all share is the chip: on a real board that is the hardware,
//! which needs no lock (MMIO is atomic per word, the DMA API's barriers order memory, and the
//! interrupt masks change through a locked read-modify-write); here it is the simulator, a
//! single-threaded model (`RefCell` inside), so every access to it takes the glue's chip lock
//! (`fe_eth.chip_lock`, innermost of the module's locks), for one register or DMA access at a
//! time, and selects the model's CPU ([`Sim::select_cpu`]) so each kernel CPU has its own write
//! buffer and read ordering, as a multi-core SoC has.

use core::ffi::c_void;
use fe_driver::platform::{Clock, DmaError, DmaMemory, Platform};
use fe_regs::Space;
use fe_regs::bus::Bus;
use fe_sim::Sim;

unsafe extern "C" {
    /// Takes the chip lock `lock` (a `spin_lock_bh`; any context but hard IRQ) and returns the
    /// current CPU's number.
    fn fe_kmod_chip_lock(lock: *mut c_void) -> u32;
    /// Releases what [`fe_kmod_chip_lock`] took.
    fn fe_kmod_chip_unlock(lock: *mut c_void);
}

/// The simulator and the glue's lock that serialises every access to it.
#[derive(Clone, Copy, Debug)]
pub struct Chip {
    sim: *const Sim,
    lock: *mut c_void,
    /// The zero-copy RX pool ([`crate::rxpool`]), null when zero-copy is off.
    pool: *const crate::rxpool::Pool,
}

// SAFETY: every access to the simulator goes through `Chip::with`, which holds the glue's
// spinlock, so the model's interior mutability is used by one CPU at a time; the pointers stay
// valid until the module frees the simulator after every user is gone (see `dev.rs`).
unsafe impl Send for Chip {}
// SAFETY: as for `Send`.
unsafe impl Sync for Chip {}

impl Chip {
    /// The simulator at `sim`, guarded by the glue's lock `lock`.
    ///
    /// # Safety
    /// `sim`, `lock` and `pool` (null or a pool) stay valid as long as any copy of the result is used, and nothing
    /// touches the simulator except through [`Chip::with`] meanwhile.
    pub unsafe fn new(sim: *const Sim, lock: *mut c_void, pool: *const crate::rxpool::Pool) -> Self {
        Chip { sim, lock, pool }
    }

    /// The zero-copy RX pool, if there is one.
    pub fn pool(&self) -> Option<&crate::rxpool::Pool> {
        // SAFETY: the pool lives as long as the chip (`Chip::new`'s contract).
        unsafe { self.pool.as_ref() }
    }

    /// Runs `f` on the simulator under the chip lock, as the current CPU. `f` must not call
    /// back into the chip (the lock is not recursive).
    #[inline]
    pub fn with<R>(&self, f: impl FnOnce(&Sim) -> R) -> R {
        // SAFETY: the glue's hooks; `lock` is valid (`Chip::new`'s contract).
        let cpu = unsafe { fe_kmod_chip_lock(self.lock) };
        // SAFETY: `sim` is valid, and the lock makes this the only user right now.
        let sim = unsafe { &*self.sim };
        sim.select_cpu(cpu as usize);
        let r = f(sim);
        // SAFETY: taken above.
        unsafe { fe_kmod_chip_unlock(self.lock) };
        r
    }

    /// The simulator without the lock, for the module's bring-up and teardown only.
    ///
    /// # Safety
    /// No other context can reach the chip (before the handles run, after they stopped).
    pub unsafe fn unlocked(&self) -> &Sim {
        // SAFETY: caller's contract.
        unsafe { &*self.sim }
    }
}

/// One register space of the chip (the frame engine or a syscon), by the generated space id.
#[derive(Clone, Copy, Debug)]
pub struct ChipBus {
    chip: Chip,
    space: Space,
}

impl ChipBus {
    /// Runs `f` on the simulator's bus of this space, under the chip lock (a space the
    /// simulated SoC lacks reads all ones and drops writes, as an undecoded address would; the
    /// driver only asks for spaces `Platform::syscon` gave it).
    #[inline]
    fn with<R>(&self, f: impl FnOnce(&dyn Bus) -> R) -> R {
        let space = self.space;
        self.chip.with(|sim| match sim.space(space) {
            Some(bus) => f(&bus),
            None => f(&Undecoded),
        })
    }
}

/// A space the simulated SoC does not have.
struct Undecoded;

impl Bus for Undecoded {
    fn read32(&self, _offset: usize) -> u32 {
        u32::MAX
    }
    fn write32(&self, _offset: usize, _value: u32) {}
}

impl Bus for ChipBus {
    fn read32(&self, offset: usize) -> u32 {
        self.with(|b| b.read32(offset))
    }
    fn write32(&self, offset: usize, value: u32) {
        self.with(|b| b.write32(offset, value));
    }
    /// The read and the write under one hold of the chip lock: atomic against every other
    /// access (the interrupt masks, which the tick masks and NAPI unmasks on other CPUs).
    fn modify32(&self, offset: usize, mask: u32, value: u32) {
        self.with(|b| {
            let v = b.read32(offset);
            b.write32(offset, (v & !mask) | (value & mask));
        });
    }
}

impl DmaMemory for Chip {
    fn dma_alloc(&self, size: usize, align: usize) -> Option<u64> {
        self.with(|s| s.dma_alloc(size, align))
    }
    fn dma_free(&self, addr: u64, size: usize) {
        self.with(|s| s.dma_free(addr, size));
    }
    fn rx_release(&self, addr: u64, _size: usize) {
        if let Some(pool) = self.pool() {
            pool.release(self, addr);
        }
    }
    fn dma_wmb(&self) {
        self.with(Sim::dma_wmb);
    }
    fn dma_rmb(&self) {
        self.with(Sim::dma_rmb);
    }
    fn dma_read(&self, addr: u64, out: &mut [u8]) -> Result<(), DmaError> {
        self.with(|s| s.cpu_read_into(addr, out)).map_err(|_| DmaError::new(addr, out.len()))
    }
    fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError> {
        self.with(|s| s.cpu_write(addr, data)).map_err(|_| DmaError::new(addr, data.len()))
    }
    /// The done word, the read barrier and the whole descriptor under one hold of the lock
    /// (the same sequence as the default, a third of the lock round trips).
    fn dma_read_words(&self, addr: u64, out: &mut [u32]) -> Result<(), DmaError> {
        self.with(|s| s.cpu_read_words(addr, out)).map_err(|_| DmaError::new(addr, 4 * out.len()))
    }
    fn dma_write_words(&self, addr: u64, words: &[u32]) -> Result<(), DmaError> {
        self.with(|s| s.cpu_write_words(addr, words)).map_err(|_| DmaError::new(addr, 4 * words.len()))
    }
    fn dma_read_desc(&self, addr: u64, ctrl: usize, done: u32, out: &mut [u32]) -> Result<bool, DmaError> {
        self.with(|s| {
            let Some(w) = out.get_mut(ctrl) else { return Ok(false) };
            let mut c = [0u32];
            s.cpu_read_words(addr + 4 * ctrl as u64, &mut c).map_err(|_| DmaError::new(addr, 4))?;
            *w = c[0];
            if *w & done == 0 {
                return Ok(false);
            }
            s.dma_rmb();
            s.cpu_read_words(addr, out).map_err(|_| DmaError::new(addr, 4 * out.len()))?;
            Ok(true)
        })
    }
}

impl Clock for Chip {
    fn now_ns(&self) -> u64 {
        self.with(Sim::now)
    }
    fn delay_ns(&self, ns: u64) {
        self.with(|s| s.advance(ns));
    }
}

impl Platform for Chip {
    type Fe = ChipBus;
    type Syscon = ChipBus;
    fn fe(&self) -> ChipBus {
        ChipBus { chip: *self, space: Space::Fe }
    }
    fn syscon(&self, space: Space) -> Option<ChipBus> {
        let chip = *self;
        chip.with(|sim| sim.space(space).is_some()).then_some(ChipBus { chip, space })
    }
}
