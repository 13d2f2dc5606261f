//! QDMA TX: the linked descriptor ring, `xmit` (copy into a pre-allocated buffer, fill the
//! layout's descriptor, kick `ctx_ptr`) and `reclaim` (walk from the CPU release pointer to the
//! engine's `drx_ptr`, freeing buffers the engine handed back).
//!
//! Every frame handed to [`Eth::xmit`] is sent (counted when reclaimed) or counted as dropped by
//! cause; the ring keeps one descriptor free so a full ring never looks empty to the engine.
//! TX checksum offload, TSO and multi-descriptor frames are in [`crate::tx_offload`].

use crate::desc::{self, TxCodec, TxDesc};
use crate::eth::{BUF_SIZE, Eth, Owner, TX_RING};
use crate::platform::{DmaError, Platform};
use fe_regs::descriptors::{DescriptorLayout, TxV1, TxV2};
use fe_regs::values::{QdmaCrxPtr, QdmaCtxPtr};

/// Why a frame was not queued (each is also counted in [`crate::stats::Drops`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxError {
    /// The interface is not open.
    NotOpen,
    /// No such MAC, or not enabled in the device tree.
    BadMac,
    /// The queue is past the SoC's TX queues.
    BadQueue,
    /// The frame is empty or longer than a TX buffer.
    BadLength,
    /// The MAC's link is down.
    LinkDown,
    /// No free descriptor (reclaim, or wait for TX done).
    RingFull,
    /// A DMA access was refused.
    Dma(DmaError),
    /// The frame asks for an offload (TX checksum, TSO) that is turned off.
    OffloadOff,
    /// A TSO frame that is not TCP over IPv4/IPv6, has a bad MSS, or needs too many descriptors.
    BadTso,
}

/// What [`Eth::xmit_burst`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[must_use]
pub struct Burst {
    /// Frames queued, from the first.
    pub queued: usize,
    /// Why the frame after them was not, if the burst stopped early.
    pub stopped: Option<TxError>,
}

/// The TX ring and its buffers, with who owns each.
#[derive(Debug)]
pub(crate) struct TxRing {
    base: u64,
    bufs: u64,
    desc_size: usize,
    pub(crate) owner: [Owner; TX_RING],
    /// Per descriptor: (MAC, length) of the frame it ends; length 0 on the earlier descriptors
    /// of a multi-descriptor frame (so each frame is counted once, as sent or dropped).
    pub(crate) meta: [(u8, u16); TX_RING],
    /// Next descriptor to fill.
    pub(crate) head: usize,
    /// The descriptor the CPU release pointer names (last freed).
    pub(crate) released: usize,
    /// Descriptors filled and not yet reclaimed.
    pub(crate) in_flight: usize,
}

impl TxRing {
    /// A ring of [`TX_RING`] descriptors at `base` with buffers from `bufs`.
    pub(crate) fn new(base: u64, bufs: u64, desc_size: usize) -> Self {
        TxRing {
            base,
            bufs,
            desc_size,
            owner: [Owner::Driver; TX_RING],
            meta: [(0, 0); TX_RING],
            head: 0,
            released: TX_RING - 1,
            in_flight: 0,
        }
    }

    /// Physical address of descriptor `i`.
    pub(crate) fn addr(&self, i: usize) -> u32 {
        (self.base + (i % TX_RING * self.desc_size) as u64) as u32
    }

    /// Physical address of buffer `i`.
    pub(crate) fn buf(&self, i: usize) -> u32 {
        (self.bufs + (i * BUF_SIZE) as u64) as u32
    }

    /// Index of the descriptor at physical address `a`, if it is one.
    fn index(&self, a: u32) -> Option<usize> {
        let d = u64::from(a).checked_sub(self.base)? as usize;
        (d.is_multiple_of(self.desc_size) && d / self.desc_size < TX_RING).then_some(d / self.desc_size)
    }

    /// Buffers the engine holds.
    pub(crate) fn engine_held(&self) -> usize {
        self.owner.iter().filter(|o| **o == Owner::Engine).count()
    }

    /// Writes every descriptor as the CPU's, linked in a circle; every buffer is the driver's.
    pub(crate) fn reset<P: Platform>(&mut self, p: &P, layout: DescriptorLayout) -> Result<(), DmaError> {
        for i in 0..TX_RING {
            let d =
                TxDesc { addr: self.buf(i), next: self.addr(i + 1), last: true, owner_cpu: true, ..TxDesc::default() };
            let (w, n) = desc::encode_tx(layout, &d);
            p.dma_write_words(u64::from(self.addr(i)), &w[..n])?;
        }
        self.owner = [Owner::Driver; TX_RING];
        self.head = 0;
        self.released = TX_RING - 1;
        self.in_flight = 0;
        Ok(())
    }
}

impl<P: Platform> Eth<P> {
    /// Frames `xmit` can queue now without reclaiming (one descriptor always stays free).
    #[must_use]
    pub fn tx_room(&self) -> usize {
        TX_RING - 1 - self.tx.in_flight
    }

    /// Queues `frame` on MAC `mac`'s QDMA queue `queue`: copies it into the next free TX
    /// buffer, fills the SoC's descriptor layout (forward port = MAC + 1, queue id), and hands it
    /// to the engine. A frame that cannot be queued is counted as dropped and the cause returned.
    pub fn xmit(&mut self, mac: u8, queue: u8, frame: &[u8]) -> Result<(), TxError> {
        self.stats.tx_submitted += 1;
        let r = self.try_xmit(mac, queue, frame);
        if let Err(e) = r {
            self.stats.drops.count_tx(e);
        }
        r
    }

    #[inline(always)]
    fn try_xmit(&mut self, mac: u8, queue: u8, frame: &[u8]) -> Result<(), TxError> {
        // One test on the fast path: open, MAC enabled and link up (`Eth::tx_ready`).
        if self.tx_ready & 1u8.checked_shl(u32::from(mac)).unwrap_or(0) == 0 {
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
        self.kick();
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
        self.stats.tx_submitted += b.queued as u64;
        if b.queued > 0 {
            self.kick();
        }
        b
    }

    /// [`Eth::xmit_burst`] for layout `C`, without the doorbell.
    #[inline(always)]
    fn burst_in<C: TxCodec>(&mut self, mac: u8, queue: u8, frames: &[&[u8]]) -> Burst {
        let Some(first) = frames.first() else { return Burst { queued: 0, stopped: None } };
        if self.tx_ready & 1u8.checked_shl(u32::from(mac)).unwrap_or(0) == 0 {
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

    /// Tells the engine about every descriptor filled so far (the CPU TX pointer).
    #[inline(always)]
    fn kick(&mut self) {
        let next = self.tx.addr(self.tx.head);
        self.soc.fe.qdma.ctx_ptr.on(self.p.fe()).write_value(QdmaCtxPtr(next));
    }

    /// Fills the next descriptor (layout `C`) with `frame` and hands it to the engine (which
    /// sees it at the next [`Eth::kick`]); the caller checked the MAC, queue, length and room.
    /// The slot's buffer and next-descriptor addresses were written when the ring was reset,
    /// so only the control words are.
    #[inline(always)]
    fn fill_one<C: TxCodec>(&mut self, mac: u8, queue: u8, frame: &[u8]) -> Result<(), TxError> {
        let i = self.tx.head % TX_RING;
        self.p.dma_write(u64::from(self.tx.buf(i)), frame).map_err(TxError::Dma)?;
        let d = TxDesc {
            len: frame.len() as u16,
            last: true,
            fport: mac + 1,
            qid: queue,
            csum: self.features.tx_checksum,
            ..TxDesc::default()
        };
        let w = C::ctrl(&d);
        let here = self.tx.addr(i);
        self.p.dma_write_words(u64::from(here) + 4 * C::LO as u64, &w[..C::N]).map_err(TxError::Dma)?;
        self.tx.owner[i] = Owner::Engine;
        self.tx.meta[i] = (mac, frame.len() as u16);
        self.tx.head = (i + 1) % TX_RING;
        self.tx.in_flight += 1;
        Ok(())
    }

    /// Why a frame for `mac` is refused when the fast path's readiness test fails, checked in
    /// the order callers see: not open, bad MAC, bad queue, bad length, link down.
    #[cold]
    fn tx_refusal(&self, mac: u8, queue: u8, len: usize) -> TxError {
        match self.mac(mac).filter(|m| m.enabled) {
            _ if !self.open => TxError::NotOpen,
            None => TxError::BadMac,
            Some(_) if queue >= self.soc.caps.tx_queues => TxError::BadQueue,
            Some(_) if len == 0 || len > BUF_SIZE => TxError::BadLength,
            Some(_) => TxError::LinkDown,
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

    /// [`Eth::reclaim`] for layout `C`: reads only each descriptor's owner word.
    #[inline(always)]
    fn reclaim_in<C: TxCodec>(&mut self) -> usize {
        if self.tx.in_flight == 0 {
            return 0;
        }
        let q = &self.soc.fe.qdma;
        let drx = q.drx_ptr.on(self.p.fe()).read().0;
        let Some(done) = self.tx.index(drx) else { return 0 };
        let mut freed = 0;
        let mut i = self.tx.released % TX_RING;
        while i != done && freed < self.tx.in_flight {
            let next = (i + 1) % TX_RING;
            let mut w = [0u32];
            if self.p.dma_read_words(u64::from(self.tx.addr(next)) + 4 * C::OWNER as u64, &mut w).is_err()
                || !C::owner_cpu(w[0])
            {
                break;
            }
            let (mac, len) = self.tx.meta[next];
            if let Some(c) = self.stats.mac.get_mut(mac as usize).filter(|_| len > 0) {
                c.tx_frames += 1;
                c.tx_bytes += u64::from(len);
            }
            self.tx.owner[next] = Owner::Driver;
            i = next;
            freed += 1;
        }
        if freed > 0 {
            self.tx.released = i;
            self.tx.in_flight -= freed;
            q.crx_ptr.on(self.p.fe()).write_value(QdmaCrxPtr(self.tx.addr(i)));
            q.int_status.on(self.p.fe()).write(|v| v.clear_tx_done());
        }
        freed
    }

    /// At close, after reclaim: takes back descriptors the engine never took, counting their
    /// frames as dropped and giving the descriptors back to the CPU. Returns how many.
    pub(crate) fn tx_teardown(&mut self) -> Result<u64, DmaError> {
        let mut dropped = 0;
        while self.tx.in_flight > 0 {
            let i = (self.tx.released + 1) % TX_RING;
            let d = TxDesc {
                addr: self.tx.buf(i),
                next: self.tx.addr(i + 1),
                last: true,
                owner_cpu: true,
                ..TxDesc::default()
            };
            let (w, n) = desc::encode_tx(self.tx_layout, &d);
            self.p.dma_write_words(u64::from(self.tx.addr(i)), &w[..n])?;
            self.tx.owner[i] = Owner::Driver;
            self.tx.released = i;
            self.tx.in_flight -= 1;
            dropped += u64::from(self.tx.meta[i].1 > 0);
        }
        self.stats.drops.tx_teardown += dropped;
        Ok(dropped)
    }
}
