//! The TX watchdog: detects a hung QDMA TX engine and recovers by a full reset.
//!
//! Hung means: descriptors are waiting for the engine (`dtx_ptr != ctx_ptr`) and neither
//! `dtx_ptr` nor the MACs' MIB `tx_packets` moved for [`TX_TIMEOUT_NS`] of the platform clock, or
//! the engine cleared its own `tx_dma_en`. Recovery is `close` (completed frames reclaimed as sent,
//! the rest counted as dropped, every buffer taken back), then `open` (cold reset, fresh rings),
//! then the links that were up are programmed again. Lost interrupts need no recovery: `poll` and
//! `reclaim` read the rings, never the interrupt status, and acknowledge it themselves.

use crate::dt::board::MAX_MACS;
use crate::eth::{CloseReport, Eth, EthError, LinkState};
use crate::platform::Platform;
use crate::stats::WatchdogState;

/// How long TX may make no progress with descriptors waiting before the engine is reset.
pub const TX_TIMEOUT_NS: u64 = 100_000_000;

impl<P: Platform> Eth<P> {
    /// Call periodically (every few ms to 1 s): acknowledges TX done (so a spurious interrupt
    /// cannot stay asserted), reclaims completed TX, reads the MIB counters before they can wrap,
    /// and if TX is hung, resets the engine and resumes traffic. Returns what the reset took back,
    /// or `None` if all is well.
    pub fn watchdog(&mut self) -> Result<Option<CloseReport>, EthError> {
        if !self.open {
            return Ok(None);
        }
        // Acknowledge first, then look: a completion after this point raises the bit again.
        self.soc.fe.bind(&self.p.fe()).qdma().int_status().write(|v| v.clear_tx_done());
        self.reclaim();
        self.mib_update_all();
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        let q = fe.qdma();
        let stopped = !q.glo_cfg().read().tx_dma_en();
        let (dtx, ctx) = (q.dtx_ptr().read().0, q.ctx_ptr().read().0);
        let sent: u64 = self.mib.mac.iter().map(|m| m.tx_packets).sum();
        let now = self.p.now_ns();
        let waiting = self.tx.in_flight() > 0 && dtx != ctx;
        if !stopped && (!waiting || dtx != self.wd.dtx || sent != self.wd.sent) {
            self.wd = WatchdogState { dtx, sent, since: now, ..self.wd };
            return Ok(None);
        }
        if !stopped && now.saturating_sub(self.wd.since) < TX_TIMEOUT_NS {
            return Ok(None);
        }
        self.reset().map(Some)
    }

    /// Resets the engine (close, cold reset, open) keeping the links and features.
    pub fn reset(&mut self) -> Result<CloseReport, EthError> {
        let mut links: [Option<Option<LinkState>>; MAX_MACS] = [None; MAX_MACS];
        for m in self.enabled_macs() {
            if let Some(l) = links.get_mut(m.id as usize) {
                *l = Some(m.link);
            }
        }
        self.mib_update_all();
        let report = self.close()?;
        self.open()?;
        for (id, l) in links.iter().enumerate() {
            match l {
                Some(Some(l)) => self.link_up(id as u8, *l)?,
                Some(None) => self.link_down(id as u8)?,
                None => {}
            }
        }
        let dtx = self.soc.fe.bind(&self.p.fe()).qdma().dtx_ptr().read().0;
        let sent = self.mib.mac.iter().map(|m| m.tx_packets).sum();
        self.wd = WatchdogState { dtx, sent, since: self.p.now_ns(), resets: self.wd.resets + 1 };
        Ok(report)
    }
}
