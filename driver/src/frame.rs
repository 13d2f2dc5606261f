//! Frame metadata that crosses the driver's boundary: what a received frame carries
//! ([`RxFrame`], [`RxChecksum`]) and what a frame to send asks for ([`TxMeta`]).
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
