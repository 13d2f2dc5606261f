//! Interrupt handling, NAPI style: the handler masks the causes it finds and tells the caller
//! what to poll; the poll loop unmasks them when it has drained the work.
//!
//! Which causes reach which device-tree interrupt line comes from the SoC's IRQ layout (one
//! shared line on MT7621, TX and RX lines on MT7623/MT7986), never from the SoC's identity.

use crate::eth::Eth;
use crate::platform::Platform;
use fe_regs::caps::{IrqLayout, IrqModeration, ModerationLimits};

/// What an interrupt asks the caller to do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IrqWork {
    /// Poll RX (`Eth::poll`) until it returns less than its budget.
    pub rx: bool,
    /// Reclaim TX (`Eth::reclaim`).
    pub tx: bool,
}

impl<P: Platform> Eth<P> {
    /// The causes routed to device-tree interrupt `line` by the SoC's IRQ layout.
    fn line_causes(&self, line: u8) -> IrqWork {
        match self.soc.caps.irq.layout {
            IrqLayout::Shared { line: l } => IrqWork { rx: l == line, tx: l == line },
            IrqLayout::Split { tx, rx } => IrqWork { rx: rx == line, tx: tx == line },
        }
    }

    /// The interrupt handler for device-tree interrupt `line`: finds the pending, unmasked
    /// causes routed to it, masks them, and returns the work to schedule. Unmask with
    /// [`Eth::irq_enable`] once that work is drained.
    pub fn irq(&mut self, line: u8) -> IrqWork {
        let fe = &self.soc.fe;
        let causes = self.line_causes(line);
        let rx = causes.rx
            && fe.pdma.irq_status.on(self.p.fe()).read().rx_done()
            && fe.pdma.irq_mask.on(self.p.fe()).read().rx_done();
        let tx = causes.tx
            && fe.qdma.int_status.on(self.p.fe()).read().tx_done()
            && fe.qdma.int_mask.on(self.p.fe()).read().tx_done();
        if rx {
            fe.pdma.irq_mask.on(self.p.fe()).modify(|v| v.set_rx_done(false));
            self.stats.irq_rx += 1;
        }
        if tx {
            fe.qdma.int_mask.on(self.p.fe()).modify(|v| v.set_tx_done(false));
            // Acknowledge now: reclaim reads the release pointer, not the status bit.
            fe.qdma.int_status.on(self.p.fe()).write(|v| v.clear_tx_done());
            self.stats.irq_tx += 1;
        }
        if !rx && !tx {
            self.stats.irq_spurious += 1;
        }
        IrqWork { rx, tx }
    }

    /// Unmasks the causes in `work` (the poll loop drained them); a cause still pending
    /// re-raises the line at once, so nothing is lost between the last poll and the unmask.
    pub fn irq_enable(&mut self, work: IrqWork) {
        let fe = &self.soc.fe;
        if work.rx {
            fe.pdma.irq_mask.on(self.p.fe()).modify(|v| v.set_rx_done(true));
        }
        if work.tx {
            fe.qdma.int_mask.on(self.p.fe()).modify(|v| v.set_tx_done(true));
        }
    }

    /// Programs interrupt moderation (the open default is the SoC's `irq.moderation`): the
    /// delayed RX/TX done interrupt fires when either limit is reached. `None` turns it off, so
    /// every completion interrupts at once. One value goes into both delay-interrupt registers,
    /// as Linux writes it.
    pub fn set_irq_moderation(&self, m: Option<IrqModeration>) {
        let fe = &self.soc.fe;
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
        fe.pdma.delay_irq.on(self.p.fe()).write(|v| {
            v.set_rx_en(rx.0);
            v.set_rx_pint(rx.1);
            v.set_rx_ptime(rx.2);
            v.set_tx_en(tx.0);
            v.set_tx_pint(tx.1);
            v.set_tx_ptime(tx.2);
        });
        fe.qdma.delay_irq.on(self.p.fe()).write(|v| {
            v.set_rx_en(rx.0);
            v.set_rx_pint(rx.1);
            v.set_rx_ptime(rx.2);
            v.set_tx_en(tx.0);
            v.set_tx_pint(tx.1);
            v.set_tx_ptime(tx.2);
        });
    }
}
