//! A test rig that brings the model up by writing registers directly (no driver).

#![allow(dead_code)]

use fe_regs::bus::Bus;
use fe_regs::descriptors::{DescriptorLayout, RxV1, RxV2, TxV1, TxV2};
use fe_regs::{SOCS, SocInfo};
use fe_sim::Sim;
use fe_sim::packet::{self, TcpSpec};

pub const RX_RING: u32 = 8;
pub const TX_RING: u32 = 16;
pub const BUF: u32 = 2048;

pub struct Rig {
    pub sim: Sim,
    pub tx_ring: u64,
    pub tx_bufs: Vec<u64>,
    pub rx_ring: u64,
    pub rx_bufs: Vec<u64>,
    pub next_tx: u32,
}

pub fn info(sim: &Sim) -> &'static SocInfo {
    sim.soc()
}

pub fn w(sim: &Sim, off: u32, v: u32) {
    sim.fe().write32(off as usize, v);
}

pub fn r(sim: &Sim, off: u32) -> u32 {
    sim.fe().read32(off as usize)
}

pub fn tx_size(soc: &SocInfo) -> u64 {
    soc.caps.tx_descriptor.size() as u64
}

/// Brings up QDMA TX, PDMA RX ring 0 and MAC 0 by writing registers directly.
pub fn new_rig(soc: &'static SocInfo) -> Rig {
    let sim = Sim::new(soc);
    let fe = &soc.fe;
    let ds = tx_size(soc);
    let tx_ring = sim.dma_alloc((ds * TX_RING as u64) as usize, 32).unwrap();
    let tx_bufs: Vec<u64> = (0..TX_RING).map(|_| sim.dma_alloc(BUF as usize, 64).unwrap()).collect();
    for i in 0..TX_RING as u64 {
        let next = (tx_ring + ((i + 1) % TX_RING as u64) * ds) as u32;
        let words: Vec<u32> = match soc.caps.tx_descriptor {
            DescriptorLayout::TxV2 => TxV2::new().with_next(next).with_owner_cpu(true).with_ls0(true).words.to_vec(),
            _ => TxV1::new().with_next(next).with_owner_cpu(true).with_ls0(true).words.to_vec(),
        };
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        sim.dma_write(tx_ring + i * ds, &bytes).unwrap();
    }
    w(&sim, fe.qdma.ctx_ptr.offset(), tx_ring as u32);
    w(&sim, fe.qdma.dtx_ptr.offset(), tx_ring as u32);
    let last = (tx_ring + (TX_RING as u64 - 1) * ds) as u32;
    w(&sim, fe.qdma.crx_ptr.offset(), last);
    w(&sim, fe.qdma.drx_ptr.offset(), last);

    let rx_ring = sim.dma_alloc(16 * RX_RING as usize, 16).unwrap();
    let rx_bufs: Vec<u64> = (0..RX_RING).map(|_| sim.dma_alloc(BUF as usize, 64).unwrap()).collect();
    let rig = Rig { sim, tx_ring, tx_bufs, rx_ring, rx_bufs, next_tx: 0 };
    for i in 0..RX_RING {
        give_rx(&rig, i);
    }
    let sim = &rig.sim;
    w(sim, fe.pdma.rx_ptr.at(0).unwrap().offset(), rx_ring as u32);
    w(sim, fe.pdma.rx_cnt_cfg.at(0).unwrap().offset(), RX_RING);
    w(sim, fe.pdma.pcrx_ptr.at(0).unwrap().offset(), RX_RING - 1);
    // MAC 0: forced link up at 1000, TX and RX on; GDMA to the CPU with every checksum check on.
    let mcr = fe_regs::values::MacMcr(0)
        .with_force_mode(true)
        .with_force_link(true)
        .with_force_dpx(true)
        .with_speed_1000(true)
        .with_tx_en(true)
        .with_rx_en(true);
    w(sim, fe.mac.at(0).unwrap().mcr.offset(), mcr.0);
    w(sim, fe.gdma.at(0).unwrap().fwd_cfg.offset(), soc.caps.rx_checksum.mask);
    w(sim, fe.pdma.irq_mask.offset(), 1 << 30);
    w(sim, fe.qdma.int_mask.offset(), 1 << 28);
    w(sim, fe.pdma.glo_cfg.offset(), fe_regs::values::PdmaGloCfg(0).with_rx_dma_en(true).0);
    w(sim, fe.qdma.glo_cfg.offset(), fe_regs::values::QdmaGloCfg(0).with_tx_dma_en(true).with_rx_dma_en(true).0);
    rig
}

pub fn give_rx(rig: &Rig, i: u32) {
    let soc = info(&rig.sim);
    let buf = rig.rx_bufs[i as usize] as u32;
    let words = match soc.caps.rx_descriptor {
        DescriptorLayout::RxV2 => RxV2::new().with_addr0(buf).with_plen0(BUF as u16).words,
        _ => RxV1::new().with_addr0(buf).with_plen0(BUF as u16).words,
    };
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    rig.sim.dma_write(rig.rx_ring + u64::from(i) * 16, &bytes).unwrap();
}

/// Queues `frame` on TX descriptor `next_tx` for MAC `mac` and kicks the engine.
pub fn send(rig: &mut Rig, mac: u32, qid: u32, frame: &[u8]) {
    send_with(rig, mac, qid, frame, false, false);
}

/// Like [`send`], with the descriptor's checksum-offload and TSO requests.
pub fn send_with(rig: &mut Rig, mac: u32, qid: u32, frame: &[u8], csum: bool, tso: bool) {
    send_parts(rig, mac, qid, &[(frame, csum, tso)]);
}

/// One frame in several buffers, one descriptor each, with each descriptor's checksum and TSO
/// requests (`(bytes, csum, tso)` in order; the last descriptor ends the frame).
pub fn send_parts(rig: &mut Rig, mac: u32, qid: u32, parts: &[(&[u8], bool, bool)]) {
    let mut next = 0;
    for (k, &(bytes, csum, tso)) in parts.iter().enumerate() {
        next = write_desc(rig, mac, qid, bytes, k + 1 == parts.len(), csum, tso);
    }
    let soc = info(&rig.sim);
    w(&rig.sim, soc.fe.qdma.ctx_ptr.offset(), next);
}

/// Writes the next TX descriptor for `frame` in its own buffer; gives the following
/// descriptor's address (the doorbell value).
fn write_desc(rig: &mut Rig, mac: u32, qid: u32, frame: &[u8], last: bool, csum: bool, tso: bool) -> u32 {
    let soc = info(&rig.sim);
    let ds = tx_size(soc);
    let i = rig.next_tx;
    rig.next_tx = (i + 1) % TX_RING;
    let buf = rig.tx_bufs[i as usize];
    rig.sim.dma_write(buf, frame).unwrap();
    let addr = rig.tx_ring + u64::from(i) * ds;
    let next = (rig.tx_ring + u64::from((i + 1) % TX_RING) * ds) as u32;
    let ck = if csum { 7 } else { 0 };
    let words: Vec<u32> = match soc.caps.tx_descriptor {
        DescriptorLayout::TxV2 => TxV2::new()
            .with_addr0(buf as u32)
            .with_next(next)
            .with_plen0(frame.len() as u16)
            .with_ls0(last)
            .with_fport(mac as u8 + 1)
            .with_qid(qid as u8)
            .with_chksum(ck)
            .with_tso(tso)
            .words
            .to_vec(),
        _ => TxV1::new()
            .with_addr0(buf as u32)
            .with_next(next)
            .with_plen0(frame.len() as u16)
            .with_ls0(last)
            .with_fport(mac as u8 + 1)
            .with_qid(qid as u8)
            .with_chksum(ck)
            .with_tso(tso)
            .words
            .to_vec(),
    };
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    rig.sim.dma_write(addr, &bytes).unwrap();
    next
}

pub fn tcp_frame(payload: usize, ipv6: bool) -> Vec<u8> {
    packet::build_tcp(&TcpSpec { ipv6, payload_len: payload, timestamp: Some((1, 2)), ..TcpSpec::default() })
}

pub fn each_soc(f: impl Fn(&'static SocInfo)) {
    for soc in SOCS {
        f(soc);
    }
}

/// Whether TX descriptor `i` is back with the CPU.
pub fn tx_free(rig: &Rig, i: u32) -> bool {
    let soc = info(&rig.sim);
    let addr = rig.tx_ring + u64::from(i % TX_RING) * tx_size(soc);
    let b = rig.sim.dma_read(addr, tx_size(soc) as usize).unwrap();
    let words: Vec<u32> = b.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
    match soc.caps.tx_descriptor {
        DescriptorLayout::TxV2 => TxV2 { words: words.try_into().unwrap() }.owner_cpu(),
        _ => TxV1 { words: words.try_into().unwrap() }.owner_cpu(),
    }
}

/// Waits (in simulated time) until the next TX descriptor and the one after it are back with
/// the CPU (a driver keeps one free slot, or a full ring would look empty), then sends.
pub fn send_when_free(rig: &mut Rig, mac: u32, qid: u32, frame: &[u8]) {
    for _ in 0..100_000 {
        if tx_free(rig, rig.next_tx) && tx_free(rig, rig.next_tx + 1) {
            send(rig, mac, qid, frame);
            return;
        }
        rig.sim.advance(10_000);
    }
    panic!("TX descriptor never came back");
}
