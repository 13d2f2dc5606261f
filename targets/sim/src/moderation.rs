//! Delayed done interrupts (interrupt moderation): the delay-interrupt registers hold the RX done
//! status (PDMA `irq_status.rx_done`, moderated by `pdma.delay_irq`'s RX half) and the TX done
//! status (QDMA `int_status.tx_done`, moderated by `qdma.delay_irq`'s TX half) back until the
//! packet-count limit (`*_pint`) or the time limit (`*_ptime` units of the SoC's
//! `irq.moderation.time_unit_us`, counted from the first held completion) is reached. A limit of
//! 0 is unused; with the enable bit clear every completion raises the status at once.

use crate::engine::{Inner, off};
use crate::violation::Violation;
use fe_regs::values::{PdmaDelayIrq, QdmaDelayIrq};

/// Which done interrupt a completion belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dir {
    /// PDMA RX done.
    Rx,
    /// QDMA TX done.
    Tx,
}

/// Completions held back by one direction's delay.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Held {
    /// Completions not yet signalled.
    count: u32,
    /// When the first of them completed.
    since: Option<u64>,
}

/// Both directions' held completions.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Moderation {
    rx: Held,
    tx: Held,
}

/// One direction's delay setting: `(enabled, packet limit, time limit in ns)`.
type Delay = (bool, u32, Option<u64>);

impl Inner {
    fn delay(&self, dir: Dir) -> Delay {
        let fe = &self.soc.fe;
        let unit_ns = self.soc.caps.irq.moderation.map_or(0, |m| u64::from(m.time_unit_us) * 1000);
        let (en, pint, ptime) = match dir {
            Dir::Rx => {
                let v = PdmaDelayIrq::from_bits(self.fe(off(fe.pdma.delay_irq)));
                (v.rx_en(), v.rx_pint(), v.rx_ptime())
            }
            Dir::Tx => {
                let v = QdmaDelayIrq::from_bits(self.fe(off(fe.qdma.delay_irq)));
                (v.tx_en(), v.tx_pint(), v.tx_ptime())
            }
        };
        (en, u32::from(pint), (ptime != 0).then_some(u64::from(ptime) * unit_ns))
    }

    fn held(&mut self, dir: Dir) -> &mut Held {
        match dir {
            Dir::Rx => &mut self.moderation.rx,
            Dir::Tx => &mut self.moderation.tx,
        }
    }

    /// Raises `dir`'s done status bit and forgets what was held.
    fn signal(&mut self, dir: Dir) {
        let fe = &self.soc.fe;
        *self.held(dir) = Held::default();
        match dir {
            Dir::Rx => {
                self.stats.rx_done_irqs += 1;
                self.raise(off(fe.pdma.irq_status), 30);
            }
            Dir::Tx => {
                self.stats.tx_done_irqs += 1;
                self.raise(off(fe.qdma.int_status), 28);
            }
        }
    }

    /// One completion (a received frame, a sent descriptor) in `dir`: its done status is
    /// raised now, or held as the delay-interrupt register says.
    pub(crate) fn complete(&mut self, dir: Dir) {
        let (en, pint, _) = self.delay(dir);
        if !en {
            self.signal(dir);
            return;
        }
        let now = self.now;
        let h = self.held(dir);
        h.count += 1;
        h.since.get_or_insert(now);
        if pint != 0 && h.count >= pint {
            self.signal(dir);
        }
    }

    /// The earliest time a held completion reaches its time limit.
    pub(crate) fn moderation_deadline(&self) -> Option<u64> {
        // Asked at every event of the engine's loop: nothing is read (no register, no copy of
        // the held state) for a direction that holds nothing.
        let deadline = |d: Dir, since: Option<u64>| Some(since? + self.delay(d).2?);
        crate::engine::earliest(
            deadline(Dir::Rx, self.moderation.rx.since),
            deadline(Dir::Tx, self.moderation.tx.since),
        )
    }

    /// Signals every direction whose held completions reached their time limit by now.
    pub(crate) fn moderation_expire(&mut self) {
        for d in [Dir::Rx, Dir::Tx] {
            let h = *self.held(d);
            if let (Some(since), Some(limit)) = (h.since, self.delay(d).2)
                && since + limit <= self.now
            {
                self.signal(d);
            }
        }
    }

    /// After a write to a delay-interrupt register: refuses a delay that can never fire, and
    /// signals at once what is held when the delay was switched off.
    pub(crate) fn delay_written(&mut self, offset: u32) {
        let fe = &self.soc.fe;
        let dirs: &[(Dir, &'static str)] = if offset == off(fe.pdma.delay_irq) {
            &[(Dir::Rx, "pdma.delay_irq")]
        } else if offset == off(fe.qdma.delay_irq) {
            &[(Dir::Tx, "qdma.delay_irq")]
        } else {
            return;
        };
        for &(d, register) in dirs {
            let (en, pint, time) = self.delay(d);
            if en && pint == 0 && time.is_none() {
                self.violate(Violation::DelayNeverFires { register });
            }
            if en && self.soc.caps.irq.moderation.is_none() {
                self.violate(Violation::DelayUnitUnknown { register });
            }
            if !en && self.held(d).count > 0 {
                self.signal(d);
            }
        }
    }

    /// Forgets held completions (cold reset).
    pub(crate) fn moderation_reset(&mut self) {
        self.moderation = Moderation::default();
    }
}
