//! The send entry points of the engine: `xmit` (copy into the ring's buffer, fill the layout's
//! descriptor, kick), `xmit_burst` (one doorbell for many frames) and `reclaim`. The ring itself
//! (`TxRing`, `ring/tx.rs`) owns the descriptors, the frame records and the doorbell.
//!
//! Every frame handed to [`Eth::xmit`] is sent (counted when reclaimed) or counted as dropped by
//! cause. TX checksum offload, TSO and multi-descriptor frames are in [`crate::tx_offload`].

use crate::desc::{TxCodec, TxDesc};
pub use crate::error::TxError;
use crate::eth::{BUF_SIZE, Eth};
use crate::handles::EthTx;
use crate::platform::Platform;
use fe_regs::descriptors::{DescriptorLayout, TxV1, TxV2};

/// What [`Eth::xmit_burst`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct Burst {
    /// Frames queued, from the first.
    pub queued: usize,
    /// Why the frame after them was not, if the burst stopped early.
    pub stopped: Option<TxError>,
}

impl<P: Platform> Eth<P> {
    /// Frames `xmit` can queue now without reclaiming (one descriptor always stays free).
    #[must_use]
    pub fn tx_room(&self) -> usize {
        self.tx.room()
    }

    /// [`EthTx::xmit`] on the whole engine.
    #[inline(always)]
    pub fn xmit(&mut self, mac: u8, queue: u8, frame: &[u8]) -> Result<(), TxError> {
        self.tx_handle().xmit(mac, queue, frame)
    }

    /// [`EthTx::xmit_burst`] on the whole engine.
    #[inline(always)]
    pub fn xmit_burst(&mut self, mac: u8, queue: u8, frames: &[&[u8]]) -> Burst {
        self.tx_handle().xmit_burst(mac, queue, frames)
    }

    /// [`EthTx::reclaim`] on the whole engine.
    #[inline(always)]
    pub fn reclaim(&mut self) -> usize {
        self.tx_handle().reclaim()
    }
}

impl<P: Platform> EthTx<'_, P> {
    /// Frames `xmit` can queue now without reclaiming (one descriptor always stays free).
    #[must_use]
    pub fn tx_room(&self) -> usize {
        self.tx.room()
    }

    /// Whether `xmit` on MAC `mac` would queue a frame now (see [`Eth::can_xmit`]).
    #[must_use]
    pub fn can_xmit(&self, mac: u8) -> bool {
        self.sh.tx_ready() & 1u8.checked_shl(u32::from(mac)).unwrap_or(0) != 0 && self.tx_room() > 0
    }

    /// Queues `frame` on MAC `mac`'s QDMA queue `queue`: copies it into the next free TX
    /// buffer, fills the SoC's descriptor layout (forward port = MAC + 1, queue id), and hands it
    /// to the engine. A frame that cannot be queued is counted as dropped and the cause returned.
    pub fn xmit(&mut self, mac: u8, queue: u8, frame: &[u8]) -> Result<(), TxError> {
        self.sh.stats.tx_submitted.add(1);
        let r = self.try_xmit(mac, queue, frame);
        if let Err(e) = r {
            self.sh.stats.drops.count_tx(e);
        }
        r
    }

    #[inline(always)]
    fn try_xmit(&mut self, mac: u8, queue: u8, frame: &[u8]) -> Result<(), TxError> {
        // One test on the fast path: open, MAC enabled and link up (`Eth::tx_ready`).
        if self.sh.tx_ready() & 1u8.checked_shl(u32::from(mac)).unwrap_or(0) == 0 {
            return Err(self.tx_refusal(mac, queue, frame.len()));
        }
        if queue >= self.soc.caps.tx_queues {
            return Err(TxError::BadQueue);
        }
        if frame.is_empty() || frame.len() > BUF_SIZE {
            return Err(TxError::BadLength);
        }
        if self.tx_room() == 0 && self.reclaim() == 0 {
            return Err(TxError::RingFull);
        }
        match self.tx_layout {
            DescriptorLayout::TxV2 => self.fill_one::<TxV2>(mac, queue, frame)?,
            _ => self.fill_one::<TxV1>(mac, queue, frame)?,
        }
        self.tx.kick(self.p);
        Ok(())
    }

    /// Queues `frames` in order on MAC `mac`'s queue `queue` and rings the engine's doorbell
    /// once at the end (Linux's `xmit_more`, DPDK's `tx_burst`). Stops at the first frame that
    /// cannot be queued: that frame and the ones after it are not taken (nothing is counted for
    /// them; the caller keeps them, to retry after [`Eth::reclaim`] or to drop), and
    /// [`Burst::stopped`] says why.
    pub fn xmit_burst(&mut self, mac: u8, queue: u8, frames: &[&[u8]]) -> Burst {
        let b = match self.tx_layout {
            DescriptorLayout::TxV2 => self.burst_in::<TxV2>(mac, queue, frames),
            _ => self.burst_in::<TxV1>(mac, queue, frames),
        };
        self.sh.stats.tx_submitted.add(b.queued as u64);
        if b.queued > 0 {
            self.tx.kick(self.p);
        }
        b
    }

    /// [`EthTx::xmit_burst`] for layout `C`, without the doorbell.
    #[inline(always)]
    fn burst_in<C: TxCodec>(&mut self, mac: u8, queue: u8, frames: &[&[u8]]) -> Burst {
        let Some(first) = frames.first() else { return Burst { queued: 0, stopped: None } };
        if self.sh.tx_ready() & 1u8.checked_shl(u32::from(mac)).unwrap_or(0) == 0 {
            return Burst { queued: 0, stopped: Some(self.tx_refusal(mac, queue, first.len())) };
        }
        if queue >= self.soc.caps.tx_queues {
            return Burst { queued: 0, stopped: Some(TxError::BadQueue) };
        }
        for (queued, frame) in frames.iter().enumerate() {
            let stop = if frame.is_empty() || frame.len() > BUF_SIZE {
                Some(TxError::BadLength)
            } else if self.tx_room() == 0 && self.reclaim() == 0 {
                Some(TxError::RingFull)
            } else {
                self.fill_one::<C>(mac, queue, frame).err()
            };
            if stop.is_some() {
                return Burst { queued, stopped: stop };
            }
        }
        Burst { queued: frames.len(), stopped: None }
    }

    /// Fills the next descriptor (layout `C`) with `frame` for the engine to take at the next
    /// kick; the caller checked the MAC, queue, length and room.
    #[inline(always)]
    fn fill_one<C: TxCodec>(&mut self, mac: u8, queue: u8, frame: &[u8]) -> Result<(), TxError> {
        let d = TxDesc {
            len: frame.len() as u16,
            last: true,
            fport: mac + 1,
            qid: queue,
            csum: self.sh.tx_checksum(),
            ..TxDesc::default()
        };
        self.tx.push::<C, P>(self.p, frame, &d, mac, frame.len() as u16).map_err(TxError::Dma)?;
        Ok(())
    }

    /// Why a frame for `mac` is refused when the fast path's readiness test fails, checked in
    /// the order callers see: not open, bad MAC, bad queue, bad length, link down.
    #[cold]
    fn tx_refusal(&self, mac: u8, queue: u8, len: usize) -> TxError {
        let enabled = self.enabled & 1u8.checked_shl(u32::from(mac)).unwrap_or(0) != 0;
        match () {
            _ if !self.open => TxError::NotOpen,
            _ if !enabled => TxError::BadMac,
            _ if queue >= self.soc.caps.tx_queues => TxError::BadQueue,
            _ if len == 0 || len > BUF_SIZE => TxError::BadLength,
            _ => TxError::LinkDown,
        }
    }

    /// Frees the buffers of every descriptor the engine has completed: walks from the CPU
    /// release pointer to the engine's `drx_ptr`, checks each descriptor's owner bit, counts the
    /// frame as sent, and moves the release pointer. Returns how many were freed.
    pub fn reclaim(&mut self) -> usize {
        match self.tx_layout {
            DescriptorLayout::TxV2 => self.reclaim_in::<TxV2>(),
            _ => self.reclaim_in::<TxV1>(),
        }
    }

    /// [`EthTx::reclaim`] for layout `C`: counts each completed frame as sent on its MAC.
    #[inline(always)]
    fn reclaim_in<C: TxCodec>(&mut self) -> usize {
        let EthTx { tx, p, sh, soc, .. } = self;
        let freed = tx.reclaim::<C, P>(p, |mac, len| sh.stats.count_tx_sent(mac, u64::from(len)));
        if freed > 0 {
            soc.fe.bind(&p.fe()).qdma().int_status().write(|v| v.clear_tx_done());
        }
        freed
    }
}
