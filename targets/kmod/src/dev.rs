//! The one file that touches the driver core's API: a bundled board probed, the simulator
//! standing in for the SoC, the core brought up on it and split into its handles
//! ([`Eth::split`]), and the `fe_rs_*` functions the C glue calls from several CPUs at once.
//! Each function says which context calls it and under which of the glue's locks:
//!
//! * TX ([`fe_rs_xmit`], [`fe_rs_reclaim`]): the [`EthTx`] handle, under `fe_eth.tx_lock`;
//! * RX ([`fe_rs_poll`]): the [`EthRx`] handle and SoftLRO, from NAPI only (NAPI serialises
//!   itself; no lock);
//! * interrupts ([`fe_rs_irq`], [`fe_rs_irq_enable`]): the [`EthIrq`] handle (`&self`), no lock;
//! * control ([`fe_rs_set_features`], [`fe_rs_stats`]): the [`EthCtl`] handle, under
//!   `fe_eth.ctl_lock`;
//! * the whole engine ([`fe_rs_set_features_whole`], [`fe_rs_close`]): the handles are dropped
//!   and the engine reunited; the glue has stopped NAPI, the tick and every TX queue first;
//! * the chip (the simulator and its wires): [`crate::chip::Chip`], under `fe_eth.chip_lock`,
//!   innermost, one access at a time.
//!
//! The glue's soft hrtimer is the chip's clock and interrupt lines ([`fe_rs_irq`]); NAPI polls
//! what the core's interrupt handler masked and unmasks it when drained ([`fe_rs_irq_enable`]).
//!
//! The wires: the enabled MACs with a link are paired in order, back to back (MAC A's TX is
//! MAC B's RX and the other way round), so every frame of a ping or iperf3 between the two
//! namespaces crosses the core's TX path on one MAC and its RX path on the other. A MAC left
//! without a partner (one enabled MAC, or an odd count) is wired to a peer net_device of the
//! glue instead: what the MAC sends goes to `fe_kmod_peer_rx`, what the peer sends
//! ([`fe_rs_peer_send`]) arrives at the MAC.
//!
//! Large values (the `Board`, the `Eth` with its 16 KiB RX scratch buffer) are written straight
//! into heap slots (`Box::new_uninit`), never kept on the 16 KiB kernel stack.

use crate::boards::BOARDS;
use crate::chip::Chip;
use crate::klog;
use crate::rxpool::{HEADROOM, Pool};
use alloc::boxed::Box;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::UnsafeCell;
use core::ffi::c_void;
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};
use fe_driver::dt::{self, Board, Duplex, ProbeError};
use fe_driver::softlro::SoftLro;
use fe_driver::softlro::{FlushReason, LroStats};
use fe_driver::{
    Eth, EthCtl, EthError, EthIrq, EthRx, EthTx, Features, IrqWork, LinkState, LroMode, Platform as _, Received,
    RxChecksum, TxError, TxMeta, TxParts,
};
use fe_regs::SocInfo;
use fe_regs::caps::IrqLayout;
use fe_sim::Sim;

/// Bytes of DMA memory the simulator gets from the kernel's DMA API: rings, buffers and the
/// free queue of every bundled board need about 2.5 MiB; the rest is the zero-copy RX pool's
/// (pages the stack holds while sockets queue them: a TCP receive buffer takes up to ~1500).
pub const DMA_BYTES: usize = 16 << 20;
/// The least DMA memory the module takes (rings, buffers and a small pool).
pub const DMA_BYTES_MIN: usize = 4 << 20;

/// A region of coherent DMA memory from the kernel (`dma_alloc_coherent` through the glue).
#[derive(Debug)]
struct DmaRegion {
    cpu: *mut u8,
    size: usize,
    dma: u64,
}

impl DmaRegion {
    /// [`DMA_BYTES`] of coherent DMA memory, or [`DMA_BYTES_MIN`] where no contiguous area
    /// that large exists (a kernel without CMA allocates at most 4 MiB at once), or `None`
    /// (the glue logged why).
    fn alloc() -> Option<Self> {
        [DMA_BYTES, DMA_BYTES_MIN].into_iter().find_map(|size| {
            let mut dma = 0u64;
            // SAFETY: the glue's hook; it writes `dma` when it returns non-null.
            let cpu = unsafe { fe_kmod_dma_alloc(size, &mut dma) };
            (!cpu.is_null()).then_some(DmaRegion { cpu, size, dma })
        })
    }

    /// The region as the simulator's memory, for as long as the simulator lives.
    ///
    /// # Safety
    /// Called once; the region is freed ([`DmaRegion::free`]) only after everything that got
    /// the slice is dropped.
    unsafe fn lend(&self) -> &'static mut [u8] {
        // SAFETY: `cpu` is valid for `size` bytes (zeroed by dma_alloc_coherent) until freed,
        // and the caller hands the slice to one owner.
        unsafe { core::slice::from_raw_parts_mut(self.cpu, self.size) }
    }

    /// Gives the region back to the kernel.
    ///
    /// # Safety
    /// Nothing uses the lent slice any more.
    unsafe fn free(self) {
        // SAFETY: caller's contract; the values are the ones the allocation returned.
        unsafe { fe_kmod_dma_free(self.cpu, self.size, self.dma) }
    }
}

unsafe extern "C" {
    /// `size` bytes of coherent DMA memory for the module's device (`dma_alloc_coherent`, 32-bit
    /// mask), its bus address in `*dma`; null when none is left. Process context only.
    fn fe_kmod_dma_alloc(size: usize, dma: *mut u64) -> *mut u8;
    /// Frees what `fe_kmod_dma_alloc` returned. Process context only.
    fn fe_kmod_dma_free(cpu: *mut u8, size: usize, dma: u64);
    /// Whether the region at `cpu` (`size` bytes) lies in the linear map and is made of pages
    /// with a reference count each, so that its pages can go up as skbs (zero-copy receive).
    fn fe_kmod_dma_pages_ok(cpu: *const u8, size: usize) -> bool;
}

/// Most MACs (net_devices) one engine has.
pub const MAX_MACS: usize = fe_driver::dt::board::MAX_MACS;
/// SoftLRO flows held at once, each in a slot big enough for a 64 KiB aggregate.
const LRO_FLOWS: usize = 8;
/// Bytes of one SoftLRO slot.
const LRO_SLOT: usize = 65536 + 128;
/// Simulated time one [`fe_rs_step`] runs at most while frames are in flight: 81 full-size
/// frames per MAC at 1 Gbit/s, so two MACs receiving at line rate stay inside RX ring 0 (256
/// descriptors). With nothing in flight a step runs the whole way.
pub const SUB_STEP_NS: u64 = 1_000_000;
/// Bytes a frame occupies on the wire beyond its data: preamble, FCS, inter-frame gap.
const WIRE_OVERHEAD: u64 = 24;
/// How far simulated time may lag the kernel clock before the excess is skipped.
pub const MAX_LAG_NS: u64 = 20_000_000;
/// Words of the `ethtool -d` dump: this MAC's GDMA_FWD_CFG, then every GDMA's.
pub const REGS_WORDS: usize = 1 + MAX_MACS;

type Plat = Chip;

/// What the glue needs to create its net_devices (filled by [`fe_rs_create`]).
#[repr(C)]
#[derive(Debug)]
pub struct FeRsInfo {
    /// net_devices to create: one per enabled MAC.
    pub nmacs: u32,
    /// Their MAC ids.
    pub mac: [u8; MAX_MACS],
    /// Each one's link partner on the simulated wire (MAC id), 0xff for a peer net_device.
    pub partner: [u8; MAX_MACS],
    /// The SoC name, NUL-terminated.
    pub soc: [u8; 16],
}

/// The chip's side of the module: where simulated time stands against the kernel clock and
/// what is on the wires. Used only under the chip lock ([`Chip::with`]).
struct Wires {
    /// Each MAC's link partner on the simulated wire (MAC id), `None` for a peer net_device.
    partner: [Option<u8>; MAX_MACS],
    /// Kernel time (ns) at simulated time 0.
    base_ns: u64,
    /// Simulated time skipped because the kernel clock ran ahead by more than a step.
    skipped_ns: u64,
    /// Frames a MAC without a partner MAC sent (to the glue's peer net_device).
    unpaired: u64,
    /// Simulated time by which every frame put on a wire so far has arrived (an upper bound).
    idle_at: u64,
    /// Link speed of each MAC (Mbit/s), as the simulator's wires run it.
    speed: [u64; MAX_MACS],
}

/// The engine's four handles ([`Eth::split`]), each used by one context at a time.
struct Handles {
    tx: UnsafeCell<EthTx<'static, Plat>>,
    rx: UnsafeCell<EthRx<'static, Plat>>,
    irq: EthIrq<'static, Plat>,
    ctl: UnsafeCell<EthCtl<'static, Plat>>,
}

/// One frame engine: the simulator, the driver core on it (split into its handles), SoftLRO,
/// the wires. Shared by every CPU (`&FeRsDev`): each part says who may use it.
pub struct FeRsDev {
    sim: *mut Sim,
    /// The zero-copy RX pool (null when off), freed after the engine.
    pool: *mut Pool,
    /// Frames NAPI handed up in their own DMA buffer.
    rx_zero_copy: AtomicU64,
    /// The simulator behind the chip lock: the platform of the core.
    chip: Chip,
    /// The simulator's DMA memory (freed after the simulator).
    dma: DmaRegion,
    eth_slot: *mut Result<Eth<Plat>, EthError>,
    eth: *mut Eth<Plat>,
    /// The handles while the engine runs split; `None` while it is whole (bring-up, a
    /// whole-engine feature change, close). Changed only while no handle is in use.
    handles: UnsafeCell<Option<Handles>>,
    lro_storage: *mut [u8],
    /// SoftLRO: NAPI's (the RX context's) only.
    lro: *mut SoftLro<'static>,
    soc: &'static SocInfo,
    /// The TX queue of each MAC (`Eth::queue_for_mac`).
    queue: [u8; MAX_MACS],
    /// Under the chip lock only.
    wires: UnsafeCell<Wires>,
    /// TX descriptors free, as the TX context last saw them (read by the chip's pacing).
    tx_room: AtomicU32,
    /// SoftLRO's counters as NAPI last saw them (for `ethtool -S`, which does not touch RX).
    lro_counts: [AtomicU64; LRO_COUNTS],
}

/// SoftLRO counters `ethtool -S` shows (from [`fe_driver::softlro::LroStats`]): what goes in,
/// what comes out, and why each aggregate was closed.
const LRO_COUNTS: usize = 6 + FlushReason::COUNT;

/// The SoftLRO counters of [`LRO_COUNTS`], in order, with their `ethtool -S` names.
fn lro_counts(s: &LroStats, out: &mut dyn FnMut(&str, u64)) {
    out("softlro_frames_in", s.frames_in);
    out("softlro_frames_out", s.frames_out);
    out("softlro_aggregates", s.aggregates_out);
    out("softlro_segments_merged", s.segments_merged);
    out("softlro_flushes", s.flushes_total());
    out("softlro_passed", s.passed_total());
    for &r in FlushReason::ALL {
        let mut name = [0u8; STAT_NAME_LEN];
        let (p, n) = (b"softlro_flush_", r.name().as_bytes());
        let k = (p.len() + n.len()).min(STAT_NAME_LEN);
        name[..p.len()].copy_from_slice(p);
        name[p.len()..k].copy_from_slice(&n[..k - p.len()]);
        out(core::str::from_utf8(&name[..k]).unwrap_or("softlro_flush_?"), s.flushes(r));
    }
}

impl FeRsDev {
    /// The whole engine.
    ///
    /// # Safety
    /// No handle is in use (the glue stopped NAPI, the tick and TX, or they never ran), and
    /// the caller has the only reference.
    #[allow(clippy::mut_from_ref)]
    unsafe fn whole(&self) -> &mut Eth<Plat> {
        // SAFETY: caller's contract; `eth` points into `eth_slot`, alive until destroy.
        unsafe {
            *self.handles.get() = None;
            &mut *self.eth
        }
    }

    /// Splits the whole engine into its handles (again).
    ///
    /// # Safety
    /// As [`FeRsDev::whole`].
    unsafe fn split(&self) {
        // SAFETY: caller's contract: nothing else borrows the engine; the handles live in
        // `self` and are dropped (by `whole` or destroy) before the engine is.
        unsafe {
            let s = (*self.eth).split();
            *self.handles.get() = Some(Handles {
                tx: UnsafeCell::new(s.tx),
                rx: UnsafeCell::new(s.rx),
                irq: s.irq,
                ctl: UnsafeCell::new(s.ctl),
            });
        }
    }

    /// The handles, `None` while the engine is whole.
    fn handles(&self) -> Option<&Handles> {
        // SAFETY: `handles` changes only while no handle is in use (`whole`, `split`).
        unsafe { (*self.handles.get()).as_ref() }
    }

    /// The TX handle.
    ///
    /// # Safety
    /// The caller holds the glue's TX lock.
    #[allow(clippy::mut_from_ref)]
    unsafe fn tx(&self) -> Option<&mut EthTx<'static, Plat>> {
        // SAFETY: the TX lock makes this the only user of the TX handle.
        self.handles().map(|h| unsafe { &mut *h.tx.get() })
    }

    /// The RX handle.
    ///
    /// # Safety
    /// The caller is NAPI (which never runs twice at once).
    #[allow(clippy::mut_from_ref)]
    unsafe fn rx(&self) -> Option<&mut EthRx<'static, Plat>> {
        // SAFETY: NAPI is the only user of the RX handle.
        self.handles().map(|h| unsafe { &mut *h.rx.get() })
    }

    /// The control handle.
    ///
    /// # Safety
    /// The caller holds the glue's control lock.
    #[allow(clippy::mut_from_ref)]
    unsafe fn ctl(&self) -> Option<&mut EthCtl<'static, Plat>> {
        // SAFETY: the control lock makes this the only user of the control handle.
        self.handles().map(|h| unsafe { &mut *h.ctl.get() })
    }

    /// The interrupt handle (shared freely).
    fn irq(&self) -> Option<EthIrq<'static, Plat>> {
        self.handles().map(|h| h.irq)
    }

    /// Runs `f` on the simulator and the wires under the chip lock.
    fn chip<R>(&self, f: impl FnOnce(&Sim, &mut Wires) -> R) -> R {
        self.chip.with(|sim| {
            // SAFETY: the chip lock makes this the only user of the wires.
            let w = unsafe { &mut *self.wires.get() };
            f(sim, w)
        })
    }
}

fn name_of(ptr: *const u8, len: usize) -> &'static [u8] {
    if ptr.is_null() {
        return &[];
    }
    // SAFETY: the glue passes a module parameter string valid for the module's lifetime.
    unsafe { core::slice::from_raw_parts(ptr, len) }
}

/// What [`fe_rs_probe`] found: the board's name and the probe's result.
pub struct FeRsProbed {
    board: &'static str,
    /// The board the probe wrote in place (`dt::probe_into`), when `error` is `None`.
    slot: core::mem::MaybeUninit<Board<'static>>,
    error: Option<ProbeError<'static>>,
    /// The module's copy of a blob the glue loaded (`dtb=`), which the board and the error
    /// borrow; null for a bundled board. Freed with this value.
    owned: *mut [u8],
}

impl Drop for FeRsProbed {
    fn drop(&mut self) {
        // The board and the error borrow the blob: gone first (neither has drop glue).
        self.error = None;
        if !self.owned.is_null() {
            // SAFETY: `owned` came from `Box::into_raw` in `fe_rs_probe`, and nothing borrows it now.
            drop(unsafe { Box::from_raw(self.owned) });
        }
    }
}

impl FeRsProbed {
    /// The probed board, or why the probe failed.
    fn result(&self) -> Result<&Board<'static>, &ProbeError<'static>> {
        match &self.error {
            Some(e) => Err(e),
            // SAFETY: `fe_rs_probe` wrote the board whenever it recorded no error.
            None => Ok(unsafe { self.slot.assume_init_ref() }),
        }
    }
}

/// Which board [`fe_rs_probe`] probes: a bundled one by name, or a device tree blob the glue
/// loaded.
#[repr(C)]
#[derive(Debug)]
pub struct FeRsProbeArg {
    /// The board's name (a `dts/` file stem, or the blob's file name), not NUL-terminated.
    pub name: *const u8,
    /// Its length.
    pub len: usize,
    /// A device tree blob to probe instead of a bundled board (null: bundled).
    pub blob: *const u8,
    /// Its length in bytes.
    pub blob_len: usize,
}

/// Most bytes of a device tree blob the module copies (a board's DTB is a few KiB; the glue
/// refuses larger ones before the probe, `FE_DTB_MAX`).
const BLOB_MAX: usize = 1 << 20;

/// Probes the board `arg` names into a heap slot (a `FeRsProbed`): the blob it carries (copied,
/// so the glue may release its firmware buffer at once), else the bundled board of that name.
/// Null when no bundled board has that name or the blob is empty or too large. Allocates and
/// prints nothing else. Runs on the kernel stack in process context (no frame of it above
/// 2 KiB; the glue measures the depth it reaches).
///
/// # Safety
/// `arg` points to a valid [`FeRsProbeArg`] whose name lives as long as the module, and whose
/// blob, when not null, is valid for `blob_len` bytes during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_probe(arg: *mut c_void) -> *mut c_void {
    // SAFETY: caller's contract.
    let a = unsafe { &*arg.cast::<FeRsProbeArg>() };
    let name = name_of(a.name, a.len);
    let (board, dtb, owned): (&'static str, &'static [u8], *mut [u8]) = if a.blob.is_null() {
        let Some(&(board, dtb)) = BOARDS.iter().find(|(b, _)| b.as_bytes() == name) else {
            return core::ptr::null_mut();
        };
        (board, dtb, core::ptr::slice_from_raw_parts_mut(core::ptr::null_mut(), 0))
    } else {
        if a.blob_len == 0 || a.blob_len > BLOB_MAX {
            return core::ptr::null_mut();
        }
        // SAFETY: caller's contract: the blob is valid for `blob_len` bytes.
        let blob = unsafe { core::slice::from_raw_parts(a.blob, a.blob_len) };
        let owned = Box::into_raw(Box::<[u8]>::from(blob));
        // SAFETY: freed only when the `FeRsProbed` that records it is dropped, after the
        // board and the error that borrow it.
        let dtb: &'static [u8] = unsafe { &*owned };
        (core::str::from_utf8(name).unwrap_or("dtb"), dtb, owned)
    };
    let mut slot: Box<core::mem::MaybeUninit<FeRsProbed>> = Box::new_uninit();
    let p = slot.as_mut_ptr();
    // The probe writes the board straight into the heap slot (`probe_into`): no frame holds a
    // copy of it.
    // SAFETY: `p` is valid for writes; `board` and `error` are written before the slot is read,
    // and `slot` is a `MaybeUninit`, valid to borrow uninitialised.
    unsafe {
        (&raw mut (*p).board).write(board);
        (&raw mut (*p).owned).write(owned);
        let error = dt::probe_into(dtb, &mut (*p).slot).err();
        (&raw mut (*p).error).write(error);
    }
    Box::into_raw(slot).cast()
}

/// Takes [`fe_rs_probe`]'s result `p` for board `name`, logging why it failed.
fn probed(p: *mut c_void, name: &[u8]) -> Option<Box<FeRsProbed>> {
    if p.is_null() {
        klog!(Err, "no bundled board {:?}; bundled:", core::str::from_utf8(name).unwrap_or("?"));
        for (b, _) in BOARDS {
            klog!(Err, "  {b}");
        }
        return None;
    }
    // SAFETY: a non-null result of `fe_rs_probe` is a boxed, initialised `FeRsProbed`.
    let p = unsafe { Box::from_raw(p.cast::<FeRsProbed>()) };
    match p.result() {
        Ok(b) => {
            klog!(
                Info,
                "board {}: {} ({}), {} enabled MACs",
                p.board,
                b.soc.name,
                b.compatible,
                b.enabled_macs().count()
            );
            Some(p)
        }
        Err(e) => {
            klog!(Err, "board {}: {e}", p.board);
            None
        }
    }
}

/// The driver for `board` on `chip`, on the heap. Out of line: the value (about 1.9 KiB; its
/// tables are on the heap already) is this function's only local, so no frame holds it beside
/// anything else.
#[inline(never)]
fn boxed_eth(board: &Board<'_>, chip: Chip) -> Box<Result<Eth<Plat>, EthError>> {
    Box::new(Eth::new(board, chip))
}

/// Creates the engine for board `name` (valid for `len` bytes) from [`fe_rs_probe`]'s result
/// `probed_board`: the simulator with its DMA memory, guarded by the glue's chip lock
/// `chip_lock` (a `spinlock_t` for [`crate::chip`]), the driver core and SoftLRO; `open`, links
/// up, wires paired, the engine split into its handles; fills `info`. Null on failure (the
/// reason is in the kernel log; everything is freed). Runs on the kernel stack in process
/// context (no frame of it above 2 KiB; the glue measures the depth it reaches).
///
/// # Safety
/// `probed_board` is null or a result of [`fe_rs_probe`] (taken over); `name` is valid for
/// `len` bytes; `chip_lock` is an initialised spinlock that outlives the engine; `info` is
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_create(
    probed_board: *mut c_void,
    name: *const u8,
    len: usize,
    chip_lock: *mut c_void,
    info: *mut FeRsInfo,
) -> *mut FeRsDev {
    let Some(probed) = probed(probed_board, name_of(name, len)) else { return core::ptr::null_mut() };
    let Ok(board) = probed.result() else { return core::ptr::null_mut() };
    let Some(dma) = DmaRegion::alloc() else {
        klog!(Err, "no {DMA_BYTES_MIN} bytes of coherent DMA memory for the simulator");
        return core::ptr::null_mut();
    };
    // SAFETY: lent once, to the simulator, which `fe_rs_destroy` drops before freeing `dma`.
    let sim = Sim::with_dma_region(board.soc, unsafe { dma.lend() }, dma.dma);
    // The frame-engine window the board names (SRAM rings are found there).
    sim.place_fe(board.reg.base, board.reg.size);
    let sim = Box::into_raw(Box::new(sim));
    // SAFETY: `dma` is the region just allocated.
    let pool: *mut Pool = if unsafe { fe_kmod_dma_pages_ok(dma.cpu, dma.size) } {
        Box::into_raw(Box::new(Pool::new(dma.cpu, dma.dma, dma.size)))
    } else {
        klog!(Warn, "zero-copy RX off: the DMA region is not made of pages the stack can hold");
        core::ptr::null_mut()
    };
    // SAFETY: the simulator and the pool live until `fe_rs_destroy`, after every user of the
    // chip; the lock is the caller's.
    let chip = unsafe { Chip::new(sim, chip_lock, pool) };
    klog!(Info, "simulator DMA memory: {} KiB of coherent memory at bus address {:#x}", dma.size >> 10, dma.dma);
    let lro_storage: *mut [u8] = Box::into_raw(vec![0u8; LRO_FLOWS * LRO_SLOT].into_boxed_slice());
    // SAFETY: the storage lives until `fe_rs_destroy`, which drops SoftLRO first.
    let lro = match SoftLro::try_new(unsafe { &mut *lro_storage }, LRO_FLOWS) {
        Ok(l) => Box::into_raw(Box::new(l)),
        Err(e) => {
            klog!(Err, "SoftLRO: {e}");
            core::ptr::null_mut()
        }
    };
    let eth_slot = Box::into_raw(boxed_eth(board, chip));
    // SAFETY: just built.
    let eth: *mut Eth<Plat> = match unsafe { &mut *eth_slot } {
        Ok(e) => e,
        Err(_) => core::ptr::null_mut(),
    };
    let dev = Box::new(FeRsDev {
        sim,
        pool,
        rx_zero_copy: AtomicU64::new(0),
        chip,
        dma,
        eth_slot,
        eth,
        handles: UnsafeCell::new(None),
        lro_storage,
        lro,
        soc: board.soc,
        queue: [0; MAX_MACS],
        wires: UnsafeCell::new(Wires {
            partner: [None; MAX_MACS],
            base_ns: 0,
            skipped_ns: 0,
            unpaired: 0,
            idle_at: 0,
            speed: [1000; MAX_MACS],
        }),
        tx_room: AtomicU32::new(0),
        lro_counts: [const { AtomicU64::new(0) }; LRO_COUNTS],
    });
    if eth.is_null() || lro.is_null() {
        // SAFETY: `eth_slot` holds the driver or its error.
        if let Err(e) = unsafe { &*eth_slot } {
            klog!(Err, "Eth::new: {e}");
        }
        // SAFETY: `dev` owns everything and is not used again.
        unsafe { fe_rs_destroy(Box::into_raw(dev)) };
        return core::ptr::null_mut();
    }
    // Nothing runs yet: the engine is whole and the wires are ours without the lock.
    // SAFETY: only this function knows `dev` so far.
    let (e, w) = unsafe { (dev.whole(), &mut *dev.wires.get()) };
    for m in board.enabled_macs() {
        if let Some(speed) = m.link.fixed_speed() {
            chip.with(|sim| sim.set_link_speed(usize::from(m.id), speed));
            w.speed[usize::from(m.id) % MAX_MACS] = u64::from(speed.max(1));
        }
    }
    // Zero-copy receive: ring 0 gets pool pages (while closed).
    if chip.pool().is_some() {
        match e.rx_pool_attach() {
            Ok(()) => klog!(Info, "zero-copy RX: ring 0 lent {} pool pages", chip.pool().map_or(0, |p| p.counts().1)),
            Err(err) => klog!(Warn, "zero-copy RX off: rx_pool_attach: {err}"),
        }
    }
    if let Err(e) = e.open() {
        klog!(Err, "open: {e}");
        // SAFETY: `dev` owns everything and is not used again.
        unsafe { fe_rs_destroy(Box::into_raw(dev)) };
        return core::ptr::null_mut();
    }
    // A MAC without a fixed link (SFP cage, PHY) comes up at its PHY mode's natural speed, as
    // its simulated partner answers at once.
    for m in board.enabled_macs().filter(|m| m.link.fixed_speed().is_none()) {
        let speed = match m.phy_mode {
            "2500base-x" => 2500,
            "mii" | "rmii" => 100,
            _ => 1000,
        };
        chip.with(|sim| sim.set_link_speed(usize::from(m.id), speed));
        w.speed[usize::from(m.id) % MAX_MACS] = u64::from(speed);
        if let Err(err) = e.link_up(m.id, LinkState { speed, duplex: Duplex::Full, pause: true }) {
            klog!(Warn, "link up mac {}: {err}", m.id);
        }
    }
    let macs: Vec<u8> = e.enabled_macs().map(|m| m.id).collect();
    let linked: Vec<u8> = e.enabled_macs().filter(|m| m.link.is_some()).map(|m| m.id).collect();
    for pair in linked.chunks_exact(2) {
        w.partner[usize::from(pair[0])] = Some(pair[1]);
        w.partner[usize::from(pair[1])] = Some(pair[0]);
    }
    let mut queue = [0u8; MAX_MACS];
    for (m, q) in queue.iter_mut().enumerate() {
        *q = e.queue_for_mac(m as u8);
    }
    dev.tx_room.store(e.tx_room() as u32, Relaxed);
    // SAFETY: as above.
    let info = unsafe { &mut *info };
    info.nmacs = 0;
    info.mac = [0xff; MAX_MACS];
    info.partner = [0xff; MAX_MACS];
    for (i, &m) in macs.iter().take(MAX_MACS).enumerate() {
        info.mac[i] = m;
        info.partner[i] = w.partner[usize::from(m)].unwrap_or(0xff);
        info.nmacs += 1;
    }
    info.soc = [0; 16];
    let n = board.soc.name.len().min(15);
    info.soc[..n].copy_from_slice(&board.soc.name.as_bytes()[..n]);
    for &m in &macs {
        match w.partner[usize::from(m)] {
            Some(p) => klog!(Info, "mac {m}: wired back to back with mac {p}"),
            None => klog!(Info, "mac {m}: wired to a peer net_device"),
        }
    }
    klog!(Info, "engine: hardware LRO {}", if board.soc.caps.hw_lro.is_some() { "yes" } else { "no" });
    let mut dev = dev;
    dev.queue = queue;
    // SAFETY: nothing runs yet.
    unsafe { dev.split() };
    Box::into_raw(dev)
}

/// Sets the kernel time that simulated time is paced against (call once, before the first
/// [`fe_rs_step`]).
///
/// # Safety
/// `dev` comes from [`fe_rs_create`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_start(dev: *mut FeRsDev, now_ns: u64) {
    // SAFETY: caller's contract.
    let d = unsafe { &*dev };
    d.chip(|sim, w| w.base_ns = now_ns.saturating_sub(sim.now()));
}

/// Closes the engine (reunited: the glue stopped every context first) and prints the close
/// report; returns the buffers it leaked (0), or -1 when it was not open.
///
/// # Safety
/// `dev` comes from [`fe_rs_create`]; no other `fe_rs_*` call runs or follows but
/// [`fe_rs_destroy`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_close(dev: *mut FeRsDev) -> i64 {
    // SAFETY: caller's contract.
    let d = unsafe { &*dev };
    let (unpaired, skipped_ns, violations) = d.chip(|sim, w| (w.unpaired, w.skipped_ns, sim.violations().len()));
    // SoftLRO keeps aggregates across a full-budget poll; NAPI is disabled now, so what it
    // still holds cannot go up: counted and reported, not lost silently.
    let mut held = 0u64;
    // SAFETY: `lro` is alive until destroy; NAPI is off, so nothing else uses it.
    unsafe { &mut *d.lro }.flush(&mut |_| held += 1);
    if held > 0 {
        klog!(Info, "close: {held} SoftLRO aggregates held at close were not delivered");
    }
    // SAFETY: caller's contract: no handle is in use.
    let eth = unsafe { d.whole() };
    match eth.close() {
        Ok(r) => {
            let s = eth.stats();
            klog!(
                Info,
                "close: returned rx={} tx={} fq={} (total {}), leaked rx={} tx={} fq={} (total {}), \
                 tx_completed={} tx_dropped={} rx_dropped={}",
                r.returned.rx,
                r.returned.tx,
                r.returned.fq,
                r.returned.total(),
                r.leaked.rx,
                r.leaked.tx,
                r.leaked.fq,
                r.leaked.total(),
                r.tx_completed,
                r.tx_dropped,
                r.rx_dropped
            );
            klog!(
                Info,
                "close: tx_frames={} rx_verified={} rx_unverified={} drops tx={} rx={}, wire_to_peer={} \
                 sim_skipped_us={} violations={}",
                s.tx_frames(),
                s.rx_csum_verified,
                s.rx_csum_unverified,
                s.drops.tx_total(),
                s.drops.rx_total(),
                unpaired,
                skipped_ns / 1000,
                violations
            );
            r.leaked.total() as i64
        }
        Err(e) => {
            klog!(Err, "close: {e}");
            -1
        }
    }
}

/// Frees everything [`fe_rs_create`] allocated (the simulator's DMA memory included).
///
/// # Safety
/// `dev` comes from [`fe_rs_create`] and is not used afterwards; nothing else runs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_destroy(dev: *mut FeRsDev) {
    // SAFETY: caller's contract: `dev` and the pointers it holds are ours to free, in this
    // order (borrowers before what they borrow).
    unsafe {
        let d = Box::from_raw(dev);
        let FeRsDev { sim, pool, chip, dma, eth_slot, lro_storage, lro, .. } = *d;
        if !lro.is_null() {
            drop(Box::from_raw(lro));
        }
        // The driver's `Drop` gives the ring's pool pages back (`rx_release`).
        drop(Box::from_raw(eth_slot));
        // Pages the stack had: given back once it let go of them (it has, after the devices
        // are gone and their sockets closed); any it still holds keep the region alive.
        let held = chip.pool().map_or(0, |p| p.reclaim_lent(&chip));
        // The driver's `Drop` gave back every ring and buffer: say what the DMA allocator holds.
        klog!(
            Info,
            "dropped: {} bytes of DMA memory still allocated by the driver; freeing {} KiB of coherent memory",
            (*sim).dma_in_use(),
            dma.size >> 10
        );
        drop(Box::from_raw(lro_storage));
        drop(Box::from_raw(sim));
        if held > 0 {
            klog!(Err, "rx pool: {held} pages still held by the stack: the DMA region stays allocated");
            return;
        }
        if !pool.is_null() {
            drop(Box::from_raw(pool));
        }
        dma.free();
    }
}

/// Runs the simulator one sub-step (at most [`SUB_STEP_NS`]) towards kernel time `now_ns` and
/// carries every frame that left a MAC to its partner. Returns how far simulated time is still
/// behind (ns): NAPI polls RX between sub-steps until it is 0, so no step lands more frames
/// than RX ring 0 holds. When the kernel clock is more than [`MAX_LAG_NS`] ahead (the guest
/// was busy elsewhere), the excess is skipped, not caught up.
///
/// Frames a MAC without a partner MAC sent go to `fe_kmod_peer_rx(ctx, ...)`.
///
/// Any context (NAPI, the tick); only the chip lock is taken.
///
/// # Safety
/// `dev` comes from [`fe_rs_create`]; `ctx` is what `fe_kmod_peer_rx` expects.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_step(dev: *mut FeRsDev, now_ns: u64, ctx: *mut c_void) -> u64 {
    // SAFETY: caller's contract.
    unsafe { &*dev }.step(now_ns, ctx)
}

/// Frees TX descriptors the engine finished; returns the TX descriptors free. NAPI, under the
/// TX lock.
///
/// # Safety
/// `dev` comes from [`fe_rs_create`]; the caller holds the glue's TX lock.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_reclaim(dev: *mut FeRsDev) -> u32 {
    // SAFETY: caller's contract.
    let d = unsafe { &*dev };
    // SAFETY: the caller holds the TX lock.
    let Some(tx) = (unsafe { d.tx() }) else { return 0 };
    tx.reclaim();
    let room = tx.tx_room() as u32;
    d.tx_room.store(room, Relaxed);
    room
}

/// Interrupt work bit of [`fe_rs_irq`]: RX ring 0 has frames (poll it).
pub const IRQ_RX: u32 = 1;
/// Interrupt work bit of [`fe_rs_irq`]: TX descriptors completed (reclaim them).
pub const IRQ_TX: u32 = 2;

/// The chip's clock and interrupt lines, for the glue's hrtimer: runs the simulator one
/// sub-step towards kernel time `now_ns` (as [`fe_rs_step`]), then calls the driver core's
/// interrupt handler ([`fe_driver::EthIrq::irq`]) for each line the SoC's IRQ layout names that
/// the simulator raises. Returns the work the handler masked ([`IRQ_RX`] | [`IRQ_TX`]): the
/// glue schedules NAPI for it and unmasks it with [`fe_rs_irq_enable`] once NAPI has drained
/// it. No data-path lock: the interrupt handle is `&self`, the masks change atomically.
///
/// # Safety
/// As [`fe_rs_step`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_irq(dev: *mut FeRsDev, now_ns: u64, ctx: *mut c_void) -> u32 {
    // SAFETY: caller's contract.
    let d = unsafe { &*dev };
    d.step(now_ns, ctx);
    let Some(irq) = d.irq() else { return 0 };
    let lines = match d.soc.caps.irq.layout {
        IrqLayout::Shared { line } => [line, line],
        IrqLayout::Split { tx, rx } => [tx, rx],
    };
    let mut work = IrqWork::default();
    for line in lines {
        if d.chip.with(|sim| sim.irq(line)) {
            let w = irq.irq(line);
            work.rx |= w.rx;
            work.tx |= w.tx;
        }
    }
    (u32::from(work.rx) * IRQ_RX) | (u32::from(work.tx) * IRQ_TX)
}

/// Unmasks the interrupt causes in `work` (bits of [`fe_rs_irq`]): NAPI drained them. A cause
/// still pending raises its line again, and the next tick sees it. No lock.
///
/// # Safety
/// `dev` comes from [`fe_rs_create`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_irq_enable(dev: *mut FeRsDev, work: u32) {
    // SAFETY: caller's contract.
    let d = unsafe { &*dev };
    if let Some(irq) = d.irq() {
        irq.irq_enable(IrqWork { rx: work & IRQ_RX != 0, tx: work & IRQ_TX != 0 });
    }
}

impl FeRsDev {
    /// One sub-step of the simulator towards kernel time `now_ns`, the wires carried (see
    /// [`fe_rs_step`]); returns how far simulated time is still behind.
    fn step(&self, now_ns: u64, ctx: *mut c_void) -> u64 {
        // Nothing queued for TX (as the TX context last said): with nothing on a wire either,
        // no frame can land, so run the whole way.
        let tx_idle = self.tx_room.load(Relaxed) as usize == fe_driver::eth::TX_RING - 1;
        self.chip(|sim, w| {
            let target = now_ns.saturating_sub(w.base_ns);
            let at = sim.now();
            let mut behind = target.saturating_sub(at);
            if behind > MAX_LAG_NS {
                w.skipped_ns += behind - MAX_LAG_NS;
                w.base_ns += behind - MAX_LAG_NS;
                behind = MAX_LAG_NS;
            }
            let idle = tx_idle && at >= w.idle_at;
            let step = if idle { behind } else { behind.min(SUB_STEP_NS) };
            if step > 0 {
                sim.advance(step);
            }
            for m in 0..MAX_MACS {
                let sent = sim.take_sent(m);
                if sent.is_empty() {
                    continue;
                }
                // They queue on the partner's wire (or the peer's, at this MAC's speed) behind
                // whatever is still on it.
                let speed = w.partner[m].map_or(w.speed[m], |p| w.speed[usize::from(p) % MAX_MACS]);
                let bits: u64 = sent.iter().map(|(_, f)| (f.len() as u64 + WIRE_OVERHEAD) * 8).sum();
                w.idle_at = w.idle_at.max(sim.now()) + bits * 1000 / speed;
                match w.partner[m] {
                    Some(p) => {
                        for (_, f) in sent {
                            sim.send_to_mac(usize::from(p), f);
                        }
                    }
                    None => {
                        w.unpaired += sent.len() as u64;
                        for (_, f) in sent {
                            // SAFETY: `f` is valid during the call; the glue copies it (no lock
                            // of the module is taken there).
                            unsafe { fe_kmod_peer_rx(ctx, m as u8, f.as_ptr(), f.len()) }
                        }
                    }
                }
            }
            behind - step
        })
    }
}

/// The TX descriptors free, as the TX context last saw them (no lock).
///
/// # Safety
/// `dev` comes from [`fe_rs_create`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_tx_room(dev: *mut FeRsDev) -> u32 {
    // SAFETY: caller's contract.
    unsafe { &*dev }.tx_room.load(Relaxed)
}

// Provided by the C glue: one received frame (or SoftLRO aggregate) for the stack, and one
// frame a MAC without a partner MAC put on its wire (for the peer net_device).
unsafe extern "C" {
    fn fe_kmod_rx(ctx: *mut c_void, mac: u8, data: *const u8, len: usize, verified: bool, segs: u16, seg_size: u16);
    fn fe_kmod_peer_rx(ctx: *mut c_void, mac: u8, data: *const u8, len: usize);
    /// One received frame in its pool page `page` (a page start, the frame at `headroom`):
    /// the glue builds an skb over the page and takes a page reference for the stack.
    fn fe_kmod_rx_page(ctx: *mut c_void, mac: u8, page: *mut c_void, headroom: u32, len: usize, verified: bool);
}

/// The peer net_device of MAC `mac` sends `len` bytes at `data` (a frame without FCS, at least
/// 60 bytes): it arrives at the MAC after its time on the wire. Any context; the chip lock.
///
/// # Safety
/// `dev` comes from [`fe_rs_create`]; `data` is valid for `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_peer_send(dev: *mut FeRsDev, mac: u8, data: *const u8, len: usize) {
    // SAFETY: caller's contract.
    let (d, frame) = unsafe { (&*dev, core::slice::from_raw_parts(data, len)) };
    let frame = frame.to_vec();
    d.chip(|sim, w| {
        let speed = w.speed[usize::from(mac) % MAX_MACS];
        w.idle_at = w.idle_at.max(sim.now()) + (len as u64 + WIRE_OVERHEAD) * 8 * 1000 / speed;
        sim.send_to_mac(usize::from(mac), frame);
    });
}

/// Polls RX ring 0 (and the hardware LRO rings) for up to `budget` descriptors, through
/// SoftLRO when the `lro` feature is soft; hands each frame to the glue: with `zero_copy` (and
/// a pool attached) in its own DMA page (`fe_kmod_rx_page`, the glue builds the skb over it),
/// otherwise copied (`fe_kmod_rx`; SoftLRO's aggregates are always copied). Returns the
/// descriptors used. NAPI only (no lock: NAPI never runs twice at once).
///
/// # Safety
/// `dev` comes from [`fe_rs_create`]; `ctx` is what the glue's hooks expect; the caller is the
/// engine's NAPI poll.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_poll(dev: *mut FeRsDev, budget: u32, ctx: *mut c_void, zero_copy: bool) -> u32 {
    // SAFETY: caller's contract.
    let d = unsafe { &*dev };
    // SAFETY: the caller is NAPI.
    let Some(rx) = (unsafe { d.rx() }) else { return 0 };
    let copied = |f: fe_driver::RxFrame<'_>| {
        // SAFETY: `f.data` is valid during the call; the glue copies it.
        unsafe {
            fe_kmod_rx(
                ctx,
                f.mac,
                f.data.as_ptr(),
                f.data.len(),
                f.checksum == RxChecksum::Verified,
                f.segs,
                f.seg_size,
            )
        }
    };
    // SAFETY: `lro` is alive and NAPI's only.
    let lro = unsafe { &mut *d.lro };
    let n = if zero_copy && !d.pool.is_null() {
        let mut zc = 0u64;
        let n = rx.poll_buffers_coalesced(budget as usize, lro, &mut |r| match r {
            Received::Buffer(b) => {
                zc += 1;
                // SAFETY: the page is the stack's now; the glue takes a page reference for it.
                unsafe {
                    fe_kmod_rx_page(ctx, b.mac, b.buf.0, HEADROOM as u32, b.len, b.checksum == RxChecksum::Verified)
                }
            }
            Received::Copied(f) => copied(f),
        });
        d.rx_zero_copy.fetch_add(zc, Relaxed);
        n
    } else {
        rx.poll_coalesced(budget as usize, lro, &mut |f| copied(f))
    };
    let mut i = 0;
    lro_counts(lro.stats(), &mut |_, v| {
        if let Some(c) = d.lro_counts.get(i) {
            c.store(v, Relaxed);
        }
        i += 1;
    });
    n as u32
}

/// `fe_rs_xmit` result: queued.
pub const XMIT_OK: i32 = 0;
/// `fe_rs_xmit` result: no room in the TX ring (counted as a drop by the core).
pub const XMIT_FULL: i32 = 1;
/// `fe_rs_xmit` result: refused for another reason (counted as a drop by the core).
pub const XMIT_DROP: i32 = -1;

/// One piece of a frame to send (`struct fe_rs_part`): an skb's head or one of its page
/// fragments.
#[repr(C)]
pub struct FeRsPart {
    /// First byte.
    pub data: *const u8,
    /// Bytes.
    pub len: usize,
}

/// Most pieces [`fe_rs_xmit`] takes (`FE_RS_TX_PARTS`): an skb's head and `MAX_SKB_FRAGS` (17)
/// page fragments.
pub const TX_PARTS: usize = 18;

/// Queues one frame on MAC `mac`, given as `nparts` pieces (an skb's head and its page
/// fragments, copied into the TX buffers piece by piece, so the glue never linearizes a GSO
/// skb): `gso_mss` non-zero asks the engine's TSO to cut it (its headers all in the first
/// piece), `csum` asks the engine to fill the checksums; writes the TX descriptors free then to
/// `room`. Returns [`XMIT_OK`], [`XMIT_FULL`] or [`XMIT_DROP`] (also for more than
/// [`TX_PARTS`] pieces). `ndo_start_xmit`, under the TX lock.
///
/// # Safety
/// `dev` comes from [`fe_rs_create`]; `parts` points to `nparts` pieces, each valid for its
/// `len` bytes; `room` is writable; the caller holds the glue's TX lock.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_xmit(
    dev: *mut FeRsDev,
    mac: u8,
    parts: *const FeRsPart,
    nparts: u32,
    gso_mss: u16,
    csum: bool,
    room: *mut u32,
) -> i32 {
    // SAFETY: caller's contract.
    let d = unsafe { &*dev };
    let n = nparts as usize;
    if n > TX_PARTS || parts.is_null() {
        // SAFETY: caller's contract (`room` is writable): the caller reads it whatever the result.
        unsafe { *room = d.tx_room.load(Relaxed) };
        return XMIT_DROP;
    }
    let mut pieces: [&[u8]; TX_PARTS] = [&[]; TX_PARTS];
    // SAFETY: caller's contract: `parts` holds `n` pieces (at most TX_PARTS, checked), each
    // valid for its length during the call.
    let given = unsafe { core::slice::from_raw_parts(parts, n) };
    for (slot, part) in pieces.iter_mut().zip(given) {
        if part.len > 0 {
            // SAFETY: as above: `data` is valid for `len` bytes.
            *slot = unsafe { core::slice::from_raw_parts(part.data, part.len) };
        }
    }
    let frame = TxParts::new(&pieces[..n]);
    // SAFETY: the caller holds the TX lock.
    let Some(tx) = (unsafe { d.tx() }) else {
        // SAFETY: as above.
        unsafe { *room = d.tx_room.load(Relaxed) };
        return XMIT_DROP;
    };
    let q = d.queue[usize::from(mac) % MAX_MACS];
    let r = match (gso_mss, csum) {
        // A linear frame without offloads: the plain path (one buffer, the engine-wide checksum
        // setting), as before pieces.
        (0, false) if n == 1 => tx.xmit(mac, q, pieces[0]),
        (0, false) => tx.xmit_gather(mac, q, frame, TxMeta::NONE),
        (0, true) => tx.xmit_gather(mac, q, frame, TxMeta::CSUM),
        (mss, _) => tx.xmit_gather(mac, q, frame, TxMeta::tso(mss)),
    };
    let left = tx.tx_room() as u32;
    d.tx_room.store(left, Relaxed);
    // SAFETY: caller's contract.
    unsafe { *room = left };
    match r {
        Ok(()) => XMIT_OK,
        Err(TxError::RingFull) => XMIT_FULL,
        Err(_) => XMIT_DROP,
    }
}

/// `fe_rs_set_features` result: applied.
pub const FEATURES_OK: i32 = 0;
/// `fe_rs_set_features` result: refused.
pub const FEATURES_REFUSED: i32 = -1;
/// `fe_rs_set_features` result: the change needs the whole engine (hardware LRO on or off);
/// quiesce NAPI, the tick and TX, then call [`fe_rs_set_features_whole`].
pub const FEATURES_NEED_WHOLE: i32 = 1;

/// The offloads `ethtool -K` asks for: `lro` is hardware LRO where the SoC has it, SoftLRO
/// otherwise (as a Linux driver picks its hardware's LRO).
fn features_of(soc: &SocInfo, rx_csum: bool, tx_csum: bool, tso: bool, lro: bool) -> Features {
    let lro = match (lro, soc.caps.hw_lro.is_some()) {
        (false, _) => LroMode::Off,
        (true, true) => LroMode::Hw,
        (true, false) => LroMode::Soft,
    };
    Features { rx_checksum: rx_csum, tx_checksum: tx_csum, tso, lro }
}

/// Logs the outcome of a feature change with the GDMA_FWD_CFG words that result.
fn log_features(d: &FeRsDev, f: Features, how: &str, r: Result<(), EthError>) -> i32 {
    let soc = d.soc;
    let bus = d.chip.fe();
    let mut words = [0u32; MAX_MACS];
    for (i, w) in words.iter_mut().enumerate().take(soc.fe.gdma.len()) {
        if let Some(g) = soc.fe.gdma.at(i) {
            *w = g.fwd_cfg.on(bus).read().to_bits();
        }
    }
    match r {
        Ok(()) => {
            klog!(
                Info,
                "set_features{how} rx_csum={} tx_csum={} tso={} lro={:?}: GDMA_FWD_CFG {:#010x} {:#010x} {:#010x}",
                f.rx_checksum as u8,
                f.tx_checksum as u8,
                f.tso as u8,
                f.lro,
                words[0],
                words[1],
                words[2]
            );
            FEATURES_OK
        }
        Err(EthError::NeedsWholeEngine) => FEATURES_NEED_WHOLE,
        Err(e) => {
            klog!(Warn, "set_features{how} {f:?}: {e}");
            FEATURES_REFUSED
        }
    }
}

/// Applies the offloads (engine-wide: every MAC shares the GDMA settings' owner, the core)
/// from the control handle, while TX and NAPI run, and logs the GDMA_FWD_CFG words that
/// result. Returns [`FEATURES_OK`], [`FEATURES_REFUSED`], or [`FEATURES_NEED_WHOLE`] when the
/// change turns hardware LRO on or off. `ndo_set_features`, under the control lock.
///
/// # Safety
/// `dev` comes from [`fe_rs_create`]; the caller holds the glue's control lock.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_set_features(
    dev: *mut FeRsDev,
    rx_csum: bool,
    tx_csum: bool,
    tso: bool,
    lro: bool,
) -> i32 {
    // SAFETY: caller's contract.
    let d = unsafe { &*dev };
    let f = features_of(d.soc, rx_csum, tx_csum, tso, lro);
    // SAFETY: the caller holds the control lock.
    let Some(ctl) = (unsafe { d.ctl() }) else { return FEATURES_REFUSED };
    log_features(d, f, "", ctl.set_features(f))
}

/// [`fe_rs_set_features`] on the whole engine, for the changes the control handle refuses
/// ([`FEATURES_NEED_WHOLE`]): the handles are dropped, the engine reunited and the features
/// applied (hardware LRO's rings re-armed), and the engine split again. Returns as
/// [`fe_rs_set_features`] (never [`FEATURES_NEED_WHOLE`]).
///
/// # Safety
/// `dev` comes from [`fe_rs_create`]; the glue has stopped NAPI, the tick and every TX queue
/// (no handle is in use) and holds the control lock.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_set_features_whole(
    dev: *mut FeRsDev,
    rx_csum: bool,
    tx_csum: bool,
    tso: bool,
    lro: bool,
) -> i32 {
    // SAFETY: caller's contract.
    let d = unsafe { &*dev };
    let f = features_of(d.soc, rx_csum, tx_csum, tso, lro);
    // SAFETY: caller's contract: nothing uses a handle.
    let eth = unsafe { d.whole() };
    let r = eth.set_features(f);
    d.tx_room.store(eth.tx_room() as u32, Relaxed);
    // SAFETY: as above.
    unsafe { d.split() };
    klog!(Info, "set_features: the whole engine (NAPI, tick and TX stopped), then split again");
    log_features(d, f, " (whole engine)", r)
}

/// Fills `out` with the `ethtool -d` dump of MAC `mac`: its GDMA_FWD_CFG, then every GDMA's
/// (0 where the SoC has fewer). Returns the words written ([`REGS_WORDS`]). Any context: only
/// register reads (the chip lock).
///
/// # Safety
/// `dev` comes from [`fe_rs_create`]; `out` has room for [`REGS_WORDS`] words.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_regs(dev: *mut FeRsDev, mac: u8, out: *mut u32) -> u32 {
    // SAFETY: caller's contract.
    let (d, out) = unsafe { (&*dev, core::slice::from_raw_parts_mut(out, REGS_WORDS)) };
    let soc = d.soc;
    let bus = d.chip.fe();
    let read = |i: usize| soc.fe.gdma.at(i).map_or(0, |g| g.fwd_cfg.on(bus).read().to_bits());
    out[0] = read(usize::from(mac));
    for (i, w) in out[1..].iter_mut().enumerate() {
        *w = read(i);
    }
    REGS_WORDS as u32
}

/// Length of one `ethtool -S` name (ETH_GSTRING_LEN).
pub const STAT_NAME_LEN: usize = 32;

/// The `ethtool -S` counters of MAC `mac`: the core's (MIB, software, drops) then this glue's.
/// Writes names (NUL-padded, [`STAT_NAME_LEN`] bytes each) to `names` and values to `values`
/// when they are not null, at most `max` of each; returns how many there are. Under the
/// control lock.
///
/// # Safety
/// `dev` comes from [`fe_rs_create`]; `names` and `values` are null or have room for `max`;
/// the caller holds the glue's control lock.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_rs_stats(dev: *mut FeRsDev, mac: u8, names: *mut u8, values: *mut u64, max: u32) -> u32 {
    // SAFETY: caller's contract.
    let d = unsafe { &*dev };
    let mut n = 0usize;
    let mut put = |name: &str, v: u64| {
        if n < max as usize {
            if !names.is_null() {
                // SAFETY: room for `max` names of STAT_NAME_LEN bytes.
                let dst = unsafe { core::slice::from_raw_parts_mut(names.add(n * STAT_NAME_LEN), STAT_NAME_LEN) };
                dst.fill(0);
                let k = name.len().min(STAT_NAME_LEN - 1);
                dst[..k].copy_from_slice(&name.as_bytes()[..k]);
            }
            if !values.is_null() {
                // SAFETY: room for `max` values.
                unsafe { *values.add(n) = v };
            }
        }
        n += 1;
    };
    let (unpaired, skipped_ns) = d.chip(|_, w| (w.unpaired, w.skipped_ns));
    // SAFETY: the caller holds the control lock.
    let (drops_tx, drops_rx) = match unsafe { d.ctl() } {
        Some(ctl) => {
            ctl.ethtool_stats(mac, &mut |name, v| put(name, v));
            let s = ctl.stats();
            (s.drops.tx_total(), s.drops.rx_total())
        }
        None => (0, 0),
    };
    put("drops_tx_total", drops_tx);
    put("drops_rx_total", drops_rx);
    let mut i = 0;
    lro_counts(&LroStats::default(), &mut |name, _| {
        put(name, d.lro_counts.get(i).map_or(0, |c| c.load(Relaxed)));
        i += 1;
    });
    put("rx_zero_copy_frames", d.rx_zero_copy.load(Relaxed));
    put("wire_to_peer", unpaired);
    put("sim_skipped_us", skipped_ns / 1000);
    n as u32
}
