//! PDMA RX ring 0: NAPI-style polling with a budget, an RX checksum verdict per frame, and
//! refilling each descriptor as soon as its frame is copied out.
//!
//! Frames go to the sink one by one in ring order, then the aggregates of the hardware LRO rings
//! (where the SoC has them). [`Eth::poll_coalesced`] puts SoftLRO between the rings and the sink
//! as the `lro` feature says, and flushes it before returning, so nothing is held past a poll.

use crate::desc::{self, RX_WORDS};
use crate::eth::{BUF_SIZE, Eth, LroMode, Owner, RX_RING};
use crate::platform::{DmaError, Platform};
use crate::softlro::SoftLro;
use fe_regs::descriptors::DescriptorLayout;
use fe_regs::values::PdmaPcrxPtr;

/// The RX checksum verdict of one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RxChecksum {
    /// The hardware verified the L4 (and IPv4 header) checksum; the stack need not check.
    Verified,
    /// No verdict: RX checksum is off, the frame is not TCP/UDP, or its checksum is bad.
    Unverified,
}

/// A received frame, borrowed for the duration of the sink call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxFrame<'a> {
    /// MAC it arrived on.
    pub mac: u8,
    /// The frame, from the destination address, without FCS.
    pub data: &'a [u8],
    /// Checksum verdict.
    pub checksum: RxChecksum,
    /// TCP segments coalesced into this frame (1 for a frame as received).
    pub segs: u16,
    /// Payload bytes of each coalesced segment but the last (the stack's MSS); 0 when `segs` is 1.
    pub seg_size: u16,
}

/// RX ring 0 and its buffers, with who owns each.
#[derive(Debug)]
pub(crate) struct RxRing {
    base: u64,
    bufs: u64,
    desc_size: usize,
    owner: [Owner; RX_RING],
    /// Next descriptor the DMA fills (in ring order).
    next: usize,
}

impl RxRing {
    /// A ring of [`RX_RING`] descriptors at `base` with buffers from `bufs`.
    pub(crate) fn new(base: u64, bufs: u64, desc_size: usize) -> Self {
        RxRing { base, bufs, desc_size, owner: [Owner::Driver; RX_RING], next: 0 }
    }

    /// Physical address of descriptor `i`.
    pub(crate) fn addr(&self, i: usize) -> u64 {
        self.base + (i % RX_RING * self.desc_size) as u64
    }

    fn buf(&self, i: usize) -> u32 {
        (self.bufs + (i * BUF_SIZE) as u64) as u32
    }

    /// Buffers the engine holds.
    pub(crate) fn engine_held(&self) -> usize {
        self.owner.iter().filter(|o| **o == Owner::Engine).count()
    }

    /// Gives descriptor `i` (with its buffer) to the DMA.
    #[inline]
    fn give<P: Platform>(&mut self, p: &P, layout: DescriptorLayout, i: usize) -> Result<(), DmaError> {
        p.dma_write_words(self.addr(i), &desc::rx_fresh(layout, self.buf(i), BUF_SIZE as u16))?;
        self.owner[i] = Owner::Engine;
        Ok(())
    }

    /// Gives every descriptor to the DMA; the next frame lands in descriptor 0.
    pub(crate) fn reset<P: Platform>(&mut self, p: &P, layout: DescriptorLayout) -> Result<(), DmaError> {
        for i in 0..RX_RING {
            self.give(p, layout, i)?;
        }
        self.next = 0;
        Ok(())
    }
}

impl<P: Platform> Eth<P> {
    /// Handles up to `budget` received frames in ring order: copies each out to `sink` with its
    /// checksum verdict (the descriptor's L4-valid bit is trusted only while RX checksum is on),
    /// gives the descriptor back to the DMA, and moves the CPU index. Returns how many
    /// descriptors it consumed (frames delivered plus frames dropped); less than `budget` means
    /// the ring is empty.
    pub fn poll(&mut self, budget: usize, sink: &mut dyn FnMut(RxFrame<'_>)) -> usize {
        let done = self.poll_ring0(budget, sink);
        done + self.poll_lro(budget - done, sink)
    }

    /// [`Eth::poll`] with receive coalescing as the `lro` feature says: off, every frame goes
    /// to `sink` as received; `soft`, ring-0 frames pass through `lro` (SoftLRO); `hw`, the
    /// hardware's aggregates go up as they are and ring-0 frames pass through `lro`. Every
    /// held aggregate is flushed before this returns, and nothing is merged while the interface
    /// forwards ([`Eth::set_forwarding`]).
    pub fn poll_coalesced(&mut self, budget: usize, lro: &mut SoftLro<'_>, sink: &mut dyn FnMut(RxFrame<'_>)) -> usize {
        if self.features.lro == LroMode::Off || self.forwarding {
            return self.poll(budget, sink);
        }
        let done = self.poll_ring0(budget, &mut |f| lro.push(f, sink));
        lro.flush(sink);
        done + self.poll_lro(budget - done, sink)
    }

    /// Ring 0 of [`Eth::poll`].
    fn poll_ring0(&mut self, budget: usize, sink: &mut dyn FnMut(RxFrame<'_>)) -> usize {
        if !self.open || budget == 0 {
            return 0;
        }
        let pd = &self.soc.fe.pdma;
        pd.irq_status.on(self.p.fe()).write(|v| v.clear_rx_done());
        let trust = self.features.rx_checksum;
        let mut done = 0;
        let mut last = None;
        while done < budget {
            let i = self.rx.next;
            let mut w = [0u32; RX_WORDS];
            if self.p.dma_read_words(self.rx.addr(i), &mut w).is_err() {
                self.stats.drops.rx_dma_error += 1;
                break;
            }
            let d = desc::decode_rx(self.rx_layout, w);
            if !d.done {
                break;
            }
            self.rx.owner[i] = Owner::Driver;
            let len = usize::from(d.len);
            let mac = d.src_port.wrapping_sub(1);
            let drops = &mut self.stats.drops;
            if !d.last || len == 0 || len > BUF_SIZE {
                drops.rx_bad_descriptor += 1;
            } else if self.rx_macs & 1u8.checked_shl(u32::from(mac)).unwrap_or(0) == 0 {
                drops.rx_bad_port += 1;
            } else if self.p.dma_read(u64::from(self.rx.buf(i)), &mut self.scratch[..len]).is_err() {
                drops.rx_dma_error += 1;
            } else {
                let checksum = if trust && d.l4_valid { RxChecksum::Verified } else { RxChecksum::Unverified };
                self.stats.count_rx(mac, len, checksum);
                sink(RxFrame { mac, data: &self.scratch[..len], checksum, segs: 1, seg_size: 0 });
            }
            if self.rx.give(&self.p, self.rx_layout, i).is_err() {
                // The descriptor stays the driver's; the ring shrinks by one until close.
                self.stats.drops.rx_dma_error += 1;
            }
            last = Some(i);
            self.rx.next = (i + 1) % RX_RING;
            done += 1;
        }
        if let (Some(i), Some(cpu)) = (last, pd.pcrx_ptr.at(0)) {
            cpu.on(self.p.fe()).write_value(PdmaPcrxPtr(i as u32));
        }
        done
    }

    /// At close, with RX DMA off: counts frames received but not polled as dropped and takes
    /// every buffer back. Returns how many frames were dropped.
    pub(crate) fn rx_teardown(&mut self) -> Result<u64, DmaError> {
        let mut dropped = 0;
        for k in 0..RX_RING {
            let i = (self.rx.next + k) % RX_RING;
            let mut w = [0u32; RX_WORDS];
            self.p.dma_read_words(self.rx.addr(i), &mut w)?;
            if !desc::decode_rx(self.rx_layout, w).done {
                break;
            }
            dropped += 1;
        }
        self.rx.owner = [Owner::Driver; RX_RING];
        self.stats.drops.rx_teardown += dropped;
        Ok(dropped)
    }
}
