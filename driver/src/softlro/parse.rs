//! Header parsing: Ethernet II (optionally one 802.1Q tag), IPv4 or IPv6, TCP. Reads only the
//! headers, never past the frame, and never panics on truncated or malformed input.

/// EtherType of IPv4.
const ETH_IPV4: u16 = 0x0800;
/// EtherType of IPv6.
const ETH_IPV6: u16 = 0x86dd;
/// EtherType of an 802.1Q tag.
const ETH_VLAN: u16 = 0x8100;
/// IP protocol number of TCP.
const IPPROTO_TCP: u8 = 6;

/// TCP flag bits (byte 13 of the TCP header).
pub(crate) mod flags {
    /// FIN.
    pub const FIN: u8 = 0x01;
    /// SYN.
    pub const SYN: u8 = 0x02;
    /// RST.
    pub const RST: u8 = 0x04;
    /// PSH.
    pub const PSH: u8 = 0x08;
    /// ACK.
    pub const ACK: u8 = 0x10;
    /// URG.
    pub const URG: u8 = 0x20;
    /// ECE.
    pub const ECE: u8 = 0x40;
    /// CWR.
    pub const CWR: u8 = 0x80;
}

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
    /// IPv6 extension header before TCP.
    Ipv6ExtHeader,
    /// IP length larger than the frame, or lengths that do not add up.
    Truncated,
}

/// Big-endian 16 bits at `at`; 0 past the end (callers check lengths first).
#[inline(always)]
fn rd16(d: &[u8], at: usize) -> u16 {
    d.get(at..at + 2).map_or(0, |b| u16::from_be_bytes([b[0], b[1]]))
}

/// Big-endian 32 bits at `at`; 0 past the end (callers check lengths first).
#[inline(always)]
fn rd32(d: &[u8], at: usize) -> u32 {
    d.get(at..at + 4).map_or(0, |b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}

/// Where the source and destination addresses are, for a frame of this layout.
pub(crate) fn addr_range(l2_len: usize, v6: bool) -> core::ops::Range<usize> {
    if v6 { l2_len + 8..l2_len + 40 } else { l2_len + 12..l2_len + 20 }
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
    let mut l2_len = 14;
    let mut ethertype = rd16(d, 12);
    let mut tci = 0;
    if ethertype == ETH_VLAN {
        tci = rd16(d, 14);
        ethertype = rd16(d, 16);
        l2_len = 18;
    }
    let ip = l2_len;
    let (v6, tcp_off, end, tos, ttl, df, ip_id, flow_label) = match ethertype {
        ETH_IPV4 => {
            if d.len() < ip + 20 || d[ip] >> 4 != 4 || d[ip + 9] != IPPROTO_TCP {
                return Err(un);
            }
            let related = |why| NotSeg::Related { hosts: hosts(d, mac, l2_len, false, tci), why };
            if d[ip] & 0x0f != 5 {
                return Err(related(Unmergeable::IpOptions));
            }
            let frag = rd16(d, ip + 6);
            if frag & 0x3fff != 0 {
                return Err(related(Unmergeable::Fragment));
            }
            let total = usize::from(rd16(d, ip + 2));
            if total < 40 || ip + total > d.len() {
                return Err(related(Unmergeable::Truncated));
            }
            (false, ip + 20, ip + total, d[ip + 1], d[ip + 8], frag & 0x4000 != 0, rd16(d, ip + 4), 0)
        }
        ETH_IPV6 => {
            if d.len() < ip + 40 || d[ip] >> 4 != 6 {
                return Err(un);
            }
            let related = |why| NotSeg::Related { hosts: hosts(d, mac, l2_len, true, tci), why };
            match d[ip + 6] {
                IPPROTO_TCP => {}
                // UDP, ICMPv6, no next header: never TCP.
                17 | 58 | 59 => return Err(un),
                _ => return Err(related(Unmergeable::Ipv6ExtHeader)),
            }
            let word0 = rd32(d, ip);
            let plen = usize::from(rd16(d, ip + 4));
            if plen < 20 || ip + 40 + plen > d.len() {
                return Err(related(Unmergeable::Truncated));
            }
            (true, ip + 40, ip + 40 + plen, (word0 >> 20) as u8, d[ip + 7], false, 0, word0 & 0xf_ffff)
        }
        _ => return Err(un),
    };
    let t = tcp_off;
    // `end` is within the frame and at least 20 bytes past `t`.
    let tcp_hlen = usize::from(d[t + 12] >> 4) * 4;
    if tcp_hlen < 20 || t + tcp_hlen > end {
        return Err(NotSeg::Related { hosts: hosts(d, mac, l2_len, v6, tci), why: Unmergeable::Truncated });
    }
    let options = match tcp_hlen {
        20 => Options::None,
        32 if rd32(d, t + 20) == 0x0101_080a => Options::Timestamp,
        _ => Options::Other,
    };
    let (tsval, tsecr) = if options == Options::Timestamp { (rd32(d, t + 24), rd32(d, t + 28)) } else { (0, 0) };
    let hosts = hosts(d, mac, l2_len, v6, tci);
    let ports = rd32(d, t);
    let a = addr_range(l2_len, v6);
    let src_lo = rd32(d, a.start + a.len() / 2 - 4);
    let dst_lo = rd32(d, a.end - 4);
    let hash = ports ^ src_lo.rotate_left(16) ^ dst_lo ^ (u32::from(tci) << 8) ^ u32::from(mac);
    Ok(Seg {
        hosts,
        ports,
        l2_len,
        v6,
        tcp_off,
        tcp_hlen,
        end,
        seq: rd32(d, t + 4),
        ack: rd32(d, t + 8),
        flags: d[t + 13],
        window: rd16(d, t + 14),
        options,
        tsval,
        tsecr,
        tos,
        ttl,
        df,
        ip_id,
        flow_label,
        hash,
    })
}
