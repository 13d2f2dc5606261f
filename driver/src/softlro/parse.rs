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

/// One IPv4 or IPv6 TCP segment's parsed headers; offsets are into the frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seg {
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
    /// IP that may carry TCP of a held flow, but cannot be merged; the Ethernet header length
    /// and family tell where its addresses are, to flush the flows between the same hosts.
    Related { l2_len: usize, v6: bool, why: Unmergeable },
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

fn be16(d: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*d.get(at)?, *d.get(at + 1)?]))
}

fn be32(d: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes([*d.get(at)?, *d.get(at + 1)?, *d.get(at + 2)?, *d.get(at + 3)?]))
}

/// Where the source and destination addresses are, for a frame of this layout.
pub(crate) fn addr_range(l2_len: usize, v6: bool) -> core::ops::Range<usize> {
    if v6 { l2_len + 8..l2_len + 40 } else { l2_len + 12..l2_len + 20 }
}

/// Parses `d` as Ethernet II + IPv4/IPv6 + TCP.
pub(crate) fn parse(d: &[u8], mac: u8) -> Result<Seg, NotSeg> {
    let un = NotSeg::Unrelated;
    let mut l2_len = 14;
    let mut ethertype = be16(d, 12).ok_or(un)?;
    let mut tci = 0u32;
    if ethertype == ETH_VLAN {
        tci = u32::from(be16(d, 14).ok_or(un)?);
        ethertype = be16(d, 16).ok_or(un)?;
        l2_len = 18;
    }
    let ip = l2_len;
    let (v6, tcp_off, end, tos, ttl, df, ip_id, flow_label) = match ethertype {
        ETH_IPV4 => {
            if d.len() < ip + 20 || d[ip] >> 4 != 4 || d[ip + 9] != IPPROTO_TCP {
                return Err(un);
            }
            let related = |why| NotSeg::Related { l2_len, v6: false, why };
            if d[ip] & 0x0f != 5 {
                return Err(related(Unmergeable::IpOptions));
            }
            let frag = be16(d, ip + 6).ok_or(un)?;
            if frag & 0x3fff != 0 {
                return Err(related(Unmergeable::Fragment));
            }
            let total = usize::from(be16(d, ip + 2).ok_or(un)?);
            if total < 40 || ip + total > d.len() {
                return Err(related(Unmergeable::Truncated));
            }
            let id = be16(d, ip + 4).ok_or(un)?;
            (false, ip + 20, ip + total, d[ip + 1], d[ip + 8], frag & 0x4000 != 0, id, 0)
        }
        ETH_IPV6 => {
            if d.len() < ip + 40 || d[ip] >> 4 != 6 {
                return Err(un);
            }
            let related = |why| NotSeg::Related { l2_len, v6: true, why };
            match d[ip + 6] {
                IPPROTO_TCP => {}
                // UDP, ICMPv6, no next header: never TCP.
                17 | 58 | 59 => return Err(un),
                _ => return Err(related(Unmergeable::Ipv6ExtHeader)),
            }
            let word0 = be32(d, ip).ok_or(un)?;
            let plen = usize::from(be16(d, ip + 4).ok_or(un)?);
            if plen < 20 || ip + 40 + plen > d.len() {
                return Err(related(Unmergeable::Truncated));
            }
            (true, ip + 40, ip + 40 + plen, (word0 >> 20) as u8, d[ip + 7], false, 0, word0 & 0xf_ffff)
        }
        _ => return Err(un),
    };
    let truncated = NotSeg::Related { l2_len, v6, why: Unmergeable::Truncated };
    let hbyte = *d.get(tcp_off + 12).ok_or(truncated)?;
    let tcp_hlen = usize::from(hbyte >> 4) * 4;
    if tcp_hlen < 20 || tcp_off + tcp_hlen > end {
        return Err(truncated);
    }
    let t = tcp_off;
    let opt = |at| be32(d, t + at).ok_or(truncated);
    let options = match tcp_hlen {
        20 => Options::None,
        32 if opt(20)? == 0x0101_080a => Options::Timestamp,
        _ => Options::Other,
    };
    let (tsval, tsecr) = if options == Options::Timestamp { (opt(24)?, opt(28)?) } else { (0, 0) };
    let ports = opt(0)?;
    let a = addr_range(l2_len, v6);
    let src_lo = be32(d, a.start + a.len() / 2 - 4).ok_or(truncated)?;
    let dst_lo = be32(d, a.end - 4).ok_or(truncated)?;
    let hash = ports ^ src_lo.rotate_left(16) ^ dst_lo ^ (tci << 8) ^ u32::from(mac);
    Ok(Seg {
        l2_len,
        v6,
        tcp_off,
        tcp_hlen,
        end,
        seq: opt(4)?,
        ack: opt(8)?,
        flags: d[t + 13],
        window: be16(d, t + 14).ok_or(truncated)?,
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
