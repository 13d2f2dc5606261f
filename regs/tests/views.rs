//! Bound views (`info.fe.bind(bus)`) reach the same registers as `spec.on(bus)`, on every SoC:
//! plain registers, register arrays, arrayed blocks (moved by their stride), optional members,
//! and out-of-range indices (`None`, never a panic).

use fe_regs::SOCS;
use fe_regs::bus::MemBus;

#[test]
fn views_reach_the_offsets_of_the_maps() {
    for info in SOCS {
        let bus = MemBus::new();
        let fe = info.fe.bind(&bus);
        let m = &info.fe;
        assert_eq!(fe.pdma().glo_cfg().offset(), m.pdma.glo_cfg.offset() as usize, "{}", info.name);
        let q = fe.qdma();
        assert_eq!(q.qtx_cfg().len(), m.qdma.qtx_cfg.len(), "{}", info.name);
        for i in 0..m.qdma.qtx_cfg.len() {
            let want = m.qdma.qtx_cfg.at(i).map(|r| r.offset() as usize);
            assert_eq!(q.qtx_cfg().at(i).map(|r| r.offset()), want, "{} qtx_cfg[{i}]", info.name);
        }
        assert!(q.qtx_cfg().at(m.qdma.qtx_cfg.len()).is_none(), "{}: one past the end", info.name);
        assert_eq!(fe.gdma().len(), m.gdma.len(), "{}", info.name);
        for i in 0..m.gdma.len() {
            let g = m.gdma.at(i).expect("in range");
            let v = fe.gdma().at(i).expect("in range");
            assert_eq!(v.fwd_cfg().offset(), g.fwd_cfg.offset() as usize, "{} gdma[{i}]", info.name);
            assert_eq!(v.mac_adrh().offset(), g.mac_adrh.offset() as usize, "{} gdma[{i}]", info.name);
        }
        assert!(fe.gdma().at(m.gdma.len()).is_none() && fe.gdma().at(usize::MAX).is_none(), "{}", info.name);
        // Optional members: present exactly where the map has them.
        assert_eq!(q.tx_sch_rate2().map(|r| r.offset()), m.qdma.tx_sch_rate2.map(|r| r.offset() as usize));
        assert_eq!(fe.lro().is_some(), m.lro.is_some(), "{}", info.name);
    }
}

#[test]
fn views_access_through_their_bus() {
    for info in SOCS {
        let bus = MemBus::new();
        let fe = info.fe.bind(&bus);
        fe.pdma().glo_cfg().modify(|v| v.set_rx_dma_en(true));
        let off = info.fe.pdma.glo_cfg.offset() as usize;
        assert_eq!(bus.peek(off), 1 << 2, "{}", info.name);
        assert!(info.fe.pdma.glo_cfg.on(&bus).read().rx_dma_en(), "{}", info.name);
        let last = info.fe.gdma.len() - 1;
        fe.gdma().at(last).expect("in range").fwd_cfg().write(|v| v.set_fwd(7));
        let g = info.fe.gdma.at(last).expect("in range").fwd_cfg;
        assert_eq!(g.on(&bus).read().fwd(), 7, "{}: the last GDMA, moved by its stride", info.name);
        assert_eq!(bus.log().len(), 5, "{}: modify (2), read, write, read: nothing more", info.name);
    }
}

#[test]
fn a_block_binds_on_its_own() {
    for info in SOCS {
        let bus = MemBus::new();
        let q = info.fe.qdma.bind(&bus);
        assert_eq!(q.ctx_ptr().offset(), info.fe.qdma.ctx_ptr.offset() as usize, "{}", info.name);
    }
}

#[test]
fn picking_one_register_of_a_block_is_the_block_relocated() {
    for info in SOCS {
        let m = &info.fe;
        for i in 0..=m.mib.len() {
            let whole = m.mib.at(i).map(|b| (b.rx_packets.offset(), b.tx_bytes_hi.offset()));
            let picked = m.mib.pick(i, |b| b.rx_packets).zip(m.mib.pick(i, |b| b.tx_bytes_hi));
            assert_eq!(picked.map(|(a, b)| (a.offset(), b.offset())), whole, "{} mib[{i}]", info.name);
        }
        for i in 0..=m.gdma.len() {
            let want = m.gdma.at(i).map(|b| b.fwd_cfg.offset());
            assert_eq!(m.gdma.pick(i, |b| b.fwd_cfg).map(|r| r.offset()), want, "{} gdma[{i}]", info.name);
        }
        assert!(m.mac.pick(usize::MAX, |b| b.mcr).is_none(), "{}: out of range", info.name);
    }
}
