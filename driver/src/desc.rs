//! DMA descriptors in layout-independent form: the core fills and reads them through these
//! helpers, which handle each layout the YAML names (`tx_v1`, `tx_v2`, `rx_v1`, `rx_v2`), never
//! each SoC.

use fe_regs::descriptors::{DescriptorLayout, RxV1, RxV2, TxV1, TxV2};

/// Largest descriptor in words (TX v2: 32 bytes).
pub const MAX_WORDS: usize = 8;
/// RX descriptors are 4 words in every layout the core handles.
pub const RX_WORDS: usize = 4;

/// What the core writes into a TX descriptor (also the free-queue descriptors).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TxDesc {
    /// Buffer physical address.
    pub addr: u32,
    /// Physical address of the next descriptor in the QDMA list.
    pub next: u32,
    /// Buffer length in bytes.
    pub len: u16,
    /// Last segment of the frame.
    pub last: bool,
    /// Owned by the CPU (not to be sent).
    pub owner_cpu: bool,
    /// Forward port (MAC id + 1).
    pub fport: u8,
    /// QDMA queue.
    pub qid: u8,
    /// Ask the engine to fill the IPv4, TCP and UDP checksums (the layout's `chksum` = 7).
    pub csum: bool,
    /// TCP segmentation offload (the MSS is in the frame's TCP checksum field).
    pub tso: bool,
}

/// The `chksum` value that asks for IPv4, TCP and UDP checksum insertion (both TX layouts).
pub const TX_CSUM_ALL: u8 = 7;

/// What the core reads from a filled RX descriptor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RxDesc {
    /// The DMA has filled it.
    pub done: bool,
    /// Received length in bytes.
    pub len: u16,
    /// Last segment of the frame.
    pub last: bool,
    /// PSE source port (MAC id + 1).
    pub src_port: u8,
    /// The layout's L4-valid bit.
    pub l4_valid: bool,
}

/// Whether `layout` is a TX layout this core handles.
#[must_use]
pub fn is_tx(layout: DescriptorLayout) -> bool {
    matches!(layout, DescriptorLayout::TxV1 | DescriptorLayout::TxV2)
}

/// Whether `layout` is an RX layout this core handles.
#[must_use]
pub fn is_rx(layout: DescriptorLayout) -> bool {
    matches!(layout, DescriptorLayout::RxV1 | DescriptorLayout::RxV2) && layout.size() == RX_WORDS * 4
}

/// Encodes `d` in `layout` (a TX layout); returns the words and how many are used.
#[must_use]
#[inline]
pub fn encode_tx(layout: DescriptorLayout, d: &TxDesc) -> ([u32; MAX_WORDS], usize) {
    match layout {
        DescriptorLayout::TxV2 => (TxV2::encode(d), TxV2::SIZE / 4),
        _ => (TxV1::encode(d), TxV1::SIZE / 4),
    }
}

/// A fresh RX descriptor of `layout`: buffer `addr` of `len` bytes, given to the DMA.
#[must_use]
#[inline]
pub fn rx_fresh(layout: DescriptorLayout, addr: u32, len: u16) -> [u32; RX_WORDS] {
    match layout {
        DescriptorLayout::RxV2 => RxV2::new().with_addr0(addr).with_plen0(len).words,
        _ => RxV1::new().with_addr0(addr).with_plen0(len).words,
    }
}

/// Decodes an RX descriptor of `layout`.
#[must_use]
#[inline]
pub fn decode_rx(layout: DescriptorLayout, w: [u32; RX_WORDS]) -> RxDesc {
    match layout {
        DescriptorLayout::RxV2 => RxV2::decode(&w),
        _ => RxV1::decode(&w),
    }
}

/// Index of the first and last non-zero word of `w` (0, 0 when all are zero).
const fn span<const N: usize>(w: [u32; N]) -> (usize, usize) {
    let (mut lo, mut hi, mut i) = (N, 0, 0);
    while i < N {
        if w[i] != 0 {
            if lo == N {
                lo = i;
            }
            hi = i;
        }
        i += 1;
    }
    if lo == N { (0, 0) } else { (lo, hi) }
}

/// An RX layout fixed at compile time, so the receive loop decodes with constant shifts and
/// hands a descriptor back by rewriting one word (its buffer address never changes).
pub(crate) trait RxCodec {
    /// The word holding `done`, `ls0` and `plen0`: the only one a refill rewrites.
    const CTRL: usize;
    /// The word holding the buffer address (`addr0`): rewritten when a refill swaps the buffer.
    const ADDR: usize;
    /// Decodes a filled descriptor.
    fn decode(w: &[u32; RX_WORDS]) -> RxDesc;
    /// The control word of a descriptor handed back with a `len`-byte buffer.
    fn fresh_ctrl(len: u16) -> u32;
    /// The bits of the done flag.
    const DONE: [u32; RX_WORDS];
    /// The done flag within word [`RxCodec::CTRL`].
    const DONE_BIT: u32;
    /// The bits that say whether a filled descriptor holds one whole frame of a given length
    /// from a given PSE port, its L4 checksum verified (see [`RxCodec::verified_frame`]).
    const FRAME: [u32; RX_WORDS];
    /// What a descriptor holding one whole `len`-byte frame from PSE port `port` with its L4
    /// checksum verified has under [`RxCodec::FRAME`].
    fn verified_frame(len: u16, port: u8) -> [u32; RX_WORDS];
}

macro_rules! rx_codec {
    ($t:ident) => {
        impl RxCodec for $t {
            const CTRL: usize = {
                let (lo, hi) = span($t::new().with_done(true).with_ls0(true).with_plen0(u16::MAX).words);
                let (a, _) = span($t::new().with_addr0(u32::MAX).words);
                // A one-word refill needs the control fields in one word, apart from the address.
                assert!(lo == hi && a != lo);
                lo
            };
            const ADDR: usize = {
                let (lo, hi) = span($t::new().with_addr0(u32::MAX).words);
                assert!(lo == hi);
                lo
            };
            #[inline(always)]
            fn decode(w: &[u32; RX_WORDS]) -> RxDesc {
                let d = $t { words: *w };
                RxDesc { done: d.done(), len: d.plen0(), last: d.ls0(), src_port: d.src_port(), l4_valid: d.l4_valid() }
            }
            #[inline(always)]
            fn fresh_ctrl(len: u16) -> u32 {
                $t::new().with_plen0(len).words[Self::CTRL]
            }
            const DONE: [u32; RX_WORDS] = $t::new().with_done(true).words;
            const DONE_BIT: u32 = Self::DONE[Self::CTRL];
            const FRAME: [u32; RX_WORDS] = $t::new()
                .with_done(true)
                .with_ls0(true)
                .with_plen0(u16::MAX)
                .with_src_port(u8::MAX)
                .with_l4_valid(true)
                .words;
            #[inline(always)]
            fn verified_frame(len: u16, port: u8) -> [u32; RX_WORDS] {
                $t::new().with_done(true).with_ls0(true).with_plen0(len).with_src_port(port).with_l4_valid(true).words
            }
        }
    };
}
rx_codec!(RxV1);
rx_codec!(RxV2);

/// A TX layout fixed at compile time: the send path writes only the control words (the buffer
/// and next-descriptor addresses of a slot never change after the ring is reset).
pub(crate) trait TxCodec {
    /// First and last control word; the address words lie outside them.
    const SPAN: (usize, usize);
    /// First control word.
    const LO: usize;
    /// Control words (from [`TxCodec::LO`]).
    const N: usize;
    /// The word holding `owner_cpu`.
    const OWNER: usize;
    /// Every word of `d` (the layout's size; the rest zero).
    fn encode(d: &TxDesc) -> [u32; MAX_WORDS];
    /// The control words of `d`, from word [`TxCodec::LO`].
    #[inline(always)]
    fn ctrl(d: &TxDesc) -> [u32; MAX_WORDS] {
        let w = Self::encode(d);
        let mut out = [0u32; MAX_WORDS];
        for (o, v) in out.iter_mut().zip(w.iter().skip(Self::LO).take(Self::N)) {
            *o = *v;
        }
        out
    }
    /// Whether control word `w` (word [`TxCodec::OWNER`]) says the CPU owns the descriptor.
    fn owner_cpu(w: u32) -> bool;
}

macro_rules! tx_codec {
    ($t:ident) => {
        impl TxCodec for $t {
            const SPAN: (usize, usize) = {
                let c = span(
                    $t::new()
                        .with_plen0(u16::MAX)
                        .with_ls0(true)
                        .with_owner_cpu(true)
                        .with_fport(u8::MAX)
                        .with_qid(u8::MAX)
                        .with_chksum(u8::MAX)
                        .with_tso(true)
                        .words,
                );
                let a = span($t::new().with_addr0(u32::MAX).with_next(u32::MAX).words);
                assert!(a.1 < c.0 || a.0 > c.1);
                c
            };
            const LO: usize = Self::SPAN.0;
            const N: usize = Self::SPAN.1 - Self::SPAN.0 + 1;
            const OWNER: usize = span($t::new().with_owner_cpu(true).words).0;
            #[inline(always)]
            fn encode(d: &TxDesc) -> [u32; MAX_WORDS] {
                let v = $t::new()
                    .with_addr0(d.addr)
                    .with_next(d.next)
                    .with_plen0(d.len)
                    .with_ls0(d.last)
                    .with_owner_cpu(d.owner_cpu)
                    .with_fport(d.fport)
                    .with_qid(d.qid)
                    .with_chksum(if d.csum { TX_CSUM_ALL } else { 0 })
                    .with_tso(d.tso);
                let mut out = [0u32; MAX_WORDS];
                for (o, w) in out.iter_mut().zip(v.words) {
                    *o = w;
                }
                out
            }
            #[inline(always)]
            fn owner_cpu(w: u32) -> bool {
                let mut d = $t::new();
                d.words[Self::OWNER] = w;
                d.owner_cpu()
            }
        }
    };
}
tx_codec!(TxV1);
tx_codec!(TxV2);
