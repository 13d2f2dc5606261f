//! TX checksum offload and TSO: [`TxMeta`], [`Eth::xmit_with`], [`Eth::xmit_tso`] and
//! [`Eth::xmit_gather`] (a frame in pieces, [`TxParts`]), and frames spread over several
//! descriptors (`ls0` only on the last; the engine joins the buffers).
//!
//! A frame that asks for an offload which is turned off is refused and counted
//! ([`crate::tx::TxError::OffloadOff`]), never sent with wrong checksums. A TSO frame carries its
//! MSS in the TCP checksum field and the layout's TSO bit, as `mtk_eth_soc` does; the engine
//! cuts it into MSS-sized segments with their own headers and checksums.

use crate::desc::{TxCodec, TxDesc};
use crate::eth::{BUF_SIZE, Eth};
use crate::frame::{TxMeta, TxParts};
use crate::handles::EthTx;
use crate::headers::ethernet::Ethernet;
use crate::headers::ip::{Ip, PROTO_TCP, v4};
use crate::headers::l4::{tcp, tcp_header_len};
use crate::platform::Platform;
use crate::ring::tx::TX_RING;
use crate::tx::TxError;
use fe_regs::descriptors::{DescriptorLayout, TxV1, TxV2};

/// Largest TSO frame in bytes (descriptor lengths and the driver's counters are 16 bits).
pub const MAX_TSO_FRAME: usize = u16::MAX as usize;

/// Offset of the TCP checksum field and the length of all headers of an Ethernet (up to two
/// VLAN tags) IPv4/IPv6 TCP frame; `None` when the frame is anything else, an IPv4 fragment, or
/// IPv6 with extension headers (the engine finds TCP only right after the fixed header).
fn tcp_headers(frame: &[u8]) -> Option<(usize, usize)> {
    let l2 = Ethernet::parse(frame)?;
    let ip = Ip::parse(frame, l2.ethertype, l2.l3).ok()?;
    if ip.proto != PROTO_TCP || ip.fragment || (ip.v6 && ip.has_extensions()) || ip.l4 < ip.l3 + v4::HLEN {
        return None;
    }
    let hlen = tcp_header_len(frame, ip.l4, frame.len())?;
    Some((ip.l4 + tcp::CSUM, ip.l4 + hlen))
}

impl<P: Platform> Eth<P> {
    /// [`EthTx::xmit_with`] on the whole engine.
    #[inline(always)]
    pub fn xmit_with(&mut self, mac: u8, queue: u8, frame: &[u8], meta: TxMeta) -> Result<(), TxError> {
        self.tx_handle().xmit_with(mac, queue, frame, meta)
    }

    /// [`EthTx::xmit_tso`] on the whole engine.
    #[inline(always)]
    pub fn xmit_tso(&mut self, mac: u8, queue: u8, frame: &[u8], mss: u16) -> Result<(), TxError> {
        self.tx_handle().xmit_tso(mac, queue, frame, mss)
    }

    /// [`EthTx::xmit_gather`] on the whole engine.
    #[inline(always)]
    pub fn xmit_gather(&mut self, mac: u8, queue: u8, frame: TxParts<'_>, meta: TxMeta) -> Result<(), TxError> {
        self.tx_handle().xmit_gather(mac, queue, frame, meta)
    }
}

impl<P: Platform> EthTx<'_, P> {
    /// Queues `frame` with the offloads of `meta`; like [`Eth::xmit`], a frame that cannot be
    /// queued is counted as dropped and the cause returned.
    pub fn xmit_with(&mut self, mac: u8, queue: u8, frame: &[u8], meta: TxMeta) -> Result<(), TxError> {
        self.xmit_gather(mac, queue, TxParts::new(&[frame]), meta)
    }

    /// [`EthTx::xmit_with`] for a frame held in pieces (a socket buffer's head and page
    /// fragments), copied into the TX buffers piece by piece: the caller need not make it linear.
    pub fn xmit_gather(&mut self, mac: u8, queue: u8, frame: TxParts<'_>, meta: TxMeta) -> Result<(), TxError> {
        self.sh.stats.tx_submitted.add(1);
        let r = self.try_xmit_with(mac, queue, frame, meta);
        if let Err(e) = r {
            self.sh.stats.drops.count_tx(e);
        }
        r
    }

    /// Queues one TCP frame of up to [`MAX_TSO_FRAME`] bytes for segmentation into `mss`-byte
    /// segments by the engine (TSO and TX checksum must be on).
    pub fn xmit_tso(&mut self, mac: u8, queue: u8, frame: &[u8], mss: u16) -> Result<(), TxError> {
        self.xmit_with(mac, queue, frame, TxMeta::tso(mss))
    }

    fn try_xmit_with(&mut self, mac: u8, queue: u8, frame: TxParts<'_>, meta: TxMeta) -> Result<(), TxError> {
        if !self.open {
            return Err(TxError::NotOpen);
        }
        let bit = 1u8.checked_shl(u32::from(mac)).unwrap_or(0);
        if self.enabled & bit == 0 {
            return Err(TxError::BadMac);
        }
        if queue >= self.soc.caps.tx_queues {
            return Err(TxError::BadQueue);
        }
        let limit = if meta.tso_mss.is_some() { MAX_TSO_FRAME } else { BUF_SIZE };
        if frame.is_empty() || frame.len() > limit {
            return Err(TxError::BadLength);
        }
        let features = self.sh.features();
        if (meta.csum && !features.tx_checksum) || (meta.tso_mss.is_some() && !features.tso) {
            return Err(TxError::OffloadOff);
        }
        let mss_field = match meta.tso_mss {
            None => None,
            Some(mss) => {
                // Headers in the first piece (a GSO skb's head holds them all).
                let (field, headers) = tcp_headers(frame.head()).ok_or(TxError::BadTso)?;
                if mss == 0 || headers + usize::from(mss) > BUF_SIZE {
                    return Err(TxError::BadTso);
                }
                Some((field, mss))
            }
        };
        if self.sh.tx_ready() & bit == 0 {
            return Err(TxError::LinkDown);
        }
        let n = frame.len().div_ceil(BUF_SIZE);
        if n > TX_RING - 1 {
            return Err(TxError::BadTso);
        }
        if self.tx_room() < n {
            self.reclaim();
            if self.tx_room() < n {
                return Err(TxError::RingFull);
            }
        }
        let r = match self.tx_layout {
            DescriptorLayout::TxV2 => self.push_frame::<TxV2>(mac, queue, frame, meta.csum, mss_field, n),
            _ => self.push_frame::<TxV1>(mac, queue, frame, meta.csum, mss_field, n),
        };
        self.tx.kick(self.p);
        r
    }

    /// Pushes `frame` as `n` descriptors of layout `C` (the engine joins their buffers), the
    /// MSS written into the TCP checksum field of the first; all or none of them.
    fn push_frame<C: TxCodec>(
        &mut self,
        mac: u8,
        queue: u8,
        frame: TxParts<'_>,
        csum: bool,
        mss_field: Option<(usize, u16)>,
        n: usize,
    ) -> Result<(), TxError> {
        let head = self.tx.head();
        for k in 0..n {
            let last = k + 1 == n;
            let from = k * BUF_SIZE;
            let len = BUF_SIZE.min(frame.len() - from);
            let d = TxDesc {
                len: len as u16,
                last,
                fport: mac + 1,
                qid: queue,
                csum,
                tso: mss_field.is_some(),
                ..TxDesc::default()
            };
            let frame_len = if last { frame.len() as u16 } else { 0 };
            let pushed = self.tx.push_pieces::<C, P>(self.p, frame.range(from, len), &d, mac, frame_len);
            let patched = pushed.and_then(|slot| match mss_field.filter(|_| k == 0) {
                // The MSS travels in the TCP checksum field (headers fit the first buffer).
                Some((field, mss)) => self.tx.patch(self.p, slot, field, &mss.to_be_bytes()),
                None => Ok(()),
            });
            if let Err(e) = patched {
                self.tx.unpush(head);
                return Err(TxError::Dma(e));
            }
        }
        Ok(())
    }
}
