//! Interrupts on the simulator, for every bundled board: the line the SoC's IRQ layout names
//! rises, the handler masks it and says what to do, and unmasking after the poll re-arms it.

mod support_sim;

use fe_driver::{Eth, IrqWork};
use fe_regs::caps::IrqLayout;
use fe_sim::Sim;
use fe_sim::packet::TcpStream;
use support_sim::{SimPlatform, boards, probe};

fn lines(soc: &fe_regs::SocInfo) -> (u8, u8) {
    match soc.caps.irq.layout {
        IrqLayout::Shared { line } => (line, line),
        IrqLayout::Split { tx, rx } => (tx, rx),
    }
}

#[test]
fn rx_and_tx_interrupts_follow_the_irq_layout() {
    for (name, dtb) in boards() {
        let board = probe(name, &dtb);
        let sim = Sim::for_board(&board);
        let mut eth = Eth::new(&board, SimPlatform(&sim)).unwrap();
        eth.open().unwrap();
        // The first enabled MAC; brought up at 1 Gbit/s when the board gives it no fixed link.
        let mac =
            eth.enabled_macs().next().map(|m| (m.id, m.link.is_some())).unwrap_or_else(|| panic!("{name}: no MAC"));
        if !mac.1 {
            let l = fe_driver::LinkState { speed: 1000, duplex: fe_driver::dt::Duplex::Full, pause: true };
            eth.link_up(mac.0, l).unwrap();
        }
        let mac = mac.0;
        let (tx_line, rx_line) = lines(board.soc);
        assert!(!sim.irq(rx_line) && !sim.irq(tx_line), "{name}: quiet after open");

        // RX: frames arrive, the RX line rises.
        let mut s = TcpStream::bulk(false, None);
        for _ in 0..10 {
            sim.send_to_mac(usize::from(mac), s.next_segment());
        }
        sim.advance(1_000_000);
        assert!(sim.irq(rx_line), "{name}: RX line raised");
        if tx_line != rx_line {
            assert_eq!(eth.irq(tx_line), IrqWork::default(), "{name}: RX work is not routed to the TX line");
        }
        let work = eth.irq(rx_line);
        assert!(work.rx && !work.tx, "{name}: {work:?}");
        assert!(!sim.irq(rx_line), "{name}: masked while the poll loop runs");
        let mut got = 0;
        while eth.poll(64, &mut |_| got += 1) == 64 {}
        assert_eq!(got, 10);
        eth.irq_enable(work);
        assert!(!sim.irq(rx_line), "{name}: drained, so the line stays low after unmasking");
        // A frame that arrives while masked re-raises the line at unmask.
        let work = {
            sim.send_to_mac(usize::from(mac), s.next_segment());
            sim.advance(100_000);
            eth.irq(rx_line)
        };
        sim.send_to_mac(usize::from(mac), s.next_segment());
        sim.advance(100_000);
        assert!(!sim.irq(rx_line), "{name}: masked");
        eth.irq_enable(work);
        assert!(sim.irq(rx_line), "{name}: pending work re-raises the line");
        while eth.poll(64, &mut |_| ()) == 64 {}

        // TX: completions raise the TX line; the handler acknowledges and masks it.
        let frame = s.next_segment();
        let q = eth.queue_for_mac(mac);
        eth.xmit(mac, q, &frame).unwrap();
        sim.advance(100_000);
        assert!(sim.irq(tx_line), "{name}: TX line raised");
        let work = eth.irq(tx_line);
        assert!(work.tx, "{name}: {work:?}");
        assert_eq!(eth.reclaim(), 1);
        eth.irq_enable(work);
        assert!(!sim.irq(tx_line) || tx_line == rx_line, "{name}: TX line low after reclaim");

        // Nothing pending: spurious.
        let before = eth.stats().irq_spurious;
        while eth.poll(64, &mut |_| ()) == 64 {}
        let _ = eth.irq(7);
        assert_eq!(eth.stats().irq_spurious, before + 1);
        assert!(sim.violations().is_empty(), "{name}: {:?}", sim.violations());
        let report = eth.close().unwrap();
        assert_eq!(report.leaked.total(), 0, "{name}");
    }
}
