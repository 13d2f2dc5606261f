//! The SRAM window, on every SoC whose capability `rings` is `{sram: OFFSET}`, driven by writing
//! registers directly: descriptors written over the bus at the SRAM offset are what the engine
//! fetches at the SRAM's physical address (TX and RX, write-backs included, buffers in DMA
//! memory); a model that does not know where its window is, or a descriptor running past the
//! SRAM's end, is refused as a descriptor in neither SRAM nor DMA memory. DRAM SoCs have no
//! SRAM window.

mod common;

use common::{BUF, r, tcp_frame, w};
use fe_regs::SocInfo;
use fe_regs::caps::RingPlacement;
use fe_regs::descriptors::{DescriptorLayout, RxV1, RxV2, TxV1, TxV2};
use fe_sim::{Sim, Violation};

/// Where the model's register window sits in these tests.
const FE_BASE: u64 = 0x1000_0000;

fn sram_socs() -> Vec<(&'static SocInfo, u32)> {
    let socs: Vec<_> = fe_regs::SOCS
        .iter()
        .filter_map(|s| match s.caps.rings {
            RingPlacement::Sram { offset } => Some((*s, offset)),
            RingPlacement::Dram => None,
        })
        .collect();
    socs
}

/// MAC 0 forced up at 1000 with TX and RX on, GDMA to the CPU.
fn mac0_up(sim: &Sim) {
    let soc = sim.soc();
    let mcr = fe_regs::values::MacMcr(0)
        .with_force_mode(true)
        .with_force_link(true)
        .with_force_dpx(true)
        .with_speed_1000(true)
        .with_tx_en(true)
        .with_rx_en(true);
    w(sim, soc.fe.mac.at(0).unwrap().mcr.offset(), mcr.0);
    w(sim, soc.fe.gdma.at(0).unwrap().fwd_cfg.offset(), 0);
}

/// Writes `words` over the bus at `offset`.
fn put(sim: &Sim, offset: u32, words: &[u32]) {
    for (k, v) in words.iter().enumerate() {
        w(sim, offset + 4 * k as u32, *v);
    }
}

/// A one-frame TX ring of two descriptors at bus offset `at` (physical `phys`), its buffer in
/// DMA memory holding `frame`; QDMA TX on and kicked. Returns the descriptor's word count.
fn send_from(sim: &Sim, at: u32, phys: u32, frame: &[u8]) -> usize {
    let soc = sim.soc();
    let ds = soc.caps.tx_descriptor.size() as u32;
    let buf = sim.dma_alloc(BUF as usize, 64).unwrap();
    sim.dma_write(buf, frame).unwrap();
    let d = |addr: u32, next: u32, len: usize, cpu: bool| -> Vec<u32> {
        match soc.caps.tx_descriptor {
            DescriptorLayout::TxV2 => TxV2::new()
                .with_addr0(addr)
                .with_next(next)
                .with_plen0(len as u16)
                .with_ls0(true)
                .with_fport(1)
                .with_owner_cpu(cpu)
                .words
                .to_vec(),
            _ => TxV1::new()
                .with_addr0(addr)
                .with_next(next)
                .with_plen0(len as u16)
                .with_ls0(true)
                .with_fport(1)
                .with_owner_cpu(cpu)
                .words
                .to_vec(),
        }
    };
    put(sim, at, &d(buf as u32, phys + ds, frame.len(), false));
    put(sim, at + ds, &d(0, phys, 0, true));
    let q = &soc.fe.qdma;
    w(sim, q.dtx_ptr.offset(), phys);
    w(sim, q.crx_ptr.offset(), phys + ds);
    w(sim, q.drx_ptr.offset(), phys + ds);
    w(sim, q.ctx_ptr.offset(), phys);
    mac0_up(sim);
    w(sim, q.glo_cfg.offset(), fe_regs::values::QdmaGloCfg(0).with_tx_dma_en(true).0);
    w(sim, q.ctx_ptr.offset(), phys + ds);
    sim.advance(100_000);
    (ds / 4) as usize
}

#[test]
fn tx_descriptors_written_over_the_bus_are_fetched_at_the_sram_address() {
    for (soc, off) in sram_socs() {
        let sim = Sim::new(soc);
        assert_eq!(sim.sram_window(), None, "{}: unplaced", soc.name);
        sim.place_fe(FE_BASE, u64::from(off) + 0x1_0000);
        let win = sim.sram_window().unwrap();
        assert_eq!(win, FE_BASE + u64::from(off)..FE_BASE + u64::from(off) + 0x1_0000, "{}", soc.name);
        let frame = tcp_frame(600, false);
        let words = send_from(&sim, off, win.start as u32, &frame);
        let sent: Vec<Vec<u8>> = sim.take_sent(0).into_iter().map(|(_, f)| f).collect();
        assert_eq!(sent, vec![frame], "{}", soc.name);
        // The write-back (owner back to the CPU) landed in the SRAM, read over the bus.
        let back: Vec<u32> = (0..words as u32).map(|k| r(&sim, off + 4 * k)).collect();
        let owner = match soc.caps.tx_descriptor {
            DescriptorLayout::TxV2 => TxV2 { words: back.try_into().unwrap() }.owner_cpu(),
            _ => TxV1 { words: back.try_into().unwrap() }.owner_cpu(),
        };
        assert!(owner, "{}: completed descriptor handed back in SRAM", soc.name);
        assert!(sim.violations().is_empty(), "{}: {:?}", soc.name, sim.violations());
    }
}

#[test]
fn rx_descriptors_in_sram_are_filled_and_the_frame_lands_in_dma_memory() {
    for (soc, off) in sram_socs() {
        let sim = Sim::new(soc);
        sim.place_fe(FE_BASE, u64::from(off) + 0x1_0000);
        let phys = (FE_BASE + u64::from(off)) as u32;
        let bufs: Vec<u64> = (0..4).map(|_| sim.dma_alloc(BUF as usize, 64).unwrap()).collect();
        for (i, b) in bufs.iter().enumerate() {
            let words = match soc.caps.rx_descriptor {
                DescriptorLayout::RxV2 => RxV2::new().with_addr0(*b as u32).with_plen0(BUF as u16).words,
                _ => RxV1::new().with_addr0(*b as u32).with_plen0(BUF as u16).words,
            };
            put(&sim, off + 16 * i as u32, &words);
        }
        let pd = &soc.fe.pdma;
        w(&sim, pd.rx_ptr.at(0).unwrap().offset(), phys);
        w(&sim, pd.rx_cnt_cfg.at(0).unwrap().offset(), 4);
        w(&sim, pd.pcrx_ptr.at(0).unwrap().offset(), 3);
        mac0_up(&sim);
        w(&sim, pd.glo_cfg.offset(), fe_regs::values::PdmaGloCfg(0).with_rx_dma_en(true).0);
        let frame = tcp_frame(300, false);
        sim.send_to_mac(0, frame.clone());
        sim.advance(100_000);
        let words: [u32; 4] = core::array::from_fn(|k| r(&sim, off + 4 * k as u32));
        let (done, len) = match soc.caps.rx_descriptor {
            DescriptorLayout::RxV2 => (RxV2 { words }.done(), RxV2 { words }.plen0() as usize),
            _ => (RxV1 { words }.done(), RxV1 { words }.plen0() as usize),
        };
        assert!(done && len == frame.len(), "{}: descriptor in SRAM filled", soc.name);
        assert_eq!(sim.dma_read(bufs[0], len).unwrap(), frame, "{}: frame in DMA memory", soc.name);
        assert!(sim.violations().is_empty(), "{}: {:?}", soc.name, sim.violations());
    }
}

#[test]
fn descriptors_in_neither_sram_nor_dma_memory_are_refused() {
    for (soc, off) in sram_socs() {
        let ds = soc.caps.tx_descriptor.size();
        // The window is not placed: the SRAM's physical address means nothing to the engine.
        let sim = Sim::new(soc);
        let phys = (FE_BASE + u64::from(off)) as u32;
        send_from(&sim, off, phys, &tcp_frame(100, false));
        let v: Vec<Violation> = sim.violations().into_iter().map(|(_, v)| v).collect();
        assert!(v.contains(&Violation::DescriptorOutOfRange { addr: u64::from(phys), len: ds }), "{}: {v:?}", soc.name);
        assert!(sim.take_sent(0).is_empty(), "{}", soc.name);
        // Placed, with a window that ends halfway through the first descriptor.
        let sim = Sim::new(soc);
        sim.place_fe(FE_BASE, u64::from(off) + ds as u64 / 2);
        send_from(&sim, off, phys, &tcp_frame(100, false));
        let v: Vec<Violation> = sim.violations().into_iter().map(|(_, v)| v).collect();
        assert!(v.contains(&Violation::DescriptorOutOfRange { addr: u64::from(phys), len: ds }), "{}: {v:?}", soc.name);
    }
}

#[test]
fn dram_socs_have_no_sram_window() {
    for soc in fe_regs::SOCS.iter().filter(|s| s.caps.rings == RingPlacement::Dram) {
        let sim = Sim::new(soc);
        sim.place_fe(FE_BASE, 0x8_0000);
        assert_eq!(sim.sram_window(), None, "{}", soc.name);
    }
}
