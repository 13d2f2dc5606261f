//! IPv4 and IPv6 headers: field offsets, and where the L4 header and the datagram's end are
//! (past IPv4 options and IPv6 extension headers).

use super::ethernet::{ETHERTYPE_IPV4, ETHERTYPE_IPV6};
use super::{be16, be32};
use core::ops::Range;

/// IP protocol number of TCP.
pub const PROTO_TCP: u8 = 6;
/// IP protocol number of UDP.
pub const PROTO_UDP: u8 = 17;
/// IPv6 next header of ICMPv6.
pub const PROTO_ICMPV6: u8 = 58;
/// IPv6 next header "no next header".
pub const PROTO_NONE: u8 = 59;

/// IPv4 header fields (offsets from the start of the header).
pub mod v4 {
    /// Bytes of a header without options.
    pub const HLEN: usize = 20;
    /// Type of service (DSCP and ECN).
    pub const TOS: usize = 1;
    /// Total length.
    pub const TOTAL_LEN: usize = 2;
    /// Identification.
    pub const ID: usize = 4;
    /// Flags and fragment offset.
    pub const FRAG: usize = 6;
    /// Time to live.
    pub const TTL: usize = 8;
    /// Protocol.
    pub const PROTO: usize = 9;
    /// Header checksum.
    pub const CSUM: usize = 10;
    /// Source then destination address.
    pub const ADDRS: core::ops::Range<usize> = 12..20;
    /// The DF bit of [`FRAG`].
    pub const DF: u16 = 0x4000;
    /// MF and the fragment offset: any set makes a fragment.
    pub const MF_OFFSET: u16 = 0x3fff;
}

/// IPv6 header fields (offsets from the start of the header).
pub mod v6 {
    /// Bytes of the fixed header.
    pub const HLEN: usize = 40;
    /// Payload length.
    pub const PAYLOAD_LEN: usize = 4;
    /// Next header.
    pub const NEXT: usize = 6;
    /// Hop limit.
    pub const HOP_LIMIT: usize = 7;
    /// Source then destination address.
    pub const ADDRS: core::ops::Range<usize> = 8..40;
    /// Next header of hop-by-hop options.
    pub const HOP_BY_HOP: u8 = 0;
    /// Next header of a routing header.
    pub const ROUTING: u8 = 43;
    /// Next header of a fragment header.
    pub const FRAGMENT: u8 = 44;
    /// Next header of destination options.
    pub const DST_OPTS: u8 = 60;
    /// Most extension headers [`super::Ip::parse`] steps over.
    pub const MAX_EXT: usize = 8;
}

/// Where the source and destination addresses of the IP header at `l3` are.
#[inline(always)]
#[must_use]
pub fn addr_range(l3: usize, v6: bool) -> Range<usize> {
    if v6 { l3 + v6::ADDRS.start..l3 + v6::ADDRS.end } else { l3 + v4::ADDRS.start..l3 + v4::ADDRS.end }
}

/// Why a frame has no IP header to locate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IpError {
    /// The EtherType is neither IPv4 nor IPv6.
    NotIp,
    /// The fixed header is cut short or has the wrong version.
    Malformed,
}

/// Where the parts of one IP datagram are in a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ip {
    /// IPv6 (else IPv4).
    pub v6: bool,
    /// Offset of the IP header.
    pub l3: usize,
    /// Offset of the L4 header (after IPv4 options or IPv6 extension headers).
    pub l4: usize,
    /// End of the datagram as its length field says (a frame may carry padding after it).
    pub end: usize,
    /// IPv4 protocol, or the next header after the IPv6 extension headers stepped over.
    pub proto: u8,
    /// An IPv4 fragment (MF or an offset) or an IPv6 datagram with a fragment header.
    pub fragment: bool,
    /// An IPv6 routing header was stepped over (the pseudo-header's destination is then the
    /// final one, not the header's).
    pub routing: bool,
    /// The lengths add up: header length at least the fixed header, the L4 header's offset
    /// within the datagram, the datagram within the frame.
    pub whole: bool,
}

impl Ip {
    /// Locates the IP header at `l3` of `frame`, whose EtherType is `ethertype`; IPv6
    /// hop-by-hop, routing, destination-options and fragment headers are stepped over (at most
    /// [`v6::MAX_EXT`]; past that, `proto` is the extension header where it stopped).
    #[inline]
    pub fn parse(frame: &[u8], ethertype: u16, l3: usize) -> Result<Ip, IpError> {
        let bad = IpError::Malformed;
        match ethertype {
            ETHERTYPE_IPV4 => {
                let h = frame.get(l3..).and_then(|h| h.first_chunk::<{ v4::HLEN }>()).ok_or(bad)?;
                if h[0] >> 4 != 4 {
                    return Err(bad);
                }
                let ihl = usize::from(h[0] & 0x0f) * 4;
                let end = l3 + usize::from(u16::from_be_bytes([h[v4::TOTAL_LEN], h[v4::TOTAL_LEN + 1]]));
                let frag = u16::from_be_bytes([h[v4::FRAG], h[v4::FRAG + 1]]);
                let l4 = l3 + ihl;
                let whole = ihl >= v4::HLEN && l4 <= end && end <= frame.len();
                let fragment = frag & v4::MF_OFFSET != 0;
                Ok(Ip { v6: false, l3, l4, end, proto: h[v4::PROTO], fragment, routing: false, whole })
            }
            ETHERTYPE_IPV6 => {
                let h = frame.get(l3..).and_then(|h| h.first_chunk::<{ v6::HLEN }>()).ok_or(bad)?;
                if h[0] >> 4 != 6 {
                    return Err(bad);
                }
                let end = l3 + v6::HLEN + usize::from(u16::from_be_bytes([h[v6::PAYLOAD_LEN], h[v6::PAYLOAD_LEN + 1]]));
                let (l4, proto) = (l3 + v6::HLEN, h[v6::NEXT]);
                let mut ip = Ip { v6: true, l3, l4, end, proto, fragment: false, routing: false, whole: true };
                ip.step_over_extensions(frame);
                ip.whole &= ip.l4 <= end && end <= frame.len();
                Ok(ip)
            }
            _ => Err(IpError::NotIp),
        }
    }

    /// Moves `l4` and `proto` past the IPv6 extension headers (clearing `whole` when one is
    /// cut short).
    fn step_over_extensions(&mut self, frame: &[u8]) {
        for _ in 0..v6::MAX_EXT {
            let len = match self.proto {
                v6::HOP_BY_HOP | v6::ROUTING | v6::DST_OPTS => {
                    self.routing |= self.proto == v6::ROUTING;
                    frame.get(self.l4 + 1).map(|&n| (usize::from(n) + 1) * 8)
                }
                v6::FRAGMENT => {
                    self.fragment = true;
                    Some(8)
                }
                _ => return,
            };
            match (len, frame.get(self.l4)) {
                (Some(len), Some(&next)) => {
                    self.proto = next;
                    self.l4 += len;
                }
                _ => {
                    self.whole = false;
                    return;
                }
            }
        }
    }

    /// Whether IPv4 options or IPv6 extension headers come before the L4 header.
    #[inline(always)]
    #[must_use]
    pub fn has_extensions(&self) -> bool {
        self.l4 != self.l3 + if self.v6 { v6::HLEN } else { v4::HLEN }
    }

    /// Bytes of the L4 header and payload (0 when the lengths do not add up).
    #[inline(always)]
    #[must_use]
    pub fn l4_len(&self) -> usize {
        self.end.saturating_sub(self.l4)
    }

    /// Where the source and destination addresses are.
    #[inline(always)]
    #[must_use]
    pub fn addrs(&self) -> Range<usize> {
        addr_range(self.l3, self.v6)
    }

    /// IPv4 TOS byte or IPv6 traffic class.
    #[must_use]
    pub fn tos(&self, frame: &[u8]) -> u8 {
        if self.v6 {
            (be16(frame, self.l3).unwrap_or(0) >> 4) as u8
        } else {
            frame.get(self.l3 + v4::TOS).copied().unwrap_or(0)
        }
    }

    /// IPv4 TTL or IPv6 hop limit.
    #[must_use]
    pub fn ttl(&self, frame: &[u8]) -> u8 {
        frame.get(self.l3 + if self.v6 { v6::HOP_LIMIT } else { v4::TTL }).copied().unwrap_or(0)
    }

    /// The IPv4 DF bit (false on IPv6).
    #[must_use]
    pub fn df(&self, frame: &[u8]) -> bool {
        !self.v6 && be16(frame, self.l3 + v4::FRAG).unwrap_or(0) & v4::DF != 0
    }

    /// The IPv4 identification (0 on IPv6).
    #[must_use]
    pub fn id(&self, frame: &[u8]) -> u16 {
        if self.v6 { 0 } else { be16(frame, self.l3 + v4::ID).unwrap_or(0) }
    }

    /// The IPv6 flow label (0 on IPv4).
    #[must_use]
    pub fn flow_label(&self, frame: &[u8]) -> u32 {
        if self.v6 { be32(frame, self.l3).unwrap_or(0) & 0xf_ffff } else { 0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v6_frame(exts: &[&[u8]], next: u8, payload: usize) -> [u8; 128] {
        let mut f = [0u8; 128];
        f[0] = 0x60;
        let ext_len: usize = exts.iter().map(|e| e.len()).sum();
        f[4..6].copy_from_slice(&((ext_len + payload) as u16).to_be_bytes());
        f[6] = next;
        let mut at = 40;
        for e in exts {
            f[at..at + e.len()].copy_from_slice(e);
            at += e.len();
        }
        f
    }

    #[test]
    fn ipv6_extension_headers_are_stepped_over() {
        let hbh = [44, 0, 1, 4, 0, 0, 0, 0];
        let frag = [6, 0, 0, 1, 0, 0, 0, 7];
        let f = v6_frame(&[&hbh, &frag], v6::HOP_BY_HOP, 20);
        let ip = Ip::parse(&f, ETHERTYPE_IPV6, 0).unwrap();
        assert_eq!((ip.l4, ip.proto, ip.fragment, ip.whole, ip.end), (56, PROTO_TCP, true, true, 76));
        assert!(ip.has_extensions());
        let plain = v6_frame(&[], PROTO_TCP, 20);
        let ip = Ip::parse(&plain, ETHERTYPE_IPV6, 0).unwrap();
        assert_eq!((ip.l4, ip.proto, ip.fragment, ip.has_extensions()), (40, PROTO_TCP, false, false));
        // An extension header that runs past the datagram.
        let f = v6_frame(&[&[6, 9, 0, 0, 0, 0, 0, 0]], v6::DST_OPTS, 0);
        assert!(!Ip::parse(&f, ETHERTYPE_IPV6, 0).unwrap().whole);
        for n in 0..f.len() {
            let _ = Ip::parse(&f[..n], ETHERTYPE_IPV6, 0);
        }
    }

    #[test]
    fn ipv4_lengths_options_and_fragments() {
        let mut f = [0u8; 64];
        f[0] = 0x46;
        f[2..4].copy_from_slice(&44u16.to_be_bytes());
        f[6] = 0x20;
        f[9] = PROTO_UDP;
        let ip = Ip::parse(&f, ETHERTYPE_IPV4, 0).unwrap();
        assert_eq!((ip.l4, ip.end, ip.proto, ip.fragment, ip.whole), (24, 44, PROTO_UDP, true, true));
        assert!(ip.has_extensions());
        f[0] = 0x44;
        assert!(!Ip::parse(&f, ETHERTYPE_IPV4, 0).unwrap().whole, "IHL below 5");
        f[0] = 0x45;
        f[2..4].copy_from_slice(&65u16.to_be_bytes());
        assert!(!Ip::parse(&f, ETHERTYPE_IPV4, 0).unwrap().whole, "longer than the frame");
        assert_eq!(Ip::parse(&f[..19], ETHERTYPE_IPV4, 0), Err(IpError::Malformed));
        assert_eq!(Ip::parse(&f, ETHERTYPE_IPV6, 0), Err(IpError::Malformed));
        assert_eq!(Ip::parse(&f, 0x0806, 0), Err(IpError::NotIp));
    }
}
