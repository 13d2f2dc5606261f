//! Interrupt handling, NAPI style: the handler masks the causes it finds and tells the caller
//! what to poll; the poll loop unmasks them when it has drained the work.
//!
//! Which causes reach which device-tree interrupt line comes from the SoC's IRQ layout (one
//! shared line on MT7621, TX and RX lines on MT7623/MT7986), never from the SoC's identity.

use crate::eth::Eth;
use crate::handles::EthIrq;
use crate::platform::Platform;
use fe_regs::caps::{IrqLayout, IrqModeration, ModerationLimits};
use fe_regs::values::{PdmaIrqMask, QdmaIntMask};

/// The RX-done bit of the PDMA interrupt mask.
const RX_DONE: PdmaIrqMask = PdmaIrqMask(0).with_rx_done(true);
/// The TX-done bit of the QDMA interrupt mask.
const TX_DONE: QdmaIntMask = QdmaIntMask(0).with_tx_done(true);

/// What an interrupt asks the caller to do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IrqWork {
    /// Poll RX (`Eth::poll`) until it returns less than its budget.
    pub rx: bool,
    /// Reclaim TX (`Eth::reclaim`).
    pub tx: bool,
}

impl<P: Platform> Eth<P> {
    /// [`EthIrq::irq`] on the whole engine.
    #[inline]
    pub fn irq(&mut self, line: u8) -> IrqWork {
        self.irq_handle().irq(line)
    }

    /// [`EthIrq::irq_enable`] on the whole engine.
    #[inline]
    pub fn irq_enable(&mut self, work: IrqWork) {
        self.irq_handle().irq_enable(work);
    }

    /// [`EthIrq::set_irq_moderation`] on the whole engine.
    pub fn set_irq_moderation(&self, m: Option<IrqModeration>) {
        self.irq_handle().set_irq_moderation(m);
    }
}

impl<P: Platform> EthIrq<'_, P> {
    /// The causes routed to device-tree interrupt `line` by the SoC's IRQ layout.
    fn line_causes(&self, line: u8) -> IrqWork {
        match self.soc.caps.irq.layout {
            IrqLayout::Shared { line: l } => IrqWork { rx: l == line, tx: l == line },
            IrqLayout::Split { tx, rx } => IrqWork { rx: rx == line, tx: tx == line },
        }
    }

    /// The interrupt handler for device-tree interrupt `line`: finds the pending, unmasked
    /// causes routed to it, masks them, and returns the work to schedule. Unmask with
    /// [`EthIrq::irq_enable`] once that work is drained. Several lines' handlers may run at
    /// once: masks change only through the platform's atomic `modify32`.
    pub fn irq(&self, line: u8) -> IrqWork {
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        let causes = self.line_causes(line);
        let rx = causes.rx && fe.pdma().irq_status().read().rx_done() && fe.pdma().irq_mask().read().rx_done();
        let tx = causes.tx && fe.qdma().int_status().read().tx_done() && fe.qdma().int_mask().read().tx_done();
        let stats = &self.sh.stats;
        if rx {
            fe.pdma().irq_mask().update(RX_DONE, PdmaIrqMask(0));
            stats.irq_rx.add_shared(1);
        }
        if tx {
            fe.qdma().int_mask().update(TX_DONE, QdmaIntMask(0));
            // Acknowledge now: reclaim reads the release pointer, not the status bit.
            fe.qdma().int_status().write(|v| v.clear_tx_done());
            stats.irq_tx.add_shared(1);
        }
        if !rx && !tx {
            stats.irq_spurious.add_shared(1);
        }
        IrqWork { rx, tx }
    }

    /// Unmasks the causes in `work` (the poll loop drained them); a cause still pending
    /// re-raises the line at once, so nothing is lost between the last poll and the unmask.
    pub fn irq_enable(&self, work: IrqWork) {
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        if work.rx {
            fe.pdma().irq_mask().update(RX_DONE, RX_DONE);
        }
        if work.tx {
            fe.qdma().int_mask().update(TX_DONE, TX_DONE);
        }
    }

    /// Programs interrupt moderation (the open default is the SoC's `irq.moderation`): the
    /// delayed RX/TX done interrupt fires when either limit is reached. `None` turns it off, so
    /// every completion interrupts at once. One value goes into both delay-interrupt registers,
    /// as Linux writes it.
    pub fn set_irq_moderation(&self, m: Option<IrqModeration>) {
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        // (enable, packet limit, time limit in register units)
        let half = |l: ModerationLimits, unit: u32| {
            let units = l.time_units(unit).min(u32::from(u8::MAX)) as u8;
            (l.packets != 0 || units != 0, l.packets, units)
        };
        let (rx, tx) = match m {
            Some(m) => (half(m.rx, m.time_unit_us), half(m.tx, m.time_unit_us)),
            None => ((false, 0, 0), (false, 0, 0)),
        };
        // The two registers have the same layout but their own generated types.
        fe.pdma().delay_irq().write(|v| {
            v.set_rx_en(rx.0);
            v.set_rx_pint(rx.1);
            v.set_rx_ptime(rx.2);
            v.set_tx_en(tx.0);
            v.set_tx_pint(tx.1);
            v.set_tx_ptime(tx.2);
        });
        fe.qdma().delay_irq().write(|v| {
            v.set_rx_en(rx.0);
            v.set_rx_pint(rx.1);
            v.set_rx_ptime(rx.2);
            v.set_tx_en(tx.0);
            v.set_tx_pint(tx.1);
            v.set_tx_ptime(tx.2);
        });
    }
}
