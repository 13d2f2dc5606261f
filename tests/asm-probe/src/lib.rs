//! Zero-cost probe: each `generated_*` function uses the generated register API for a SoC fixed
//! at compile time, each `handwritten_*` twin does the same with raw volatile pointers.
//! `scripts/zero-cost` compiles this crate to assembly and checks that every pair is identical.

#![no_std]

use fe_regs::bus::Mmio;
use fe_regs::mt7621;
use fe_regs::values::{PdmaGloCfg, QdmaQtxSch};

/// MT7621 frame-engine base address (the `ethernet@1e100000` node's `reg`).
const BASE: usize = 0x1e10_0000;
/// Bytes of that window (the node's `reg` size).
const LEN: usize = 0x1_0000;

/// The frame engine as a bus at its fixed address.
// SAFETY: the probe is only compiled to assembly, never run; on a real MT7621 this window is the
// frame engine's register space.
const FE: Mmio = unsafe { Mmio::new(BASE as *mut u8, LEN) };

fn raw(offset: usize) -> *mut u32 {
    (BASE + offset) as *mut u32
}

/// Generated: write PDMA `glo_cfg`.
#[unsafe(no_mangle)]
pub fn generated_write(v: u32) {
    mt7621::FE.pdma.glo_cfg.on(FE).write_value(PdmaGloCfg(v));
}

/// Hand-written: write PDMA `glo_cfg` (0x0a04).
#[unsafe(no_mangle)]
pub fn handwritten_write(v: u32) {
    // SAFETY: see `FE`.
    unsafe { raw(0x0a04).write_volatile(v) }
}

/// Generated: read PDMA `glo_cfg`.
#[unsafe(no_mangle)]
pub fn generated_read() -> u32 {
    mt7621::FE.pdma.glo_cfg.on(FE).read().to_bits()
}

/// Hand-written: read PDMA `glo_cfg`.
#[unsafe(no_mangle)]
pub fn handwritten_read() -> u32 {
    // SAFETY: see `FE`.
    unsafe { raw(0x0a04).read_volatile() }
}

/// Generated: set `rx_dma_en` with a read-modify-write.
#[unsafe(no_mangle)]
pub fn generated_modify() {
    mt7621::FE.pdma.glo_cfg.on(FE).modify(|v| v.set_rx_dma_en(true));
}

/// Hand-written: set bit 2 of `glo_cfg`.
#[unsafe(no_mangle)]
pub fn handwritten_modify() {
    // SAFETY: see `FE`.
    unsafe {
        let v = raw(0x0a04).read_volatile();
        raw(0x0a04).write_volatile(v | (1 << 2));
    }
}

/// Generated: write QDMA queue 5's scheduler (register array).
#[unsafe(no_mangle)]
pub fn generated_array_write(v: u32) {
    if let Some(r) = mt7621::FE.qdma.qtx_sch.at(5) {
        r.on(FE).write_value(QdmaQtxSch(v));
    }
}

/// Hand-written: write `qtx_sch[5]` (0x1804 + 5 * 0x10).
#[unsafe(no_mangle)]
pub fn handwritten_array_write(v: u32) {
    // SAFETY: see `FE`.
    unsafe { raw(0x1804 + 5 * 0x10).write_volatile(v) }
}

/// Generated: clear GDMA1's RX checksum bits through the SoC's data (`INFO`), as the driver does.
#[unsafe(no_mangle)]
pub fn generated_info_modify() {
    let info = &mt7621::INFO;
    if let Some(g) = info.fe.gdma.at(1) {
        g.fwd_cfg.on(FE).modify(|v| {
            v.set_ics_en(false);
            v.set_tcs_en(false);
            v.set_ucs_en(false);
        });
    }
}

/// Hand-written: clear bits 22..20 of GDMA2 `fwd_cfg` (0x1500).
#[unsafe(no_mangle)]
pub fn handwritten_info_modify() {
    // SAFETY: see `FE`.
    unsafe {
        let v = raw(0x1500).read_volatile();
        raw(0x1500).write_volatile(v & !(0b111 << 20));
    }
}

/// Generated, through a bound view: set `rx_dma_en` (`mt7621::FE.bind(FE).pdma().glo_cfg()`).
#[unsafe(no_mangle)]
pub fn generated_view_modify() {
    mt7621::FE.bind(FE).pdma().glo_cfg().modify(|v| v.set_rx_dma_en(true));
}

/// Hand-written twin of `generated_view_modify`: set bit 2 of `glo_cfg` (0x0a04).
#[unsafe(no_mangle)]
pub fn handwritten_view_modify() {
    // SAFETY: see `FE`.
    unsafe {
        let v = raw(0x0a04).read_volatile();
        raw(0x0a04).write_volatile(v | (1 << 2));
    }
}

/// Generated, through a bound view of the SoC's data (`INFO`): clear GDMA2's RX checksum bits
/// (an arrayed block's element moved by its stride) and write QDMA queue 5's scheduler.
#[unsafe(no_mangle)]
pub fn generated_view_info(v: u32) {
    let fe = mt7621::INFO.fe.bind(&FE);
    if let Some(g) = fe.gdma().at(1) {
        g.fwd_cfg().modify(|v| {
            v.set_ics_en(false);
            v.set_tcs_en(false);
            v.set_ucs_en(false);
        });
    }
    if let Some(r) = fe.qdma().qtx_sch().at(5) {
        r.write_value(QdmaQtxSch(v));
    }
}

/// Hand-written twin of `generated_view_info`.
#[unsafe(no_mangle)]
pub fn handwritten_view_info(v: u32) {
    // SAFETY: see `FE`.
    unsafe {
        let w = raw(0x1500).read_volatile();
        raw(0x1500).write_volatile(w & !(0b111 << 20));
        raw(0x1804 + 5 * 0x10).write_volatile(v);
    }
}

/// Generated: set element 1 of the field array `sch_max_wfq` (scheduler 1, bit 31 of
/// `qdma.tx_sch_rate`); the index is a constant, so the bound check folds away.
#[unsafe(no_mangle)]
pub fn generated_field_array() {
    mt7621::FE.bind(FE).qdma().tx_sch_rate().write(|v| {
        let _ = v.set_sch_max_wfq(1, true);
    });
}

/// Hand-written twin of `generated_field_array`: write bit 31 of `tx_sch_rate` (0x1a14).
#[unsafe(no_mangle)]
pub fn handwritten_field_array() {
    // SAFETY: see `FE`.
    unsafe { raw(0x1a14).write_volatile(1 << 31) }
}
