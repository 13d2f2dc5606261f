//! Delayed done interrupts, per SoC, driven through the registers: with the delay off every
//! completion raises its done status at once; with it on the status waits for the packet-count
//! limit or for the time limit (in the SoC's time unit, from the first held completion),
//! whichever comes first; a delay with no limit is refused.

mod common;

use common::*;
use fe_regs::values::{PdmaDelayIrq, QdmaDelayIrq};
use fe_sim::Violation;

const RX_DONE: u32 = 1 << 30;
const TX_DONE: u32 = 1 << 28;

fn rx_status(rig: &Rig) -> bool {
    r(&rig.sim, info(&rig.sim).fe.pdma.irq_status.offset()) & RX_DONE != 0
}

fn tx_status(rig: &Rig) -> bool {
    r(&rig.sim, info(&rig.sim).fe.qdma.int_status.offset()) & TX_DONE != 0
}

fn ack(rig: &Rig) {
    let fe = &info(&rig.sim).fe;
    w(&rig.sim, fe.pdma.irq_status.offset(), RX_DONE);
    w(&rig.sim, fe.qdma.int_status.offset(), TX_DONE);
}

fn rx_delay(rig: &Rig, pint: u8, ptime: u8) {
    let v = PdmaDelayIrq(0).with_rx_en(true).with_rx_pint(pint).with_rx_ptime(ptime);
    w(&rig.sim, info(&rig.sim).fe.pdma.delay_irq.offset(), v.0);
}

/// Steps simulated time by 1 us until `cond` holds (at most `max_us`); the time it first held.
fn until(rig: &Rig, max_us: u64, cond: impl Fn(&Rig) -> bool) -> Option<u64> {
    for _ in 0..max_us {
        rig.sim.advance(1_000);
        if cond(rig) {
            return Some(rig.sim.now());
        }
    }
    None
}

#[test]
fn rx_done_without_delay_raises_per_frame() {
    each_soc(|soc| {
        let rig = new_rig(soc);
        let f = tcp_frame(500, false);
        for k in 1..=3 {
            rig.sim.send_to_mac(0, f.clone());
            assert!(until(&rig, 100, rx_status).is_some(), "{}: frame {k} raises rx_done at once", soc.name);
            assert_eq!(rig.sim.stats().rx_done_irqs, k, "{}", soc.name);
            ack(&rig);
        }
        assert!(rig.sim.violations().is_empty(), "{:?}", rig.sim.violations());
    });
}

#[test]
fn rx_done_waits_for_the_packet_limit() {
    each_soc(|soc| {
        let rig = new_rig(soc);
        rx_delay(&rig, 3, 0);
        let f = tcp_frame(500, false);
        for _ in 0..2 {
            rig.sim.send_to_mac(0, f.clone());
        }
        rig.sim.advance(10_000_000);
        assert_eq!(r(&rig.sim, soc.fe.pdma.pdrx_ptr.at(0).unwrap().offset()), 2, "{}: both frames landed", soc.name);
        assert!(!rx_status(&rig), "{}: two frames of three held for 10 ms (no time limit)", soc.name);
        assert_eq!(rig.sim.stats().rx_done_irqs, 0);
        rig.sim.send_to_mac(0, f.clone());
        assert!(until(&rig, 100, rx_status).is_some(), "{}: the third frame raises rx_done", soc.name);
        assert_eq!(rig.sim.stats().rx_done_irqs, 1, "{}: one interrupt for three frames", soc.name);
        // The count starts again after the interrupt.
        ack(&rig);
        rig.sim.send_to_mac(0, f.clone());
        rig.sim.advance(10_000_000);
        assert!(!rx_status(&rig), "{}", soc.name);
        assert!(rig.sim.violations().is_empty(), "{:?}", rig.sim.violations());
    });
}

#[test]
fn rx_done_waits_for_the_time_limit_in_the_socs_unit() {
    each_soc(|soc| {
        let Some(m) = soc.caps.irq.moderation else { return };
        let rig = new_rig(soc);
        rx_delay(&rig, 100, 3);
        let limit_ns = 3 * u64::from(m.time_unit_us) * 1000;
        let ring = soc.fe.pdma.pdrx_ptr.at(0).unwrap().offset();
        rig.sim.send_to_mac(0, tcp_frame(500, false));
        let arrived = until(&rig, 1000, |g| r(&g.sim, ring) == 1).expect("frame lands");
        assert!(!rx_status(&rig));
        let raised = until(&rig, 10_000, rx_status).expect("time limit raises rx_done");
        let waited = raised - arrived;
        assert!(
            waited + 1_000 >= limit_ns && waited <= limit_ns + 1_000,
            "{}: rx_done after {waited} ns, limit {limit_ns} ns",
            soc.name
        );
        assert_eq!(rig.sim.stats().rx_done_irqs, 1);
        assert!(rig.sim.violations().is_empty(), "{:?}", rig.sim.violations());
    });
}

#[test]
fn tx_done_waits_for_the_packet_or_time_limit() {
    each_soc(|soc| {
        let Some(m) = soc.caps.irq.moderation else { return };
        let mut rig = new_rig(soc);
        let reg = soc.fe.qdma.delay_irq.offset();
        w(&rig.sim, reg, QdmaDelayIrq(0).with_tx_en(true).with_tx_pint(2).0);
        let f = tcp_frame(500, false);
        send_when_free(&mut rig, 0, 0, &f);
        rig.sim.advance(10_000_000);
        assert_eq!(rig.sim.take_sent(0).len(), 1);
        assert!(!tx_status(&rig), "{}: one completion of two held", soc.name);
        send_when_free(&mut rig, 0, 0, &f);
        assert!(until(&rig, 100, tx_status).is_some(), "{}: second completion raises tx_done", soc.name);
        assert_eq!(rig.sim.stats().tx_done_irqs, 1);
        // Time limit only: one unit after the completion.
        ack(&rig);
        w(&rig.sim, reg, QdmaDelayIrq(0).with_tx_en(true).with_tx_ptime(1).0);
        send_when_free(&mut rig, 0, 0, &f);
        let raised = until(&rig, 10_000, tx_status).expect("time limit raises tx_done");
        assert!(raised >= u64::from(m.time_unit_us) * 1000, "{}", soc.name);
        assert_eq!(rig.sim.stats().tx_done_irqs, 2);
        assert!(rig.sim.violations().is_empty(), "{:?}", rig.sim.violations());
    });
}

#[test]
fn switching_the_delay_off_signals_what_is_held() {
    each_soc(|soc| {
        let rig = new_rig(soc);
        rx_delay(&rig, 50, 0);
        rig.sim.send_to_mac(0, tcp_frame(500, false));
        rig.sim.advance(1_000_000);
        assert!(!rx_status(&rig));
        w(&rig.sim, soc.fe.pdma.delay_irq.offset(), 0);
        assert!(rx_status(&rig), "{}: held completion signalled when the delay goes off", soc.name);
    });
}

#[test]
fn a_delay_without_limits_is_refused() {
    each_soc(|soc| {
        let rig = new_rig(soc);
        rx_delay(&rig, 0, 0);
        assert!(
            rig.sim
                .violations()
                .iter()
                .any(|(_, v)| matches!(v, Violation::DelayNeverFires { register: "pdma.delay_irq" })),
            "{}: {:?}",
            soc.name,
            rig.sim.violations()
        );
    });
}
