//! What SoftLRO reads of a frame: Ethernet II (optionally one 802.1Q tag), IPv4 or IPv6, TCP,
//! located and read through [`crate::headers`]. Reads only the headers, never past the frame,
//! and never panics on truncated or malformed input.

use crate::headers::ethernet::Ethernet;
use crate::headers::ip::{Ip, PROTO_ICMPV6, PROTO_NONE, PROTO_TCP, PROTO_UDP, addr_range};
use crate::headers::l4::{tcp, tcp_header_len};
use crate::headers::{be16, be32};

pub(crate) use crate::headers::l4::flags;

/// The TCP options this coalescer understands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Options {
    /// No options (20-byte header).
    None,
    /// RFC 7323 appendix A: NOP, NOP, timestamp (32-byte header).
    Timestamp,
    /// Anything else.
    Other,
}

/// Who talks to whom below TCP: the receiving MAC, the Ethernet header (addresses and tag) and
/// the IP addresses. Two frames with equal hosts and ports are of the same flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hosts {
    /// MAC the frame arrived on.
    pub mac: u8,
    /// Bytes of the Ethernet header including the tag and the EtherType (14 or 18).
    pub l2_len: u8,
    /// IPv6 (else IPv4).
    pub v6: bool,
    /// 802.1Q TCI (VID and PCP) when tagged, else 0.
    pub tci: u16,
    /// Destination and source MAC addresses.
    pub macs: [u8; 12],
    /// Source and destination IP addresses (IPv4: the first 8 bytes, the rest zero).
    pub addrs: [u8; 32],
}

/// One IPv4 or IPv6 TCP segment's parsed headers; offsets are into the frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seg {
    /// Flow identity below TCP.
    pub hosts: Hosts,
    /// Source and destination ports.
    pub ports: u32,
    /// Bytes of the Ethernet header including the tag and the EtherType (14 or 18).
    pub l2_len: usize,
    /// IPv6 (else IPv4).
    pub v6: bool,
    /// Offset of the TCP header.
    pub tcp_off: usize,
    /// TCP header length (data offset × 4).
    pub tcp_hlen: usize,
    /// End of the IP datagram in the frame (Ethernet padding after it is trimmed).
    pub end: usize,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgment number.
    pub ack: u32,
    /// TCP flags byte.
    pub flags: u8,
    /// Receive window.
    pub window: u16,
    /// Options layout.
    pub options: Options,
    /// TSval when `options` is `Timestamp`.
    pub tsval: u32,
    /// TSecr when `options` is `Timestamp`.
    pub tsecr: u32,
    /// IPv4 TOS byte or IPv6 traffic class.
    pub tos: u8,
    /// IPv4 TTL or IPv6 hop limit.
    pub ttl: u8,
    /// IPv4 DF bit (false on IPv6).
    pub df: bool,
    /// IPv4 identification (0 on IPv6).
    pub ip_id: u16,
    /// IPv6 flow label (0 on IPv4).
    pub flow_label: u32,
    /// A cheap hash of the flow key, a prefilter for the table lookup.
    pub hash: u32,
}

impl Seg {
    /// TCP payload bytes.
    pub(crate) fn payload_len(&self) -> usize {
        self.end - self.tcp_off - self.tcp_hlen
    }

    /// Offset of the TCP payload.
    pub(crate) fn payload_off(&self) -> usize {
        self.tcp_off + self.tcp_hlen
    }
}

/// Why a frame is not a mergeable TCP segment, with what is known of its flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NotSeg {
    /// Not IPv4/IPv6 TCP at all (or too short to say): belongs to no held flow.
    Unrelated,
    /// IP that may carry TCP of a held flow but cannot be merged; its hosts tell which held
    /// flows to close first (any ports: a fragment has none).
    Related { hosts: Hosts, why: Unmergeable },
}

/// Why a related frame cannot be parsed as a mergeable segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unmergeable {
    /// IPv4 header with options.
    IpOptions,
    /// IPv4 fragment.
    Fragment,
    /// An IPv6 routing header, or extension headers not followed to TCP.
    Ipv6ExtHeader,
    /// IP length larger than the frame, or lengths that do not add up.
    Truncated,
}

/// The hosts of a frame whose IP header is known to be complete.
fn hosts(d: &[u8], mac: u8, l2_len: usize, v6: bool, tci: u16) -> Hosts {
    let mut h = Hosts { mac, l2_len: l2_len as u8, v6, tci, macs: [0; 12], addrs: [0; 32] };
    if let Some(m) = d.get(..12) {
        h.macs.copy_from_slice(m);
    }
    let a = addr_range(l2_len, v6);
    if let (Some(dst), Some(src)) = (h.addrs.get_mut(..a.len()), d.get(a)) {
        dst.copy_from_slice(src);
    }
    h
}

/// Parses `d` as Ethernet II + IPv4/IPv6 + TCP.
#[inline]
pub(crate) fn parse(d: &[u8], mac: u8) -> Result<Seg, NotSeg> {
    let un = NotSeg::Unrelated;
    if d.len() < 14 + 40 {
        return Err(un); // shorter than any IP + TCP header
    }
    let l2 = Ethernet::parse(d).filter(Ethernet::at_most_one_8021q).ok_or(un)?;
    let (l2_len, tci) = (l2.l3, l2.tci);
    let ip = Ip::parse(d, l2.ethertype, l2_len).map_err(|_| un)?;
    let v6 = ip.v6;
    let related = |why| NotSeg::Related { hosts: hosts(d, mac, l2_len, v6, tci), why };
    if ip.proto != PROTO_TCP {
        // UDP, ICMPv6 or no next header is never TCP; an IPv6 chain we did not follow to its
        // end may hide it.
        return Err(if v6 && !matches!(ip.proto, PROTO_UDP | PROTO_ICMPV6 | PROTO_NONE) {
            related(Unmergeable::Ipv6ExtHeader)
        } else {
            un
        });
    }
    if !v6 && ip.has_extensions() {
        return Err(related(Unmergeable::IpOptions));
    }
    if ip.fragment {
        return Err(related(Unmergeable::Fragment));
    }
    // Other extension headers merge when equal byte for byte (`rules::same_extension_headers`);
    // behind a routing header the TCP pseudo-header has another destination than the header's.
    if v6 && ip.routing {
        return Err(related(Unmergeable::Ipv6ExtHeader));
    }
    if !ip.whole || ip.l4_len() < tcp::HLEN {
        return Err(related(Unmergeable::Truncated));
    }
    let (t, end) = (ip.l4, ip.end);
    let Some(tcp_hlen) = tcp_header_len(d, t, end) else { return Err(related(Unmergeable::Truncated)) };
    let rd16 = |at: usize| be16(d, at).unwrap_or(0);
    let rd32 = |at: usize| be32(d, at).unwrap_or(0);
    let options = match tcp_hlen {
        20 => Options::None,
        32 if rd32(t + tcp::OPTIONS) == 0x0101_080a => Options::Timestamp,
        _ => Options::Other,
    };
    let (tsval, tsecr) = if options == Options::Timestamp { (rd32(t + 24), rd32(t + 28)) } else { (0, 0) };
    let hosts = hosts(d, mac, l2_len, v6, tci);
    let ports = rd32(t + tcp::PORTS);
    let a = ip.addrs();
    let src_lo = rd32(a.start + a.len() / 2 - 4);
    let dst_lo = rd32(a.end - 4);
    let hash = ports ^ src_lo.rotate_left(16) ^ dst_lo ^ (u32::from(tci) << 8) ^ u32::from(mac);
    Ok(Seg {
        hosts,
        ports,
        l2_len,
        v6,
        tcp_off: t,
        tcp_hlen,
        end,
        seq: rd32(t + tcp::SEQ),
        ack: rd32(t + tcp::ACK),
        flags: d.get(t + tcp::FLAGS).copied().unwrap_or(0),
        window: rd16(t + tcp::WINDOW),
        options,
        tsval,
        tsecr,
        tos: ip.tos(d),
        ttl: ip.ttl(d),
        df: ip.df(d),
        ip_id: ip.id(d),
        flow_label: ip.flow_label(d),
        hash,
    })
}
