//! Frame metadata that crosses the driver's boundary: what a received frame carries
//! ([`RxFrame`], [`RxChecksum`]), what a frame to send asks for ([`TxMeta`]) and a frame to send
//! held in pieces ([`TxParts`]).
//!
//! A leaf module: it imports nothing from the crate, so the rings, SoftLRO and the adapters can
//! all use it without depending on each other. The structs are `#[non_exhaustive]`: fields may
//! be added without breaking users, who build them with the constructors.

/// The RX checksum verdict of one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum RxChecksum {
    /// No verdict: RX checksum is off, the frame is not TCP/UDP, or its checksum is bad.
    Unverified = 0,
    /// The hardware verified the L4 (and IPv4 header) checksum; the stack need not check.
    Verified = 1,
}

impl RxChecksum {
    /// The verdict "verified" exactly when `verified` (a branch-free conversion the RX paths
    /// use per frame).
    #[inline(always)]
    #[must_use]
    pub fn from_verified(verified: bool) -> Self {
        if verified { RxChecksum::Verified } else { RxChecksum::Unverified }
    }

    /// 1 for a verified frame, 0 otherwise (for counting without a branch).
    #[inline(always)]
    #[must_use]
    pub fn verified_count(self) -> u64 {
        u64::from(self as u8)
    }
}

/// A received frame, borrowed for the duration of the sink call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
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

impl<'a> RxFrame<'a> {
    /// A frame as received (one segment) on MAC `mac`.
    #[inline(always)]
    #[must_use]
    pub const fn new(mac: u8, data: &'a [u8], checksum: RxChecksum) -> Self {
        RxFrame { mac, data, checksum, segs: 1, seg_size: 0 }
    }

    /// The frame as `segs` coalesced segments of `seg_size` payload bytes (all but the last).
    #[inline(always)]
    #[must_use]
    pub const fn coalesced(self, segs: u16, seg_size: u16) -> Self {
        RxFrame { segs, seg_size, ..self }
    }
}

/// Offloads requested for one frame to send.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TxMeta {
    /// The engine fills the IPv4, TCP and UDP checksums (needs TX checksum offload on).
    pub csum: bool,
    /// Cut the TCP frame into segments of this many payload bytes (needs TSO on).
    pub tso_mss: Option<u16>,
}

impl TxMeta {
    /// No offload: the frame goes as it is.
    pub const NONE: TxMeta = TxMeta { csum: false, tso_mss: None };
    /// The engine fills the IPv4, TCP and UDP checksums.
    pub const CSUM: TxMeta = TxMeta { csum: true, tso_mss: None };

    /// TCP segmentation into `mss`-byte segments, with checksums filled.
    #[must_use]
    pub const fn tso(mss: u16) -> Self {
        TxMeta { csum: true, tso_mss: Some(mss) }
    }
}

/// A frame to send held in pieces, in order: a socket buffer's linear head and its page
/// fragments. The driver copies the pieces into its TX buffers, so a caller never has to make
/// the frame one run of bytes first (Linux's `skb_linearize` of a 64 KiB GSO frame is an
/// atomic high-order allocation, and it fails on a fragmented router long before memory is
/// short). For TSO, every header must be in the first piece, as it is in a GSO skb's head.
#[derive(Clone, Copy, Debug)]
pub struct TxParts<'a> {
    parts: &'a [&'a [u8]],
    len: usize,
}

impl<'a> TxParts<'a> {
    /// The frame made of `parts`, in order (empty pieces are allowed and skipped).
    #[must_use]
    pub fn new(parts: &'a [&'a [u8]]) -> Self {
        TxParts { parts, len: parts.iter().map(|p| p.len()).sum() }
    }

    /// Bytes in the whole frame.
    #[inline(always)]
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the frame has no bytes.
    #[inline(always)]
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The first piece (where TSO looks for the headers); empty when there is none.
    #[inline(always)]
    #[must_use]
    pub fn head(&self) -> &'a [u8] {
        self.parts.first().copied().unwrap_or(&[])
    }

    /// The pieces holding bytes `from..from + n` of the frame, in order (fewer bytes when the
    /// frame ends first).
    pub fn range(&self, from: usize, n: usize) -> impl Iterator<Item = &'a [u8]> + 'a {
        let mut skip = from;
        let mut left = n;
        self.parts.iter().filter_map(move |p| {
            if left == 0 {
                return None;
            }
            if skip >= p.len() {
                skip -= p.len();
                return None;
            }
            let piece = &p[skip..];
            skip = 0;
            let piece = &piece[..piece.len().min(left)];
            left -= piece.len();
            Some(piece)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::TxParts;
    use alloc::vec::Vec;

    /// Every range of a frame in pieces is the same bytes as that range of the frame in one piece.
    #[test]
    fn ranges_join_to_the_frame() {
        let frame: [u8; 37] = core::array::from_fn(|i| i as u8);
        let parts: [&[u8]; 5] = [&frame[..10], &[], &frame[10..11], &frame[11..30], &frame[30..]];
        let tx = TxParts::new(&parts);
        assert_eq!(tx.len(), frame.len());
        assert_eq!(tx.head(), &frame[..10]);
        for from in 0..=frame.len() {
            for n in 0..=frame.len() + 2 {
                let got: Vec<u8> = tx.range(from, n).flatten().copied().collect();
                let end = (from + n).min(frame.len());
                assert_eq!(got, &frame[from..end], "range {from}+{n}");
                assert!(tx.range(from, n).all(|p| !p.is_empty()), "no empty piece in range {from}+{n}");
            }
        }
        assert!(TxParts::new(&[]).is_empty() && TxParts::new(&[]).head().is_empty());
    }
}
