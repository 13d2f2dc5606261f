//! SRAM rings (capability `rings: {sram: OFFSET}`), on every bundled board: where the SoC says
//! so, the free queue, the TX ring and RX ring 0 have their descriptors in the frame engine's
//! SRAM (ring registers inside the board's SRAM window, nothing of them in DMA memory), frames
//! flow both ways, and close and drop give back every byte of DMA memory; where it does not,
//! every ring is in DMA memory as before. A register window too small for the SRAM rings is
//! refused at probe (naming the node and `reg`) and at `Eth::new`; a model that does not know
//! where the window is finds the descriptors nowhere and says so.

mod support_sim;

use fe_driver::dt::{self, Board};
use fe_driver::eth::ErrorKind;
use fe_driver::eth::{BUF_SIZE, FQ_SIZE, RX_RING, TX_BUF, TX_RING};
use fe_driver::{Eth, EthError};
use fe_regs::SocInfo;
use fe_regs::bus::Bus;
use fe_regs::caps::RingPlacement;
use fe_sim::packet::TcpStream;
use fe_sim::{Sim, Violation};
use support_sim::{SimPlatform, boards, probe};

/// The SRAM offset of `soc`, if its rings are in SRAM.
fn sram_offset(soc: &SocInfo) -> Option<u64> {
    match soc.caps.rings {
        RingPlacement::Sram { offset } => Some(u64::from(offset)),
        RingPlacement::Dram => None,
    }
}

/// Bytes of descriptors of the three rings SRAM SoCs move: free queue, TX ring, RX ring 0.
fn moved_descriptor_bytes(soc: &SocInfo) -> usize {
    let (txd, rxd) = (soc.caps.tx_descriptor.size(), soc.caps.rx_descriptor.size());
    FQ_SIZE * txd + TX_RING * txd + RX_RING * rxd
}

/// DMA memory `Eth::new` should take on `soc`: every buffer, the LRO rings, and the three
/// rings' descriptors unless they are in SRAM.
fn expected_dma(soc: &SocInfo) -> usize {
    let buffers = TX_RING * TX_BUF + RX_RING * BUF_SIZE + FQ_SIZE * BUF_SIZE;
    let lro = soc.caps.hw_lro.map_or(0, |l| {
        usize::from(l.rings) * usize::from(l.ring_size) * (soc.caps.rx_descriptor.size() + l.buffer_size as usize)
    });
    let descs = if sram_offset(soc).is_some() { 0 } else { moved_descriptor_bytes(soc) };
    buffers + lro + descs
}

/// The ring registers that hold descriptor addresses: (name, value) for the free queue's head
/// and tail, the four QDMA TX pointers and PDMA RX ring 0's base.
fn ring_pointers(sim: &Sim, soc: &SocInfo) -> Vec<(&'static str, u64)> {
    let fe = sim.fe();
    let q = &soc.fe.qdma;
    let rd = |o: u32| u64::from(fe.read32(o as usize));
    vec![
        ("qdma.fq_head", rd(q.fq_head.offset())),
        ("qdma.fq_tail", rd(q.fq_tail.offset())),
        ("qdma.ctx_ptr", rd(q.ctx_ptr.offset())),
        ("qdma.dtx_ptr", rd(q.dtx_ptr.offset())),
        ("qdma.crx_ptr", rd(q.crx_ptr.offset())),
        ("qdma.drx_ptr", rd(q.drx_ptr.offset())),
        ("pdma.rx_ptr[0]", rd(soc.fe.pdma.rx_ptr.at(0).unwrap().offset())),
    ]
}

#[test]
fn rings_live_where_the_soc_says_frames_flow_and_all_dma_memory_comes_back() {
    let mut sram_boards = 0;
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        let soc = board.soc;
        let sim = Sim::for_board(&board);
        {
            let mut eth = Eth::new(&board, SimPlatform(&sim)).expect(name);
            let in_use = sim.dma_in_use();
            eprintln!(
                "{name}: rings {:?}: DMA memory after Eth::new {in_use} bytes (descriptors of the FQ, TX and RX0 \
                 rings: {} bytes)",
                soc.caps.rings,
                moved_descriptor_bytes(soc)
            );
            assert_eq!(in_use, expected_dma(soc), "{name}: DMA memory taken by Eth::new");
            eth.open().expect(name);
            let window = sim.sram_window();
            match sram_offset(soc) {
                Some(off) => {
                    sram_boards += 1;
                    let w = window.clone().expect(name);
                    assert_eq!(w.start, board.reg.base + off, "{name}: SRAM at reg base + offset");
                    assert!(w.end <= board.reg.base + board.reg.size, "{name}: SRAM inside reg");
                    let ptrs = ring_pointers(&sim, soc);
                    // The free queue opens the SRAM; the TX ring and RX ring 0 follow it.
                    let at = |r: &str| ptrs.iter().find(|(n, _)| *n == r).unwrap().1;
                    assert_eq!(at("qdma.fq_head"), w.start, "{name}");
                    assert!(at("qdma.fq_tail") < at("qdma.ctx_ptr"), "{name}");
                    assert!(at("qdma.ctx_ptr") < at("pdma.rx_ptr[0]"), "{name}");
                    for (reg, v) in ptrs {
                        assert!(w.contains(&v), "{name}: {reg} = {v:#x} outside the SRAM window {w:x?}");
                        assert!(sim.dma_read(v, 16).is_err(), "{name}: {reg} = {v:#x} is DMA memory");
                    }
                }
                None => {
                    assert_eq!(window, None, "{name}");
                    for (reg, v) in ring_pointers(&sim, soc) {
                        assert!(sim.dma_read(v, 16).is_ok(), "{name}: {reg} = {v:#x} is not DMA memory");
                    }
                }
            }
            // Frames both ways on every enabled MAC with a link.
            let macs: Vec<u8> = eth.enabled_macs().filter(|m| m.link.is_some()).map(|m| m.id).collect();
            assert!(!macs.is_empty(), "{name}");
            for &mac in &macs {
                let mut s = TcpStream::bulk(false, None);
                let out: Vec<Vec<u8>> = (0..40).map(|_| s.next_segment()).collect();
                let inbound: Vec<Vec<u8>> = (0..40).map(|_| s.next_segment()).collect();
                for f in &out {
                    eth.xmit(mac, mac, f).expect(name);
                }
                for f in &inbound {
                    sim.send_to_mac(usize::from(mac), f.clone());
                }
                sim.advance(5_000_000);
                let sent: Vec<Vec<u8>> = sim.take_sent(usize::from(mac)).into_iter().map(|(_, f)| f).collect();
                assert_eq!(sent, out, "{name}: MAC {mac} TX");
                let mut got = Vec::new();
                while eth.poll(64, &mut |f| got.push((f.mac, f.data.to_vec()))) == 64 {}
                assert_eq!(got.len(), inbound.len(), "{name}: MAC {mac} RX");
                assert!(got.iter().zip(&inbound).all(|((m, g), f)| *m == mac && g == f), "{name}: MAC {mac} RX");
                assert_eq!(eth.reclaim(), out.len(), "{name}: MAC {mac} reclaim");
            }
            let report = eth.close().expect(name);
            assert_eq!(report.leaked.total(), 0, "{name}");
            assert_eq!(sim.dma_in_use(), expected_dma(soc), "{name}: close keeps the rings");
        }
        assert_eq!(sim.dma_in_use(), 0, "{name}: drop gives back every byte of DMA memory");
        assert!(sim.violations().is_empty(), "{name}: {:?}", sim.violations());
    }
    eprintln!("{sram_boards} board(s) with SRAM rings");
}

/// `dtb` with the Ethernet node's `reg` size (found by its probed base and size, in one or two
/// cells) replaced by `size`.
fn with_reg_size(dtb: &[u8], board: &Board<'_>, size: u64) -> Vec<u8> {
    let enc = |cells: usize, v: u64| -> Vec<u8> {
        if cells == 2 { v.to_be_bytes().to_vec() } else { (v as u32).to_be_bytes().to_vec() }
    };
    for cells in [2, 1] {
        let pat = [enc(cells, board.reg.base), enc(cells, board.reg.size)].concat();
        let hits: Vec<usize> = dtb.windows(pat.len()).enumerate().filter(|(_, w)| *w == pat).map(|(i, _)| i).collect();
        if let [at] = hits[..] {
            let mut out = dtb.to_vec();
            let s = at + pat.len() / 2;
            out[s..s + pat.len() / 2].copy_from_slice(&enc(cells, size));
            return out;
        }
    }
    panic!("the Ethernet node's reg is not found once in the blob");
}

#[test]
fn a_register_window_too_small_for_the_sram_rings_is_refused_naming_the_node() {
    let mut checked = 0;
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        let Some(off) = sram_offset(board.soc) else { continue };
        checked += 1;
        let path = board.path.to_string();
        // No SRAM at all in the window, then some but less than the rings need.
        for size in [off, off + 0x1000] {
            let bad = with_reg_size(&dtb, &board, size);
            let e = dt::probe(&bad).expect_err(name);
            assert!(matches!(e.kind, dt::ProbeErrorKind::SramRings(_)), "{name}: {e}");
            assert_eq!((e.path.to_string(), e.property), (path.clone(), Some("reg")), "{name}: {e}");
            let msg = e.to_string();
            assert!(msg.starts_with(&path) && msg.contains("SRAM rings") && msg.contains("reg"), "{name}: {msg}");
        }
        // A board changed after the probe is checked again by the driver.
        let mut small = board;
        small.reg.size = off + 0x1000;
        let sim = Sim::for_board(&small);
        let e = Eth::new(&small, SimPlatform(&sim)).expect_err(name);
        assert!(matches!(e, EthError::Sram(_)), "{name}: {e}");
        assert_eq!(e.kind(), ErrorKind::Config, "{name}");
        assert!(e.to_string().contains("SRAM rings"), "{name}: {e}");
        let mut high = board;
        high.reg.base = 0xffff_f000;
        let e = Eth::new(&high, SimPlatform(&sim)).expect_err(name);
        assert!(e.to_string().contains("above 4 GiB"), "{name}: {e}");
        assert_eq!(sim.dma_in_use(), 0, "{name}: a refused board takes no DMA memory");
    }
    eprintln!("{checked} board(s) with SRAM rings checked");
}

#[test]
fn a_model_that_does_not_know_the_window_finds_sram_descriptors_nowhere() {
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        if sram_offset(board.soc).is_none() {
            continue;
        }
        // `Sim::new` leaves the register window unplaced: the SRAM is reachable over the bus only.
        let sim = Sim::new(board.soc);
        let mut eth = Eth::new(&board, SimPlatform(&sim)).expect(name);
        eth.open().expect(name);
        let fq = u64::from(sim.fe().read32(board.soc.fe.qdma.fq_head.offset() as usize));
        let mac = eth.enabled_macs().find(|m| m.link.is_some()).map(|m| m.id).expect(name);
        eth.xmit(mac, mac, &TcpStream::bulk(false, None).next_segment()).expect(name);
        sim.advance(1_000_000);
        let v: Vec<Violation> = sim.violations().into_iter().map(|(_, v)| v).collect();
        assert!(v.contains(&Violation::DescriptorOutOfRange { addr: fq, len: board.soc.caps.tx_descriptor.size() }));
        assert!(
            v.iter().any(|v| matches!(v, Violation::DescriptorOutOfRange { addr, .. } if *addr != fq)),
            "{name}: the TX descriptor fetch is refused too: {v:?}"
        );
        assert!(sim.take_sent(usize::from(mac)).is_empty(), "{name}");
    }
}
