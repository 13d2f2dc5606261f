//! The virtio-net header in front of every frame on the driver's TAP (`IFF_VNET_HDR`), and the
//! decisions made with it, as pure functions:
//!
//! * up (wire to Linux, [`rx_header`]): a frame whose checksum the hardware verified goes up
//!   with `NEEDS_CSUM` (Linux ignores `DATA_VALID` on a TAP write); with `NEEDS_CSUM` Linux
//!   treats the checksum field as the pseudo-header sum still to be completed (it only trusts
//!   the data, and a forwarded or re-segmented packet gets its checksum computed from that
//!   field), so a full, valid checksum there would come out wrong: the field is rewritten to
//!   the folded pseudo-header sum. A frame without a verdict goes up with flags 0 and Linux
//!   checks it. A coalesced frame (`segs > 1`) goes up as a GSO frame (TCPV4/TCPV6, `gso_size`
//!   the segment size, `hdr_len` the headers) with `NEEDS_CSUM`: every segment in it was
//!   verified before it was merged, by the hardware (LRO merges only L4-valid segments) or by
//!   SoftLRO in software, as Linux's GRO verifies before it merges.
//! * down (Linux to the wire, [`tx_plan`]): a GSO frame goes to the engine's TSO when it fits
//!   (at most `MAX_TSO_FRAME` bytes, headers plus MSS in one buffer), else it is cut in software;
//!   a partial checksum goes to the engine's checksum offload when it is TCP/UDP where the
//!   engine finds it, else it is completed in software.
//!
//! * the peer (its kernel to the wire, [`peer_to_wire`]): the peer TAP offers the same offloads,
//!   so the peer behaves like a host with an offloading NIC; the bridge cuts its GSO frames and
//!   completes its partial checksums in software before they go onto the wire. Frames from the
//!   wire go up to the peer through a SoftLRO of its own (the GRO a TAP write does not get):
//!   single frames with flags 0 (they carry full checksums, and Linux ignores `DATA_VALID` on a
//!   TAP write), aggregates as GSO frames by [`rx_header`].
//!
//! The header is the legacy 10-byte `struct virtio_net_hdr` in the host's byte order (what a
//! TAP uses unless told `TUNSETVNETLE`/`BE`).

use super::frame::{self, Headers, TCP, TCP_CSUM_OFFSET, UDP, UDP_CSUM_OFFSET};
use fe_driver::eth::BUF_SIZE;
use fe_driver::tx_offload::MAX_TSO_FRAME;

/// Bytes of the header.
pub const HDR_LEN: usize = 10;
/// `flags`: the checksum at `csum_start + csum_offset` is to be completed.
pub const F_NEEDS_CSUM: u8 = 1;
/// `flags`: the checksum was verified (Linux sets it on reads; ignored on writes).
pub const F_DATA_VALID: u8 = 2;
/// `gso_type`: not a GSO frame.
pub const GSO_NONE: u8 = 0;
/// `gso_type`: TCP over IPv4.
pub const GSO_TCPV4: u8 = 1;
/// `gso_type`: UDP fragmentation offload.
pub const GSO_UDP: u8 = 3;
/// `gso_type`: TCP over IPv6.
pub const GSO_TCPV6: u8 = 4;
/// `gso_type` bit: the TCP stream uses ECN (CWR on the first segment only).
pub const GSO_ECN: u8 = 0x80;

/// One virtio-net header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VnetHdr {
    /// `F_NEEDS_CSUM`, `F_DATA_VALID`.
    pub flags: u8,
    /// `GSO_*`.
    pub gso_type: u8,
    /// Bytes of all headers (a hint).
    pub hdr_len: u16,
    /// Payload bytes per segment.
    pub gso_size: u16,
    /// Where checksumming starts (the L4 header).
    pub csum_start: u16,
    /// Offset of the checksum field from `csum_start`.
    pub csum_offset: u16,
}

impl VnetHdr {
    /// The header's bytes (host byte order).
    #[must_use]
    pub fn encode(&self) -> [u8; HDR_LEN] {
        let mut b = [0u8; HDR_LEN];
        b[0] = self.flags;
        b[1] = self.gso_type;
        b[2..4].copy_from_slice(&self.hdr_len.to_ne_bytes());
        b[4..6].copy_from_slice(&self.gso_size.to_ne_bytes());
        b[6..8].copy_from_slice(&self.csum_start.to_ne_bytes());
        b[8..10].copy_from_slice(&self.csum_offset.to_ne_bytes());
        b
    }

    /// The header at the start of `b`; `None` when `b` is shorter than [`HDR_LEN`].
    #[must_use]
    pub fn decode(b: &[u8]) -> Option<VnetHdr> {
        let b = b.get(..HDR_LEN)?;
        let u = |o: usize| u16::from_ne_bytes([b[o], b[o + 1]]);
        Some(VnetHdr {
            flags: b[0],
            gso_type: b[1],
            hdr_len: u(2),
            gso_size: u(4),
            csum_start: u(6),
            csum_offset: u(8),
        })
    }
}

/// How a received frame goes up to Linux: its header and a replacement for its checksum field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Up {
    /// The header to write in front of the frame.
    pub hdr: VnetHdr,
    /// `(offset, bytes)`: the checksum field rewritten to the pseudo-header sum.
    pub patch: Option<(usize, [u8; 2])>,
}

/// Why a frame goes up the way it does (counted by the bridge).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UpKind {
    /// Flags 0: Linux checks the checksum.
    Unverified,
    /// `NEEDS_CSUM`: the hardware verified it.
    Verified,
    /// A GSO frame (coalesced) with `NEEDS_CSUM`.
    Gso,
}

fn needs_csum(frame: &[u8], h: &Headers, field: usize, csum_offset: usize) -> (VnetHdr, Option<(usize, [u8; 2])>) {
    let partial = frame::fold(frame::pseudo_sum(frame, h));
    let hdr = VnetHdr {
        flags: F_NEEDS_CSUM,
        csum_start: h.l4 as u16,
        csum_offset: csum_offset as u16,
        hdr_len: h.tcp_headers_end().unwrap_or(h.l4 + 8) as u16,
        ..VnetHdr::default()
    };
    (hdr, Some((field, partial.to_be_bytes())))
}

/// The header for a frame received from the wire: `verified` is the driver's checksum verdict,
/// `segs` and `seg_size` its coalescing metadata (see the module doc).
#[must_use]
pub fn rx_header(frame: &[u8], verified: bool, segs: u16, seg_size: u16) -> (Up, UpKind) {
    let plain = (Up { hdr: VnetHdr::default(), patch: None }, UpKind::Unverified);
    let Some(h) = frame::parse(frame) else { return plain };
    if h.fragment || frame.len() > u16::MAX as usize {
        return plain;
    }
    if segs > 1 && seg_size > 0 && h.proto == TCP {
        let Some(end) = h.tcp_headers_end() else { return plain };
        let (mut hdr, patch) = needs_csum(frame, &h, h.l4 + TCP_CSUM_OFFSET, TCP_CSUM_OFFSET);
        hdr.gso_type = if h.v6 { GSO_TCPV6 } else { GSO_TCPV4 };
        hdr.gso_size = seg_size;
        hdr.hdr_len = end as u16;
        return (Up { hdr, patch }, UpKind::Gso);
    }
    if !verified {
        return plain;
    }
    let Some(field) = h.csum_field() else { return plain };
    let offset = if h.proto == UDP {
        // An IPv4 UDP datagram without a checksum (0) has nothing to complete.
        if frame.get(field..field + 2) == Some(&[0, 0]) {
            return plain;
        }
        UDP_CSUM_OFFSET
    } else {
        TCP_CSUM_OFFSET
    };
    let (hdr, patch) = needs_csum(frame, &h, field, offset);
    (Up { hdr, patch }, UpKind::Verified)
}

/// What to do with a frame Linux sent on the driver's TAP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxPlan {
    /// Complete frame: send as is, no offload.
    Plain,
    /// Partial TCP/UDP checksum the engine fills (`TxMeta { csum: true }`).
    EngineCsum,
    /// Partial checksum completed in software first (`start`, `offset`), then sent plainly.
    SoftCsum {
        /// `csum_start`.
        start: usize,
        /// `csum_offset`.
        offset: usize,
    },
    /// GSO frame for the engine's TSO.
    EngineTso {
        /// Segment payload size.
        mss: u16,
    },
    /// GSO frame cut in software (too big or odd for the engine), each segment sent plainly.
    SoftSegment {
        /// Segment payload size.
        mss: u16,
    },
    /// Refused (counted): a header that does not fit the frame, or a GSO kind not offered.
    Refuse(&'static str),
}

/// The plan for `frame` (without its header) sent with `hdr`.
#[must_use]
pub fn tx_plan(hdr: &VnetHdr, frame: &[u8]) -> TxPlan {
    let h = frame::parse(frame);
    match hdr.gso_type & !GSO_ECN {
        GSO_NONE => {
            if frame.len() > BUF_SIZE {
                return TxPlan::Refuse("frame longer than a TX buffer without GSO");
            }
            if hdr.flags & F_NEEDS_CSUM == 0 {
                return TxPlan::Plain;
            }
            let (start, offset) = (usize::from(hdr.csum_start), usize::from(hdr.csum_offset));
            if start + offset + 2 > frame.len() {
                return TxPlan::Refuse("csum_start/csum_offset past the frame");
            }
            let engine = h.is_some_and(|h| {
                h.l4 == start
                    && !h.fragment
                    && ((h.proto == TCP && h.tcp_hlen.is_some() && offset == TCP_CSUM_OFFSET)
                        || (h.proto == UDP && offset == UDP_CSUM_OFFSET))
            });
            if engine { TxPlan::EngineCsum } else { TxPlan::SoftCsum { start, offset } }
        }
        GSO_TCPV4 | GSO_TCPV6 => {
            let v6 = hdr.gso_type & !GSO_ECN == GSO_TCPV6;
            let Some(h) = h.filter(|h| h.proto == TCP && h.v6 == v6 && !h.fragment) else {
                return TxPlan::Refuse("GSO frame that is not TCP over the IP version it names");
            };
            let Some(end) = h.tcp_headers_end() else { return TxPlan::Refuse("GSO frame with a bad TCP header") };
            if hdr.gso_size == 0 {
                return TxPlan::Refuse("GSO frame with gso_size 0");
            }
            let mss = hdr.gso_size;
            if frame.len() <= MAX_TSO_FRAME && end + usize::from(mss) <= BUF_SIZE {
                TxPlan::EngineTso { mss }
            } else {
                TxPlan::SoftSegment { mss }
            }
        }
        _ => TxPlan::Refuse("GSO type not offered (only TCPv4/TCPv6)"),
    }
}

/// What became of a frame the peer's kernel sent (see [`peer_to_wire`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerSent {
    /// Complete frame, onto the wire as it was.
    Plain,
    /// Partial checksum completed, then onto the wire.
    Csum,
    /// GSO frame cut into this many wire-sized segments with complete checksums.
    Segmented(usize),
}

/// What the peer's NIC does with a frame its kernel hands it with `hdr` (the peer TAP offers
/// checksum offload and TSO, as a real NIC would): a GSO frame is cut into wire-sized segments
/// with complete IPv4 and TCP checksums, a partial checksum is completed, anything else goes as
/// it is. Every frame for the wire goes to `out`; `buf` is reused scratch. The decisions are
/// [`tx_plan`]'s (where the driver would use the engine, the peer uses software); `Err` says
/// why a frame was refused.
pub fn peer_to_wire(
    hdr: &VnetHdr,
    frame: &mut [u8],
    buf: &mut Vec<u8>,
    out: &mut dyn FnMut(&[u8]),
) -> Result<PeerSent, &'static str> {
    match tx_plan(hdr, frame) {
        TxPlan::Plain => {
            out(frame);
            Ok(PeerSent::Plain)
        }
        TxPlan::EngineCsum | TxPlan::SoftCsum { .. } => {
            // `tx_plan` checked that the field is inside the frame.
            frame::complete_checksum(frame, usize::from(hdr.csum_start), usize::from(hdr.csum_offset));
            out(frame);
            Ok(PeerSent::Csum)
        }
        TxPlan::EngineTso { mss } | TxPlan::SoftSegment { mss } => {
            frame::segment_tcp(frame, usize::from(mss), buf, out)
                .map(PeerSent::Segmented)
                .ok_or("GSO frame that cannot be segmented")
        }
        TxPlan::Refuse(why) => Err(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fe_sim::packet::{self, TcpStream, UdpSpec};

    fn bulk(v6: bool) -> Vec<u8> {
        TcpStream::bulk(v6, None).next_segment()
    }

    /// Linux's `skb_checksum_help` on a CHECKSUM_PARTIAL frame: what it would put on the wire.
    fn linux_completes(frame: &[u8], up: &Up) -> Vec<u8> {
        let mut f = frame.to_vec();
        if let Some((o, b)) = up.patch {
            f[o..o + 2].copy_from_slice(&b);
        }
        assert!(frame::complete_checksum(&mut f, usize::from(up.hdr.csum_start), usize::from(up.hdr.csum_offset)));
        f
    }

    #[test]
    fn header_round_trips_in_host_byte_order() {
        let h = VnetHdr {
            flags: F_NEEDS_CSUM,
            gso_type: GSO_TCPV6 | GSO_ECN,
            hdr_len: 86,
            gso_size: 1428,
            csum_start: 54,
            csum_offset: 16,
        };
        let b = h.encode();
        assert_eq!(b[0], 1);
        assert_eq!(b[1], 0x84);
        assert_eq!(&b[4..6], &1428u16.to_ne_bytes());
        assert_eq!(VnetHdr::decode(&b), Some(h));
        assert_eq!(VnetHdr::decode(&b[..9]), None);
        assert_eq!(VnetHdr::decode(&[0; 10]), Some(VnetHdr::default()));
    }

    #[test]
    fn unverified_frames_go_up_with_flags_zero_and_untouched() {
        for v6 in [false, true] {
            let f = bulk(v6);
            let (up, kind) = rx_header(&f, false, 1, 0);
            assert_eq!(kind, UpKind::Unverified);
            assert_eq!(up.hdr, VnetHdr::default());
            assert_eq!(up.patch, None);
        }
    }

    #[test]
    fn verified_tcp_goes_up_needing_only_completion_from_the_pseudo_header_sum() {
        for v6 in [false, true] {
            let f = bulk(v6);
            let h = frame::parse(&f).unwrap();
            let (up, kind) = rx_header(&f, true, 1, 0);
            assert_eq!(kind, UpKind::Verified);
            assert_eq!(up.hdr.flags, F_NEEDS_CSUM);
            assert_eq!(up.hdr.gso_type, GSO_NONE);
            assert_eq!(usize::from(up.hdr.csum_start), h.l4);
            assert_eq!(up.hdr.csum_offset, 16);
            let (at, bytes) = up.patch.unwrap();
            assert_eq!(at, h.l4 + 16);
            // The field holds the folded pseudo-header sum, not the full checksum: completing
            // it as Linux would gives back the original, valid frame.
            assert_eq!(bytes, frame::fold(frame::pseudo_sum(&f, &h)).to_be_bytes());
            assert_ne!(&f[at..at + 2], &bytes);
            assert_eq!(linux_completes(&f, &up), f);
        }
    }

    #[test]
    fn verified_udp_uses_offset_six_and_zero_checksum_udp_goes_up_plain() {
        let spec = UdpSpec { src_port: 5353, dst_port: 53, payload_len: 100, ..UdpSpec::default() };
        let f = packet::build_udp(&spec);
        let (up, kind) = rx_header(&f, true, 1, 0);
        assert_eq!(kind, UpKind::Verified);
        assert_eq!(up.hdr.csum_offset, 6);
        assert_eq!(linux_completes(&f, &up), f);
        let mut none = f.clone();
        let h = frame::parse(&none).unwrap();
        none[h.l4 + 6..h.l4 + 8].copy_from_slice(&[0, 0]);
        assert_eq!(rx_header(&none, true, 1, 0).1, UpKind::Unverified);
    }

    #[test]
    fn coalesced_frames_go_up_as_gso_with_needs_csum() {
        for (v6, gso) in [(false, GSO_TCPV4), (true, GSO_TCPV6)] {
            let mut s = TcpStream::bulk(v6, None);
            let agg = s.next_segment_with(1448 * 10);
            let h = frame::parse(&agg).unwrap();
            for verified in [true, false] {
                let (up, kind) = rx_header(&agg, verified, 10, 1448);
                assert_eq!(kind, UpKind::Gso);
                assert_eq!(up.hdr.gso_type, gso);
                assert_eq!(up.hdr.gso_size, 1448);
                assert_eq!(usize::from(up.hdr.hdr_len), h.tcp_headers_end().unwrap());
                assert_eq!(up.hdr.flags, F_NEEDS_CSUM);
                assert_eq!(linux_completes(&agg, &up), agg);
            }
        }
    }

    #[test]
    fn a_hardware_aggregate_with_a_stale_tcp_checksum_comes_out_right() {
        // Hardware LRO does not recompute the TCP checksum; the rewritten field fixes it.
        let mut s = TcpStream::bulk(false, None);
        let good = s.next_segment_with(1448 * 4);
        let mut stale = good.clone();
        let h = frame::parse(&stale).unwrap();
        stale[h.l4 + 16] ^= 0x55;
        let (up, _) = rx_header(&stale, true, 4, 1448);
        assert_eq!(linux_completes(&stale, &up), good);
    }

    #[test]
    fn non_ip_and_non_l4_frames_go_up_plain_even_when_coalescing_metadata_is_odd() {
        let mut arp = bulk(false);
        arp[12..14].copy_from_slice(&[0x08, 0x06]);
        assert_eq!(rx_header(&arp, true, 1, 0).1, UpKind::Unverified);
        assert_eq!(rx_header(&arp, true, 5, 1448).1, UpKind::Unverified);
        let f = bulk(false);
        assert_eq!(rx_header(&f, true, 3, 0).1, UpKind::Verified, "no segment size: not GSO");
    }

    #[test]
    fn tx_plans() {
        let f = bulk(false);
        let h = frame::parse(&f).unwrap();
        let partial = VnetHdr { flags: F_NEEDS_CSUM, csum_start: h.l4 as u16, csum_offset: 16, ..VnetHdr::default() };
        assert_eq!(tx_plan(&VnetHdr::default(), &f), TxPlan::Plain);
        assert_eq!(tx_plan(&partial, &f), TxPlan::EngineCsum);
        let odd = VnetHdr { csum_start: 20, csum_offset: 4, ..partial };
        assert_eq!(tx_plan(&odd, &f), TxPlan::SoftCsum { start: 20, offset: 4 });
        let past = VnetHdr { csum_start: f.len() as u16, ..partial };
        assert!(matches!(tx_plan(&past, &f), TxPlan::Refuse(_)));

        let mut s = TcpStream::bulk(false, None);
        let big = s.next_segment_with(60_000);
        let tso = VnetHdr { gso_type: GSO_TCPV4, gso_size: 1448, ..partial };
        assert_eq!(tx_plan(&tso, &big), TxPlan::EngineTso { mss: 1448 });
        assert_eq!(tx_plan(&VnetHdr { gso_type: GSO_TCPV4 | GSO_ECN, ..tso }, &big), TxPlan::EngineTso { mss: 1448 });
        assert_eq!(tx_plan(&VnetHdr { gso_size: 2000, ..tso }, &big), TxPlan::SoftSegment { mss: 2000 });
        assert!(matches!(tx_plan(&VnetHdr { gso_type: GSO_TCPV6, ..tso }, &big), TxPlan::Refuse(_)));
        assert!(matches!(tx_plan(&VnetHdr { gso_size: 0, ..tso }, &big), TxPlan::Refuse(_)));
        assert!(matches!(tx_plan(&VnetHdr { gso_type: GSO_UDP, ..tso }, &big), TxPlan::Refuse(_)));
        assert!(matches!(tx_plan(&VnetHdr::default(), &big), TxPlan::Refuse(_)));
    }

    #[test]
    fn a_gso_frame_over_the_tso_limit_is_cut_in_software() {
        let tso = VnetHdr { gso_type: GSO_TCPV4, gso_size: 1448, ..VnetHdr::default() };
        let honest = TcpStream::bulk(false, None).next_segment_with(65_000);
        assert!(honest.len() <= MAX_TSO_FRAME);
        assert_eq!(tx_plan(&tso, &honest), TxPlan::EngineTso { mss: 1448 });
        let mut padded = honest.clone();
        padded.resize(MAX_TSO_FRAME + 10, 0);
        assert_eq!(tx_plan(&tso, &padded), TxPlan::SoftSegment { mss: 1448 });
    }

    /// A frame as the peer's kernel hands it over: the TCP checksum field holds the
    /// pseudo-header sum, with the header that says so.
    fn peer_partial(full: &[u8], gso_type: u8, gso_size: u16) -> (VnetHdr, Vec<u8>) {
        let h = frame::parse(full).unwrap();
        let mut f = full.to_vec();
        let field = h.l4 + TCP_CSUM_OFFSET;
        f[field..field + 2].copy_from_slice(&frame::fold(frame::pseudo_sum(full, &h)).to_be_bytes());
        let hdr = VnetHdr {
            flags: F_NEEDS_CSUM,
            gso_type,
            hdr_len: h.tcp_headers_end().unwrap() as u16,
            gso_size,
            csum_start: h.l4 as u16,
            csum_offset: TCP_CSUM_OFFSET as u16,
        };
        (hdr, f)
    }

    fn peer_sends(hdr: &VnetHdr, f: &[u8]) -> (Result<PeerSent, &'static str>, Vec<Vec<u8>>) {
        let mut f = f.to_vec();
        let mut wire = Vec::new();
        let r = peer_to_wire(hdr, &mut f, &mut Vec::new(), &mut |s| wire.push(s.to_vec()));
        (r, wire)
    }

    #[test]
    fn a_gso_frame_from_the_peer_leaves_as_valid_wire_sized_segments() {
        const FIN: u8 = 0x01;
        const PSH: u8 = 0x08;
        const ACK: u8 = 0x10;
        const CWR: u8 = 0x80;
        for (v6, gso, mss) in [(false, GSO_TCPV4, 1448usize), (true, GSO_TCPV6 | GSO_ECN, 1428)] {
            let mut big = TcpStream::bulk(v6, None).next_segment_with(20_000);
            let h = frame::parse(&big).unwrap();
            big[h.l4 + 13] |= PSH | FIN | CWR;
            if !v6 {
                big[h.l3 + 4..h.l3 + 6].copy_from_slice(&0xfffeu16.to_be_bytes());
            }
            let (hdr, f) = peer_partial(&big, gso, mss as u16);
            let (r, wire) = peer_sends(&hdr, &f);
            let n = 20_000usize.div_ceil(mss);
            assert_eq!(r, Ok(PeerSent::Segmented(n)), "v6 {v6}");
            assert_eq!(wire.len(), n);
            let seq0 = u32::from_be_bytes(big[h.l4 + 4..h.l4 + 8].try_into().unwrap());
            let mut joined = Vec::new();
            for (i, w) in wire.iter().enumerate() {
                assert!(w.len() <= 1514, "segment {i}: {} bytes", w.len());
                assert_eq!(packet::l4_checksum_ok(w), Some(true), "v6 {v6} segment {i}");
                let wh = frame::parse(w).unwrap();
                if !v6 {
                    assert_eq!(packet::ipv4_checksum_ok(w), Some(true), "segment {i}");
                    let id = u16::from_be_bytes([w[wh.l3 + 4], w[wh.l3 + 5]]);
                    assert_eq!(id, 0xfffeu16.wrapping_add(i as u16), "IP ids count up (and wrap)");
                }
                let seq = u32::from_be_bytes(w[wh.l4 + 4..wh.l4 + 8].try_into().unwrap());
                assert_eq!(seq, seq0.wrapping_add((i * mss) as u32), "segment {i}");
                let flags = w[wh.l4 + 13];
                assert_eq!(flags & ACK, ACK);
                assert_eq!(flags & (PSH | FIN) != 0, i + 1 == n, "PSH/FIN on the last segment only: {i}");
                assert_eq!(flags & CWR != 0, i == 0, "CWR on the first segment only: {i}");
                let end = wh.tcp_headers_end().unwrap();
                joined.extend_from_slice(&w[end..wh.l4 + wh.l4_len]);
            }
            assert_eq!(joined, big[h.tcp_headers_end().unwrap()..h.l4 + h.l4_len], "v6 {v6}");
        }
    }

    #[test]
    fn a_partial_checksum_from_the_peer_is_completed_and_complete_frames_go_as_they_are() {
        for v6 in [false, true] {
            let full = bulk(v6);
            let (hdr, f) = peer_partial(&full, GSO_NONE, 0);
            assert_ne!(f, full);
            assert_eq!(peer_sends(&hdr, &f), (Ok(PeerSent::Csum), vec![full.clone()]));
            assert_eq!(peer_sends(&VnetHdr::default(), &full), (Ok(PeerSent::Plain), vec![full.clone()]));
        }
        let mut arp = bulk(false);
        arp[12..14].copy_from_slice(&[0x08, 0x06]);
        assert_eq!(peer_sends(&VnetHdr::default(), &arp), (Ok(PeerSent::Plain), vec![arp.clone()]));
        let big = TcpStream::bulk(false, None).next_segment_with(10_000);
        let (udp, f) = peer_partial(&big, GSO_UDP, 1448);
        assert!(matches!(peer_sends(&udp, &f), (Err(_), w) if w.is_empty()));
        let (v6_named, f) = peer_partial(&big, GSO_TCPV6, 1448);
        assert!(matches!(peer_sends(&v6_named, &f), (Err(_), w) if w.is_empty()));
    }
}
