//! Wire formats for the simulator: Internet checksums, a read-only Ethernet/IP/TCP/UDP parser,
//! frame builders and a bulk TCP generator, the Ethernet FCS, the TX offloads the frame engine
//! performs (checksum insertion, TSO) and the on-wire size arithmetic.
//!
//! Frames are Ethernet II byte slices *without* FCS unless a function says otherwise. Nothing here
//! panics on any input: parsers return `Option`, every read goes through `get`, and arithmetic on
//! lengths taken from the input is bounded (IP lengths are 16-bit) or checked.

use alloc::vec::Vec;
use core::ops::Range;

/// Ethernet II header: destination MAC, source MAC, ethertype.
pub const ETH_HEADER: usize = 14;
/// One 802.1Q / 802.1ad tag.
pub const VLAN_TAG: usize = 4;
/// Frame check sequence (CRC-32) at the end of every frame on the wire.
pub const FCS: usize = 4;
/// Preamble (7 bytes) plus start-of-frame delimiter (1 byte).
pub const PREAMBLE_SFD: usize = 8;
/// Minimum inter-frame gap, in byte times.
pub const IFG: usize = 12;
/// Minimum frame length without FCS; the MAC pads shorter frames, and shorter received frames are runts.
pub const MIN_FRAME: usize = 60;
/// Maximum untagged frame length without FCS (1500-byte MTU).
pub const MAX_FRAME: usize = 1514;
/// Maximum frame length without FCS carrying one VLAN tag.
pub const MAX_FRAME_VLAN: usize = MAX_FRAME + VLAN_TAG;

/// Ethertype of IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// Ethertype of IPv6.
pub const ETHERTYPE_IPV6: u16 = 0x86dd;
/// TPID of an 802.1Q (customer) VLAN tag.
pub const ETHERTYPE_VLAN: u16 = 0x8100;
/// TPID of an 802.1ad (service, outer) VLAN tag.
pub const ETHERTYPE_QINQ: u16 = 0x88a8;
/// IP protocol number of TCP.
pub const IPPROTO_TCP: u8 = 6;
/// IP protocol number of UDP.
pub const IPPROTO_UDP: u8 = 17;

/// TCP flag FIN.
pub const TCP_FIN: u8 = 0x01;
/// TCP flag SYN.
pub const TCP_SYN: u8 = 0x02;
/// TCP flag RST.
pub const TCP_RST: u8 = 0x04;
/// TCP flag PSH.
pub const TCP_PSH: u8 = 0x08;
/// TCP flag ACK.
pub const TCP_ACK: u8 = 0x10;
/// TCP flag URG.
pub const TCP_URG: u8 = 0x20;
/// TCP flag ECE.
pub const TCP_ECE: u8 = 0x40;
/// TCP flag CWR.
pub const TCP_CWR: u8 = 0x80;

/// Bytes a frame of `frame_len` bytes (without FCS) occupies on the wire: padding, FCS, preamble/SFD and IFG.
pub const fn wire_bytes(frame_len: usize) -> usize {
    let len = if frame_len < MIN_FRAME { MIN_FRAME } else { frame_len };
    len.saturating_add(FCS + PREAMBLE_SFD + IFG)
}

/// Payload bit rate of back-to-back frames of `frame_len` bytes each carrying `payload` bytes on a `link_bps` link.
pub fn goodput_bps(link_bps: u64, payload: usize, frame_len: usize) -> u64 {
    let bits = u128::from(link_bps) * payload as u128 / wire_bytes(frame_len) as u128;
    u64::try_from(bits).unwrap_or(u64::MAX)
}

/// Whether a received frame of `frame_len` bytes (without FCS) is shorter than the Ethernet minimum.
pub const fn is_runt(frame_len: usize) -> bool {
    frame_len < MIN_FRAME
}

/// Whether a frame (without FCS) is longer than the maximum for its number of VLAN tags (at most two counted).
pub fn is_oversize(frame: &[u8]) -> bool {
    let mut limit = MAX_FRAME;
    let mut off = 12;
    while limit < MAX_FRAME + 2 * VLAN_TAG && matches!(rd16(frame, off), Some(ETHERTYPE_VLAN | ETHERTYPE_QINQ)) {
        limit += VLAN_TAG;
        off += VLAN_TAG;
    }
    frame.len() > limit
}

/// An IPv4 address in the 16-byte form the builders use (first four bytes, rest zero).
pub const fn ip4(a: [u8; 4]) -> [u8; 16] {
    [a[0], a[1], a[2], a[3], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
}

// ---------------------------------------------------------------------------------------------
// Bounds-checked byte access.

fn arr<const N: usize>(b: &[u8], off: usize) -> Option<[u8; N]> {
    b.get(off..off.checked_add(N)?)?.try_into().ok()
}
fn rd8(b: &[u8], off: usize) -> Option<u8> {
    b.get(off).copied()
}
fn rd16(b: &[u8], off: usize) -> Option<u16> {
    arr(b, off).map(u16::from_be_bytes)
}
fn rd32(b: &[u8], off: usize) -> Option<u32> {
    arr(b, off).map(u32::from_be_bytes)
}
fn write_at(b: &mut [u8], off: usize, src: &[u8]) -> bool {
    match off.checked_add(src.len()).and_then(|end| b.get_mut(off..end)) {
        Some(dst) => {
            dst.iter_mut().zip(src).for_each(|(d, s)| *d = *s);
            true
        }
        None => false,
    }
}
fn wr16(b: &mut [u8], off: usize, v: u16) -> bool {
    write_at(b, off, &v.to_be_bytes())
}
fn wr32(b: &mut [u8], off: usize, v: u32) -> bool {
    write_at(b, off, &v.to_be_bytes())
}
fn sub(b: &[u8], off: usize, len: usize) -> Option<&[u8]> {
    b.get(off..off.checked_add(len)?)
}

// ---------------------------------------------------------------------------------------------
// Internet checksum (RFC 1071).

/// One's-complement sum of `data` as big-endian 16-bit words (odd tail zero-padded) plus `initial`, folded to 16 bits.
///
/// Sums of consecutive pieces chain (`ones_complement_sum(b, ones_complement_sum(a, 0))`) when `a` has even length.
pub fn ones_complement_sum(data: &[u8], initial: u32) -> u32 {
    // RFC 1071's byte-order independence: the data summed as little-endian 16-bit words gives
    // the byte-swapped sum of the big-endian words, so the bulk is read as whole 64-bit words
    // and the result swapped once. The words are added with end-around carry: in one's
    // complement arithmetic modulo 2^64 - 1 a carry out of bit 63 is worth 1, so it goes into
    // the next addition (`add_carry`, one add-with-carry instruction per word), and the
    // sum modulo 2^64 - 1 folds to the 16-bit sum because 0xffff divides 2^64 - 1.
    // The words are read aligned (`pod_align_to`): the kernel module's target forbids unaligned
    // loads (strict-align, as the kernel's Rust does), where reading `[u8; 8]` at any address
    // takes eight byte loads. This sum runs for every frame the model checks or fills.
    let (head, words, tail) = bytemuck::pod_align_to::<u8, u64>(data);
    // A byte at an even offset from the start of `data` is a word's low byte (little-endian
    // lanes), at an odd offset its high byte.
    let lane = |at: usize, b: u8| u64::from(b) << (8 * (at & 1));
    let mut acc: u64 = head.iter().enumerate().map(|(i, &b)| lane(i, b)).sum();
    let mid = fold(fold64(sum_words(words)));
    // The words' lanes start at `head.len()`: after an odd head they are swapped.
    acc += u64::from(if head.len() % 2 == 1 { mid.swap_bytes() } else { mid });
    let at = head.len() + words.len() * 8;
    acc += tail.iter().enumerate().map(|(i, &b)| lane(at + i, b)).sum::<u64>();
    let le = fold(fold64(acc));
    u32::from(fold(u32::from(le.swap_bytes()) + initial))
}

/// `a + b + carry` and the carry out (compiles to one add-with-carry; `u64::carrying_add` is
/// newer than the workspace's minimum Rust).
#[inline(always)]
fn add_carry(a: u64, b: u64, carry: bool) -> (u64, bool) {
    let (s, c1) = a.overflowing_add(b);
    let (s, c2) = s.overflowing_add(u64::from(carry));
    (s, c1 | c2)
}

/// One's-complement (end-around carry) sum of little-endian 64-bit words, modulo 2^64 - 1.
fn sum_words(words: &[u64]) -> u64 {
    let (mut acc, mut carry) = (0u64, false);
    let mut blocks = words.chunks_exact(8);
    for block in &mut blocks {
        // Eight words per round: the carry stays in the flags along the chain.
        for &w in block {
            (acc, carry) = add_carry(acc, u64::from_le(w), carry);
        }
    }
    for &w in blocks.remainder() {
        (acc, carry) = add_carry(acc, u64::from_le(w), carry);
    }
    // The last carry wraps around too; it cannot carry again (acc is then at most 2^64 - 2).
    let (acc, c) = acc.overflowing_add(u64::from(carry));
    acc + u64::from(c)
}

/// Folds a 64-bit sum of 32-bit words to at most 32 bits without changing it modulo 0xffff.
const fn fold64(s: u64) -> u32 {
    let s = (s & 0xffff_ffff) + (s >> 32);
    let s = (s & 0xffff_ffff) + (s >> 32);
    s as u32
}

/// Folds the carries of a one's-complement sum into 16 bits (not complemented: the checksum is `!fold(sum)`).
pub const fn fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum as u16
}

/// Internet checksum of `data` placed at even offset `field` within it, treating that 16-bit field as zero.
fn checksum_skipping(data: &[u8], field: usize, initial: u32) -> u16 {
    // One pass over all of `data`, then the field taken out again: adding its complement
    // subtracts it modulo 0xffff. The result differs from summing around the field only when
    // every other word and `initial` are zero (no IPv4 header, no TCP/UDP pseudo-header).
    let value = rd16(data, field).unwrap_or(0);
    !fold(ones_complement_sum(data, initial) + u32::from(!value))
}

/// IPv4 header checksum of `header` (IHL*4 bytes), ignoring whatever its checksum field (bytes 10..12) holds.
pub fn ipv4_header_checksum(header: &[u8]) -> u16 {
    checksum_skipping(header, 10, 0)
}

/// One's-complement sum of the IPv4 pseudo-header (addresses, protocol, L4 length).
pub fn pseudo_header_sum_v4(src: [u8; 4], dst: [u8; 4], protocol: u8, l4_len: u32) -> u32 {
    let sum = be16_sum(&src) + be16_sum(&dst);
    u32::from(fold(sum + u32::from(protocol) + (l4_len >> 16) + (l4_len & 0xffff)))
}

/// One's-complement sum of the IPv6 pseudo-header (addresses, upper-layer length, next header).
pub fn pseudo_header_sum_v6(src: &[u8; 16], dst: &[u8; 16], protocol: u8, l4_len: u32) -> u32 {
    let sum = be16_sum(src) + be16_sum(dst);
    u32::from(fold(sum + u32::from(protocol) + (l4_len >> 16) + (l4_len & 0xffff)))
}

/// Plain sum of the big-endian 16-bit words of a short even-length array (an address), not folded.
fn be16_sum<const N: usize>(bytes: &[u8; N]) -> u32 {
    bytes.chunks_exact(2).map(|w| u32::from(u16::from_be_bytes([w[0], w[1]]))).sum()
}

/// TCP checksum of `segment` (header + payload) given its pseudo-header sum; the checksum field is treated as zero.
pub fn tcp_checksum(pseudo_sum: u32, segment: &[u8]) -> u16 {
    checksum_skipping(segment, 16, pseudo_sum)
}

/// UDP checksum of `datagram` given its pseudo-header sum (field treated as zero); a result of 0 becomes 0xffff.
pub fn udp_checksum(pseudo_sum: u32, datagram: &[u8]) -> u16 {
    match checksum_skipping(datagram, 6, pseudo_sum) {
        0 => 0xffff,
        c => c,
    }
}

/// Whether an L4 segment including its checksum field verifies against the pseudo-header sum.
pub fn l4_segment_ok(pseudo_sum: u32, segment: &[u8]) -> bool {
    fold(ones_complement_sum(segment, pseudo_sum)) == 0xffff
}

// ---------------------------------------------------------------------------------------------
// Parsing.

/// An 802.1Q or 802.1ad tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VlanTag {
    /// Tag protocol identifier (0x8100 or 0x88a8).
    pub tpid: u16,
    /// Tag control information: PCP (3 bits), DEI (1 bit), VID (12 bits).
    pub tci: u16,
}

impl VlanTag {
    /// VLAN identifier (low 12 bits of the TCI).
    pub const fn vid(&self) -> u16 {
        self.tci & 0x0fff
    }
    /// Priority code point (top 3 bits of the TCI).
    pub const fn pcp(&self) -> u8 {
        (self.tci >> 13) as u8
    }
}

/// Facts about the IPv4 or IPv6 header of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpInfo {
    /// 4 or 6.
    pub version: u8,
    /// IPv4: IHL*4 bytes; IPv6: 40 bytes plus the extension headers skipped before L4.
    pub header_len: usize,
    /// Length of the IP packet according to its header (Ethernet padding excluded).
    pub total_len: usize,
    /// IPv4 options present (IHL > 5).
    pub has_options: bool,
    /// IPv6 extension headers present (hop-by-hop, routing, fragment, destination options, AH, ...).
    pub has_ext_headers: bool,
    /// Upper-layer protocol (IPv4 protocol, or IPv6 next header after the extension headers).
    pub protocol: u8,
    /// TTL or hop limit.
    pub ttl: u8,
    /// Type of service or traffic class.
    pub tos: u8,
    /// IPv4 identification (0 for IPv6).
    pub id: u16,
    /// IPv4 DF bit.
    pub dont_fragment: bool,
    /// The packet is a fragment: IPv4 MF or offset != 0, or an IPv6 fragment header with M or offset != 0.
    pub fragment: bool,
    /// Fragment offset in 8-byte units.
    pub fragment_offset: u16,
    /// Source address (IPv4 in the first four bytes).
    pub src: [u8; 16],
    /// Destination address (IPv4 in the first four bytes).
    pub dst: [u8; 16],
    /// Offset of the L4 header in the frame.
    pub l4_offset: usize,
    /// Bytes from the L4 header to the end of the IP packet.
    pub l4_len: usize,
}

impl IpInfo {
    /// Pseudo-header sum for an upper-layer segment of `l4_len` bytes of `protocol` carried by this packet.
    pub fn pseudo_header_sum(&self, protocol: u8, l4_len: usize) -> u32 {
        let len = u32::try_from(l4_len).unwrap_or(u32::MAX);
        if self.version == 4 {
            let (s, d) = (arr(&self.src, 0).unwrap_or([0; 4]), arr(&self.dst, 0).unwrap_or([0; 4]));
            pseudo_header_sum_v4(s, d, protocol, len)
        } else {
            pseudo_header_sum_v6(&self.src, &self.dst, protocol, len)
        }
    }
}

/// TCP options the parser understands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpOptions {
    /// Maximum segment size option.
    pub mss: Option<u16>,
    /// Window scale option.
    pub window_scale: Option<u8>,
    /// SACK-permitted option present.
    pub sack_permitted: bool,
    /// Number of SACK blocks.
    pub sack_blocks: u8,
    /// Timestamps option: (`TSval`, `TSecr`).
    pub timestamp: Option<(u32, u32)>,
}

/// A parsed TCP header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpInfo {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgment number.
    pub ack: u32,
    /// Header length in bytes (data offset * 4).
    pub header_len: usize,
    /// Flags byte (`TCP_FIN` ... `TCP_CWR`).
    pub flags: u8,
    /// Receive window (unscaled).
    pub window: u16,
    /// Checksum field as found.
    pub checksum: u16,
    /// Urgent pointer.
    pub urgent: u16,
    /// Recognised options.
    pub options: TcpOptions,
}

/// A parsed UDP header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UdpInfo {
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Length field (header + payload).
    pub length: u16,
    /// Checksum field as found (0 = none, IPv4 only).
    pub checksum: u16,
}

/// Everything `parse` learns about a frame; offsets index the parsed slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed {
    /// Destination MAC address.
    pub dst_mac: [u8; 6],
    /// Source MAC address.
    pub src_mac: [u8; 6],
    /// Outermost VLAN tag (0x8100 or 0x88a8).
    pub vlan: Option<VlanTag>,
    /// Second VLAN tag behind the outer one (802.1ad stacking).
    pub inner_vlan: Option<VlanTag>,
    /// Ethertype after the tags.
    pub ethertype: u16,
    /// Offset of the L3 header.
    pub l3_offset: usize,
    /// IP facts; `None` when not IPv4/IPv6 or when the IP header is malformed or truncated.
    pub ip: Option<IpInfo>,
    /// TCP header; `None` unless IP protocol 6, not a fragment, and the header is well-formed.
    pub tcp: Option<TcpInfo>,
    /// UDP header; `None` unless IP protocol 17, not a fragment, and the header is well-formed.
    pub udp: Option<UdpInfo>,
    /// Offset of the innermost payload (after TCP/UDP, else after IP, else after Ethernet).
    pub payload_offset: usize,
    /// Length of that payload (Ethernet padding excluded when IP).
    pub payload_len: usize,
}

impl Parsed {
    /// Byte range of the innermost payload.
    pub const fn payload(&self) -> Range<usize> {
        self.payload_offset..self.payload_offset.saturating_add(self.payload_len)
    }

    /// Whether the frame carries a well-formed IPv4 header.
    pub fn is_ipv4(&self) -> bool {
        self.ip.is_some_and(|ip| ip.version == 4)
    }

    /// Whether the frame carries a well-formed IPv6 header.
    pub fn is_ipv6(&self) -> bool {
        self.ip.is_some_and(|ip| ip.version == 6)
    }

    /// Upper-layer protocol number when IP (also for fragments, whose TCP/UDP header is not parsed).
    pub fn l4_protocol(&self) -> Option<u8> {
        self.ip.map(|ip| ip.protocol)
    }

    /// The TCP checksum field as found (the `mtk_eth_soc` driver puts the MSS there in TSO frames).
    pub fn tcp_checksum_field(&self) -> Option<u16> {
        self.tcp.map(|t| t.checksum)
    }

    /// IPv4 header checksum verdict: `None` when not IPv4.
    pub fn ipv4_checksum_ok(&self, frame: &[u8]) -> Option<bool> {
        self.ip_view()?.ipv4_checksum_ok(frame)
    }

    /// The IP part of this parse (see [`parse_ip`]).
    pub fn ip_view(&self) -> Option<IpView> {
        Some(IpView { l3_offset: self.l3_offset, ip: self.ip? })
    }

    /// TCP/UDP checksum verdict: `None` when not TCP/UDP or a fragment; IPv4 UDP checksum 0 (absent) is `Some(true)`.
    pub fn l4_checksum_ok(&self, frame: &[u8]) -> Option<bool> {
        self.ip_view()?.l4_checksum_ok(frame)
    }
}

/// Parses an Ethernet II frame (without FCS); `None` only when the Ethernet header or a VLAN tag is truncated.
pub fn parse(frame: &[u8]) -> Option<Parsed> {
    let dst_mac = arr(frame, 0)?;
    let src_mac = arr(frame, 6)?;
    let ([vlan, inner_vlan], ethertype, l3_offset) = ethernet(frame)?;
    let mut p = Parsed {
        dst_mac,
        src_mac,
        vlan,
        inner_vlan,
        ethertype,
        l3_offset,
        ip: None,
        tcp: None,
        udp: None,
        payload_offset: l3_offset,
        payload_len: frame.len().saturating_sub(l3_offset),
    };
    p.ip = parse_l3(frame, ethertype, l3_offset);
    let Some(ip) = p.ip else { return Some(p) };
    (p.payload_offset, p.payload_len) = (ip.l4_offset, ip.l4_len);
    let seg = sub(frame, ip.l4_offset, ip.l4_len).unwrap_or(&[]);
    match ip.protocol {
        _ if ip.fragment => {}
        IPPROTO_TCP => {
            p.tcp = parse_tcp(seg);
            if let Some(t) = p.tcp {
                (p.payload_offset, p.payload_len) = (ip.l4_offset + t.header_len, ip.l4_len - t.header_len);
            }
        }
        IPPROTO_UDP => {
            p.udp = parse_udp(seg);
            if let Some(u) = p.udp {
                (p.payload_offset, p.payload_len) = (ip.l4_offset + 8, usize::from(u.length) - 8);
            }
        }
        _ => {}
    }
    Some(p)
}

/// The Ethernet header's VLAN tags (outer, inner), the ethertype after them and the L3 offset;
/// `None` when the header or a tag is truncated.
fn ethernet(frame: &[u8]) -> Option<([Option<VlanTag>; 2], u16, usize)> {
    let mut off = 12;
    let mut ethertype = rd16(frame, off)?;
    let mut tags = [None, None];
    while matches!(ethertype, ETHERTYPE_VLAN | ETHERTYPE_QINQ) && tags[1].is_none() {
        let tag = Some(VlanTag { tpid: ethertype, tci: rd16(frame, off + 2)? });
        tags[usize::from(tags[0].is_some())] = tag;
        off += VLAN_TAG;
        ethertype = rd16(frame, off)?;
    }
    Some((tags, ethertype, off + 2))
}

/// The IP header at `l3` for `ethertype`; `None` when not IPv4/IPv6 or malformed.
fn parse_l3(frame: &[u8], ethertype: u16, l3: usize) -> Option<IpInfo> {
    match ethertype {
        ETHERTYPE_IPV4 => parse_ipv4(frame, l3),
        ETHERTYPE_IPV6 => parse_ipv6(frame, l3),
        _ => None,
    }
}

/// Where a frame's IP packet is: the part of [`parse`] the receive path's checksum verdicts
/// need, without the TCP or UDP header parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IpView {
    /// Offset of the L3 header.
    pub l3_offset: usize,
    /// IP facts.
    pub ip: IpInfo,
}

/// Parses a frame's Ethernet and IP headers only; `None` when not well-formed IPv4 or IPv6.
pub fn parse_ip(frame: &[u8]) -> Option<IpView> {
    let (_, ethertype, l3_offset) = ethernet(frame)?;
    Some(IpView { l3_offset, ip: parse_l3(frame, ethertype, l3_offset)? })
}

impl IpView {
    /// IPv4 header checksum verdict: `None` when not IPv4.
    pub fn ipv4_checksum_ok(&self, frame: &[u8]) -> Option<bool> {
        if self.ip.version != 4 {
            return None;
        }
        Some(fold(ones_complement_sum(sub(frame, self.l3_offset, self.ip.header_len)?, 0)) == 0xffff)
    }

    /// TCP/UDP checksum verdict: `None` when not TCP/UDP, a fragment, or a malformed TCP/UDP
    /// header; IPv4 UDP checksum 0 (absent) is `Some(true)`.
    pub fn l4_checksum_ok(&self, frame: &[u8]) -> Option<bool> {
        let ip = &self.ip;
        if ip.fragment {
            return None;
        }
        let seg = sub(frame, ip.l4_offset, ip.l4_len).unwrap_or(&[]);
        let (protocol, len) = match ip.protocol {
            IPPROTO_TCP => tcp_header_len(seg).map(|_| (IPPROTO_TCP, ip.l4_len))?,
            IPPROTO_UDP => match udp_fields(seg)? {
                (_, 0) if ip.version == 4 => return Some(true),
                (length, _) => (IPPROTO_UDP, usize::from(length)),
            },
            _ => return None,
        };
        Some(l4_segment_ok(ip.pseudo_header_sum(protocol, len), sub(frame, ip.l4_offset, len)?))
    }
}

fn parse_ipv4(frame: &[u8], l3: usize) -> Option<IpInfo> {
    let b0 = rd8(frame, l3)?;
    let header_len = usize::from(b0 & 0x0f) * 4;
    let total_len = usize::from(rd16(frame, l3 + 2)?);
    if b0 >> 4 != 4 || header_len < 20 || total_len < header_len || frame.len().saturating_sub(l3) < total_len {
        return None;
    }
    let frag = rd16(frame, l3 + 6)?;
    Some(IpInfo {
        version: 4,
        header_len,
        total_len,
        has_options: header_len > 20,
        has_ext_headers: false,
        protocol: rd8(frame, l3 + 9)?,
        ttl: rd8(frame, l3 + 8)?,
        tos: rd8(frame, l3 + 1)?,
        id: rd16(frame, l3 + 4)?,
        dont_fragment: frag & 0x4000 != 0,
        fragment: frag & 0x3fff != 0,
        fragment_offset: frag & 0x1fff,
        src: ip4(arr(frame, l3 + 12)?),
        dst: ip4(arr(frame, l3 + 16)?),
        l4_offset: l3 + header_len,
        l4_len: total_len - header_len,
    })
}

fn parse_ipv6(frame: &[u8], l3: usize) -> Option<IpInfo> {
    let ver_tc = rd16(frame, l3)?;
    let total_len = 40 + usize::from(rd16(frame, l3 + 4)?);
    // All reads below stay inside the packet as its header declares it.
    let pkt = sub(frame, l3, total_len)?;
    if ver_tc >> 12 != 6 {
        return None;
    }
    let mut nh = rd8(pkt, 6)?;
    let (mut off, mut fragment, mut fragment_offset) = (40usize, false, 0u16);
    for _ in 0..16 {
        let len = match nh {
            0 | 43 | 60 | 135 | 139 | 140 => (usize::from(rd8(pkt, off + 1)?) + 1) * 8,
            51 => (usize::from(rd8(pkt, off + 1)?) + 2) * 4,
            44 => {
                let fo = rd16(pkt, off + 2)?;
                fragment_offset = fo >> 3;
                fragment |= fo & 0xfff9 != 0;
                8
            }
            _ => break,
        };
        nh = rd8(pkt, off)?;
        off += len;
        if off > total_len {
            return None;
        }
        if fragment_offset != 0 {
            break;
        }
    }
    Some(IpInfo {
        version: 6,
        header_len: off,
        total_len,
        has_options: false,
        has_ext_headers: off > 40,
        protocol: nh,
        ttl: rd8(pkt, 7)?,
        tos: (ver_tc >> 4) as u8,
        id: 0,
        dont_fragment: false,
        fragment,
        fragment_offset,
        src: arr(pkt, 8)?,
        dst: arr(pkt, 24)?,
        l4_offset: l3 + off,
        l4_len: total_len - off,
    })
}

/// A TCP segment's header length, if the header is well-formed (20 bytes or more, inside the segment).
fn tcp_header_len(seg: &[u8]) -> Option<usize> {
    let header_len = usize::from(rd8(seg, 12)? >> 4) * 4;
    (20..=seg.len()).contains(&header_len).then_some(header_len)
}

fn parse_tcp(seg: &[u8]) -> Option<TcpInfo> {
    let header_len = tcp_header_len(seg)?;
    let mut options = TcpOptions::default();
    let opts = seg.get(20..header_len)?;
    let mut i = 0;
    while let Some(&kind) = opts.get(i) {
        match kind {
            0 => break,
            1 => i += 1,
            _ => {
                let len = usize::from(rd8(opts, i + 1).unwrap_or(0));
                let Some(body) = opts.get(i + 2..i + len).filter(|_| len >= 2) else { break };
                match (kind, body.len()) {
                    (2, 2) => options.mss = rd16(body, 0),
                    (3, 1) => options.window_scale = rd8(body, 0),
                    (4, 0) => options.sack_permitted = true,
                    (5, n) if n % 8 == 0 => options.sack_blocks = (n / 8) as u8,
                    (8, 8) => options.timestamp = Some((rd32(body, 0)?, rd32(body, 4)?)),
                    _ => {}
                }
                i += len;
            }
        }
    }
    Some(TcpInfo {
        src_port: rd16(seg, 0)?,
        dst_port: rd16(seg, 2)?,
        seq: rd32(seg, 4)?,
        ack: rd32(seg, 8)?,
        header_len,
        flags: rd8(seg, 13)?,
        window: rd16(seg, 14)?,
        checksum: rd16(seg, 16)?,
        urgent: rd16(seg, 18)?,
        options,
    })
}

/// A UDP datagram's length and checksum fields, if the header is well-formed (length 8 or
/// more, inside the segment).
fn udp_fields(seg: &[u8]) -> Option<(u16, u16)> {
    let length = rd16(seg, 4)?;
    (8..=seg.len()).contains(&usize::from(length)).then_some((length, rd16(seg, 6)?))
}

fn parse_udp(seg: &[u8]) -> Option<UdpInfo> {
    let (length, checksum) = udp_fields(seg)?;
    Some(UdpInfo { src_port: rd16(seg, 0)?, dst_port: rd16(seg, 2)?, length, checksum })
}

/// IPv4 header checksum verdict of a frame: `None` when it is not a well-formed IPv4 frame.
pub fn ipv4_checksum_ok(frame: &[u8]) -> Option<bool> {
    parse(frame)?.ipv4_checksum_ok(frame)
}

/// TCP/UDP checksum verdict of a frame: `None` when not TCP/UDP or a fragment (see [`Parsed::l4_checksum_ok`]).
pub fn l4_checksum_ok(frame: &[u8]) -> Option<bool> {
    parse(frame)?.l4_checksum_ok(frame)
}

// ---------------------------------------------------------------------------------------------
// Deterministic payload.

/// Payload byte at TCP sequence (or UDP byte) position `pos` of the stream keyed by `seed`.
pub const fn payload_byte(seed: u32, pos: u32) -> u8 {
    let mut x = (pos >> 2).wrapping_mul(0x9e37_79b1) ^ seed;
    x ^= x >> 16;
    x = x.wrapping_mul(0x85eb_ca6b);
    x ^= x >> 13;
    (x >> ((pos & 3) * 8)) as u8
}

/// Fills `buf` with the stream bytes of `seed` starting at position `start` (see [`payload_byte`]).
pub fn fill_payload(buf: &mut [u8], seed: u32, start: u32) {
    let mut pos = start;
    for b in buf {
        *b = payload_byte(seed, pos);
        pos = pos.wrapping_add(1);
    }
}

/// Whether `buf` holds the stream bytes of `seed` starting at position `start`.
pub fn payload_matches(buf: &[u8], seed: u32, start: u32) -> bool {
    let mut pos = start;
    buf.iter().all(|&b| {
        let ok = b == payload_byte(seed, pos);
        pos = pos.wrapping_add(1);
        ok
    })
}

// ---------------------------------------------------------------------------------------------
// Builders.

/// Everything `build_tcp` needs for one TCP segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpSpec {
    /// Source MAC address.
    pub src_mac: [u8; 6],
    /// Destination MAC address.
    pub dst_mac: [u8; 6],
    /// 802.1Q tag TCI (PCP/DEI/VID), TPID 0x8100.
    pub vlan: Option<u16>,
    /// IPv6 instead of IPv4.
    pub ipv6: bool,
    /// Source address (IPv4: first four bytes).
    pub src_ip: [u8; 16],
    /// Destination address (IPv4: first four bytes).
    pub dst_ip: [u8; 16],
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgment number.
    pub ack: u32,
    /// Flags byte (`TCP_ACK | TCP_PSH` ...).
    pub flags: u8,
    /// Receive window.
    pub window: u16,
    /// Timestamps option (`TSval`, `TSecr`), sent as NOP NOP TS (12 bytes).
    pub timestamp: Option<(u32, u32)>,
    /// TTL or hop limit.
    pub ttl_or_hop: u8,
    /// Type of service or traffic class.
    pub tos_or_tclass: u8,
    /// IPv4 identification.
    pub ip_id: u16,
    /// IPv4 DF bit.
    pub dont_fragment: bool,
    /// Payload bytes (clamped so the IP length fits 16 bits).
    pub payload_len: usize,
    /// Payload stream key: byte at sequence `s` is `payload_byte(payload_seed, s)`.
    pub payload_seed: u32,
}

impl Default for TcpSpec {
    fn default() -> Self {
        Self {
            src_mac: [0x02, 0, 0, 0, 0, 0x01],
            dst_mac: [0x02, 0, 0, 0, 0, 0x02],
            vlan: None,
            ipv6: false,
            src_ip: ip4([10, 0, 0, 1]),
            dst_ip: ip4([10, 0, 0, 2]),
            src_port: 40000,
            dst_port: 5201,
            seq: 1,
            ack: 1,
            flags: TCP_ACK,
            window: 0xffff,
            timestamp: None,
            ttl_or_hop: 64,
            tos_or_tclass: 0,
            ip_id: 0,
            dont_fragment: true,
            payload_len: 0,
            payload_seed: 0,
        }
    }
}

/// Everything `build_udp` needs for one UDP datagram.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UdpSpec {
    /// Source MAC address.
    pub src_mac: [u8; 6],
    /// Destination MAC address.
    pub dst_mac: [u8; 6],
    /// 802.1Q tag TCI, TPID 0x8100.
    pub vlan: Option<u16>,
    /// IPv6 instead of IPv4.
    pub ipv6: bool,
    /// Source address (IPv4: first four bytes).
    pub src_ip: [u8; 16],
    /// Destination address (IPv4: first four bytes).
    pub dst_ip: [u8; 16],
    /// Source port.
    pub src_port: u16,
    /// Destination port.
    pub dst_port: u16,
    /// TTL or hop limit.
    pub ttl_or_hop: u8,
    /// Type of service or traffic class.
    pub tos_or_tclass: u8,
    /// IPv4 identification.
    pub ip_id: u16,
    /// IPv4 DF bit.
    pub dont_fragment: bool,
    /// Send checksum 0 (IPv4 only: "no checksum").
    pub no_checksum: bool,
    /// Payload bytes (clamped so the lengths fit 16 bits).
    pub payload_len: usize,
    /// Payload stream key: byte `i` is `payload_byte(payload_seed, i)`.
    pub payload_seed: u32,
}

struct IpHdr<'a> {
    ipv6: bool,
    src: &'a [u8; 16],
    dst: &'a [u8; 16],
    ttl: u8,
    tos: u8,
    id: u16,
    df: bool,
    protocol: u8,
}

fn push_eth(f: &mut Vec<u8>, dst: [u8; 6], src: [u8; 6], vlan: Option<u16>, ethertype: u16) {
    f.extend_from_slice(&dst);
    f.extend_from_slice(&src);
    if let Some(tci) = vlan {
        f.extend_from_slice(&ETHERTYPE_VLAN.to_be_bytes());
        f.extend_from_slice(&tci.to_be_bytes());
    }
    f.extend_from_slice(&ethertype.to_be_bytes());
}

/// Appends the IP header (checksum zero) for an L4 segment of `l4_len` bytes (at most 65515).
fn push_ip(f: &mut Vec<u8>, h: &IpHdr<'_>, l4_len: usize) {
    let l4_len = l4_len as u16;
    if h.ipv6 {
        f.extend_from_slice(&(0x6000_0000u32 | u32::from(h.tos) << 20).to_be_bytes());
        f.extend_from_slice(&l4_len.to_be_bytes());
        f.extend_from_slice(&[h.protocol, h.ttl]);
        f.extend_from_slice(h.src);
        f.extend_from_slice(h.dst);
    } else {
        f.extend_from_slice(&[0x45, h.tos]);
        f.extend_from_slice(&(l4_len + 20).to_be_bytes());
        f.extend_from_slice(&h.id.to_be_bytes());
        f.extend_from_slice(&(if h.df { 0x4000u16 } else { 0 }).to_be_bytes());
        f.extend_from_slice(&[h.ttl, h.protocol, 0, 0]);
        f.extend_from_slice(h.src.get(..4).unwrap_or(&[0; 4]));
        f.extend_from_slice(h.dst.get(..4).unwrap_or(&[0; 4]));
    }
}

/// Largest L4 payload after an L4 header of `l4_header` bytes so that the IP lengths fit 16 bits.
fn max_payload(ipv6: bool, l4_header: usize) -> usize {
    65535 - l4_header - if ipv6 { 0 } else { 20 }
}

/// Pads a frame (without FCS) with zeros to `MIN_FRAME` bytes, as a transmitting MAC does.
pub fn pad_to_min(frame: &mut Vec<u8>) {
    if frame.len() < MIN_FRAME {
        frame.resize(MIN_FRAME, 0);
    }
}

/// Builds a TCP segment with correct IPv4/IPv6 and TCP headers and checksums, padded to `MIN_FRAME`.
pub fn build_tcp(spec: &TcpSpec) -> Vec<u8> {
    let tcp_len = if spec.timestamp.is_some() { 32 } else { 20 };
    let payload_len = spec.payload_len.min(max_payload(spec.ipv6, tcp_len));
    let mut f = Vec::with_capacity(ETH_HEADER + VLAN_TAG + 40 + tcp_len + payload_len.max(MIN_FRAME));
    let ethertype = if spec.ipv6 { ETHERTYPE_IPV6 } else { ETHERTYPE_IPV4 };
    push_eth(&mut f, spec.dst_mac, spec.src_mac, spec.vlan, ethertype);
    let ip = IpHdr {
        ipv6: spec.ipv6,
        src: &spec.src_ip,
        dst: &spec.dst_ip,
        ttl: spec.ttl_or_hop,
        tos: spec.tos_or_tclass,
        id: spec.ip_id,
        df: spec.dont_fragment,
        protocol: IPPROTO_TCP,
    };
    push_ip(&mut f, &ip, tcp_len + payload_len);
    f.extend_from_slice(&spec.src_port.to_be_bytes());
    f.extend_from_slice(&spec.dst_port.to_be_bytes());
    f.extend_from_slice(&spec.seq.to_be_bytes());
    f.extend_from_slice(&spec.ack.to_be_bytes());
    f.extend_from_slice(&[(tcp_len as u8 / 4) << 4, spec.flags]);
    f.extend_from_slice(&spec.window.to_be_bytes());
    f.extend_from_slice(&[0, 0, 0, 0]);
    if let Some((val, ecr)) = spec.timestamp {
        f.extend_from_slice(&[1, 1, 8, 10]);
        f.extend_from_slice(&val.to_be_bytes());
        f.extend_from_slice(&ecr.to_be_bytes());
    }
    let start = f.len();
    f.resize(start + payload_len, 0);
    if let Some(p) = f.get_mut(start..) {
        fill_payload(p, spec.payload_seed, spec.seq);
    }
    insert_checksums(&mut f);
    pad_to_min(&mut f);
    f
}

/// Builds a UDP datagram with correct IPv4/IPv6 and UDP headers and checksums, padded to `MIN_FRAME`.
pub fn build_udp(spec: &UdpSpec) -> Vec<u8> {
    let payload_len = spec.payload_len.min(max_payload(spec.ipv6, 8));
    let mut f = Vec::with_capacity(ETH_HEADER + VLAN_TAG + 48 + payload_len.max(MIN_FRAME));
    let ethertype = if spec.ipv6 { ETHERTYPE_IPV6 } else { ETHERTYPE_IPV4 };
    push_eth(&mut f, spec.dst_mac, spec.src_mac, spec.vlan, ethertype);
    let ip = IpHdr {
        ipv6: spec.ipv6,
        src: &spec.src_ip,
        dst: &spec.dst_ip,
        ttl: spec.ttl_or_hop,
        tos: spec.tos_or_tclass,
        id: spec.ip_id,
        df: spec.dont_fragment,
        protocol: IPPROTO_UDP,
    };
    push_ip(&mut f, &ip, 8 + payload_len);
    f.extend_from_slice(&spec.src_port.to_be_bytes());
    f.extend_from_slice(&spec.dst_port.to_be_bytes());
    f.extend_from_slice(&((8 + payload_len) as u16).to_be_bytes());
    f.extend_from_slice(&[0, 0]);
    let start = f.len();
    f.resize(start + payload_len, 0);
    if let Some(p) = f.get_mut(start..) {
        fill_payload(p, spec.payload_seed, 0);
    }
    insert_checksums(&mut f);
    if spec.no_checksum && !spec.ipv6 {
        wr16(&mut f, start - 2, 0);
    }
    pad_to_min(&mut f);
    f
}

/// Builds a frame of exactly `frame_len` bytes (without FCS) with a seeded payload: runts, oversize, non-IP traffic.
///
/// A length shorter than the Ethernet header truncates the header too.
pub fn build_raw(
    dst_mac: [u8; 6],
    src_mac: [u8; 6],
    vlan: Option<u16>,
    ethertype: u16,
    frame_len: usize,
    seed: u32,
) -> Vec<u8> {
    let mut f = Vec::with_capacity(frame_len.max(ETH_HEADER + VLAN_TAG));
    push_eth(&mut f, dst_mac, src_mac, vlan, ethertype);
    let start = f.len();
    f.resize(frame_len, 0);
    if let Some(p) = f.get_mut(start..) {
        fill_payload(p, seed, 0);
    }
    f
}

/// Corrupts the TCP/UDP checksum so verification fails (never to IPv4 UDP's "absent" 0); false if not TCP/UDP.
pub fn set_bad_l4_checksum(frame: &mut [u8]) -> bool {
    let Some(p) = parse(frame) else { return false };
    let Some(ip) = p.ip else { return false };
    let field = match (p.tcp, p.udp) {
        (Some(_), _) => ip.l4_offset + 16,
        (None, Some(_)) => ip.l4_offset + 6,
        (None, None) => return false,
    };
    corrupt16(frame, field)
}

/// Corrupts the IPv4 header checksum field so verification fails; false if not IPv4.
pub fn set_bad_ipv4_checksum(frame: &mut [u8]) -> bool {
    match parse(frame) {
        Some(p) if p.ip.is_some_and(|ip| ip.version == 4) => corrupt16(frame, p.l3_offset + 10),
        _ => false,
    }
}

/// Changes a checksum field to a value that is not equivalent (0x0000 and 0xffff are the same in one's complement).
fn corrupt16(frame: &mut [u8], field: usize) -> bool {
    match rd16(frame, field) {
        Some(c) => wr16(frame, field, if c == 0xffff { 1 } else { c + 1 }),
        None => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Bulk TCP generator.

/// MSS (payload bytes per segment) for an MTU: 1448 for IPv4 with timestamps at MTU 1500.
pub const fn mss_for_mtu(mtu: usize, ipv6: bool, timestamps: bool) -> usize {
    mtu.saturating_sub(if ipv6 { 40 } else { 20 } + if timestamps { 32 } else { 20 })
}

/// A bulk TCP sender: successive segments with advancing sequence numbers, IPv4 ids and timestamps.
#[derive(Clone, Debug)]
pub struct TcpStream {
    spec: TcpSpec,
    mss: usize,
    ts_step: u32,
    segments: u64,
    bytes: u64,
}

impl TcpStream {
    /// A stream from `template` (`seq` = first sequence number, `payload_len` ignored), `mss` (>= 1) bytes a segment.
    pub fn new(template: TcpSpec, mss: usize) -> Self {
        Self { spec: template, mss: mss.max(1), ts_step: 1, segments: 0, bytes: 0 }
    }

    /// A 1500-MTU bulk stream with timestamps (MSS 1448 for IPv4, 1428 for IPv6), optionally tagged with `vlan` TCI.
    pub fn bulk(ipv6: bool, vlan: Option<u16>) -> Self {
        let mut spec = TcpSpec { vlan, ipv6, timestamp: Some((1, 0)), payload_seed: 0x5eed, ..TcpSpec::default() };
        if ipv6 {
            spec.src_ip = [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
            spec.dst_ip = [0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2];
        }
        Self::new(spec, mss_for_mtu(1500, ipv6, true))
    }

    /// The next full-MSS segment.
    pub fn next_segment(&mut self) -> Vec<u8> {
        self.next_segment_with(self.mss)
    }

    /// The next segment carrying `payload_len` bytes (for mixed frame sizes).
    pub fn next_segment_with(&mut self, payload_len: usize) -> Vec<u8> {
        self.spec.payload_len = payload_len;
        let frame = build_tcp(&self.spec);
        let sent = payload_len.min(max_payload(self.spec.ipv6, if self.spec.timestamp.is_some() { 32 } else { 20 }));
        self.spec.seq = self.spec.seq.wrapping_add(sent as u32);
        self.spec.ip_id = self.spec.ip_id.wrapping_add(1);
        if let Some((val, ecr)) = self.spec.timestamp {
            self.spec.timestamp = Some((val.wrapping_add(self.ts_step), ecr));
        }
        self.segments += 1;
        self.bytes += sent as u64;
        frame
    }

    /// Sets the `TSval` of the next segment (e.g. from simulated time) and the per-segment increment after it.
    pub fn set_ts_val(&mut self, ts_val: u32, step: u32) {
        if let Some((_, ecr)) = self.spec.timestamp {
            self.spec.timestamp = Some((ts_val, ecr));
        }
        self.ts_step = step;
    }

    /// Payload bytes per full segment.
    pub const fn mss(&self) -> usize {
        self.mss
    }

    /// Sequence number of the next segment.
    pub const fn next_seq(&self) -> u32 {
        self.spec.seq
    }

    /// Frame length (without FCS) of a full segment.
    pub fn frame_len(&self) -> usize {
        let ts = if self.spec.timestamp.is_some() { 12 } else { 0 };
        let vlan = if self.spec.vlan.is_some() { VLAN_TAG } else { 0 };
        let ip = if self.spec.ipv6 { 40 } else { 20 };
        (ETH_HEADER + vlan + ip + 20 + ts + self.mss).max(MIN_FRAME)
    }

    /// Segments generated so far.
    pub const fn segments_sent(&self) -> u64 {
        self.segments
    }

    /// Payload bytes generated so far.
    pub const fn bytes_sent(&self) -> u64 {
        self.bytes
    }

    /// The template for the next segment.
    pub const fn spec(&self) -> &TcpSpec {
        &self.spec
    }
}

// ---------------------------------------------------------------------------------------------
// FCS (CRC-32, IEEE 802.3).

const CRC_TABLES: [[u32; 256]; 8] = {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ 0xedb8_8320 } else { c >> 1 };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut s = 1;
    while s < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[s - 1][i];
            t[s][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            i += 1;
        }
        s += 1;
    }
    t
};

/// Table lookup; a `u8` index cannot leave a 256-entry table.
fn tab(n: usize, i: u32) -> u32 {
    CRC_TABLES.get(n).and_then(|t| t.get((i & 0xff) as usize)).copied().unwrap_or(0)
}

/// CRC-32 (reflected polynomial 0xEDB88320, init and final xor 0xFFFFFFFF): the Ethernet FCS value.
pub fn crc32_ieee(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        if let &[b0, b1, b2, b3, b4, b5, b6, b7] = c {
            let lo = crc ^ u32::from_le_bytes([b0, b1, b2, b3]);
            crc = tab(7, lo) ^ tab(6, lo >> 8) ^ tab(5, lo >> 16) ^ tab(4, lo >> 24);
            crc ^= tab(3, b4.into()) ^ tab(2, b5.into()) ^ tab(1, b6.into()) ^ tab(0, b7.into());
        }
    }
    for &b in chunks.remainder() {
        crc = (crc >> 8) ^ tab(0, crc ^ u32::from(b));
    }
    !crc
}

/// Appends the FCS (CRC-32, least significant byte first as transmitted).
pub fn append_fcs(mut frame: Vec<u8>) -> Vec<u8> {
    let crc = crc32_ieee(&frame);
    frame.extend_from_slice(&crc.to_le_bytes());
    frame
}

/// Whether the last four bytes of `frame_with_fcs` are the correct FCS of the rest.
pub fn fcs_ok(frame_with_fcs: &[u8]) -> bool {
    let Some(split) = frame_with_fcs.len().checked_sub(FCS) else { return false };
    let (data, fcs) = frame_with_fcs.split_at(split);
    arr(fcs, 0).map(u32::from_le_bytes) == Some(crc32_ieee(data))
}

/// Flips a bit of the FCS of `frame_with_fcs` so `fcs_ok` fails; false if shorter than the FCS.
pub fn set_bad_fcs(frame_with_fcs: &mut [u8]) -> bool {
    match frame_with_fcs.len().checked_sub(FCS).and_then(|i| frame_with_fcs.get_mut(i)) {
        Some(b) => {
            *b ^= 0x01;
            true
        }
        None => false,
    }
}

// ---------------------------------------------------------------------------------------------
// TX offloads.

/// Fills the IPv4 header checksum and the TCP/UDP checksum (not of fragments); false when not well-formed IPv4/IPv6.
pub fn insert_checksums(frame: &mut [u8]) -> bool {
    let Some(p) = parse(frame) else { return false };
    let Some(ip) = p.ip else { return false };
    if p.tcp.is_some() {
        return fill_tcp_checksums(frame, p.l3_offset, &ip, ip.l4_len);
    }
    fill_ipv4_header_checksum(frame, p.l3_offset, &ip);
    let (field, c) = match p.udp {
        Some(u) => {
            let len = usize::from(u.length);
            let seg = sub(frame, ip.l4_offset, len).unwrap_or(&[]);
            (6, udp_checksum(ip.pseudo_header_sum(IPPROTO_UDP, len), seg))
        }
        None => return true,
    };
    wr16(frame, ip.l4_offset + field, c)
}

/// Fills the IPv4 header checksum of the packet at `l3_offset` (nothing for IPv6).
fn fill_ipv4_header_checksum(frame: &mut [u8], l3_offset: usize, ip: &IpInfo) {
    if ip.version == 4 {
        let c = sub(frame, l3_offset, ip.header_len).map_or(0, ipv4_header_checksum);
        wr16(frame, l3_offset + 10, c);
    }
}

/// Fills the IPv4 header checksum and the TCP checksum of a TCP segment of `l4_len` bytes
/// whose headers `ip` describes (offsets known, so a TSO segment needs no second parse).
fn fill_tcp_checksums(frame: &mut [u8], l3_offset: usize, ip: &IpInfo, l4_len: usize) -> bool {
    fill_ipv4_header_checksum(frame, l3_offset, ip);
    let c = tcp_checksum(ip.pseudo_header_sum(IPPROTO_TCP, l4_len), sub(frame, ip.l4_offset, l4_len).unwrap_or(&[]));
    wr16(frame, ip.l4_offset + 16, c)
}

/// Splits one TCP frame into frames of at most `mss` payload bytes; `None` if not TCP (or a fragment) or `mss == 0`.
///
/// Each output has its IP length, sequence number, flags and checksums fixed and the headers otherwise copied.
/// FIN/PSH stay only on the last segment and CWR only on the first; IPv4 ids increment per segment.
/// Output frames are not padded to `MIN_FRAME` (the MAC does that, see [`pad_to_min`]).
pub fn tso_segment(frame: &[u8], mss: usize) -> Option<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    tso_segment_with(frame, mss, Vec::new, |f| out.push(f)).then_some(out)
}

/// [`tso_segment`] writing each segment into a buffer from `buffer` (empty, maybe with capacity:
/// a reused one) and handing it to `out` in order; false (and nothing handed) where
/// [`tso_segment`] gives `None`.
pub fn tso_segment_with(
    frame: &[u8],
    mss: usize,
    mut buffer: impl FnMut() -> Vec<u8>,
    mut out: impl FnMut(Vec<u8>),
) -> bool {
    let Some(p) = parse(frame) else { return false };
    let (Some(ip), Some(tcp)) = (p.ip, p.tcp) else { return false };
    let (Some(headers), Some(payload)) = (frame.get(..p.payload_offset), sub(frame, p.payload_offset, p.payload_len))
    else {
        return false;
    };
    if mss == 0 {
        return false;
    }
    let count = payload.len().div_ceil(mss).max(1);
    let mut offset = 0u32;
    for i in 0..count {
        let start = i * mss;
        let chunk = payload.get(start..payload.len().min(start.saturating_add(mss))).unwrap_or(&[]);
        let mut f = buffer();
        f.reserve(headers.len() + chunk.len());
        f.extend_from_slice(headers);
        f.extend_from_slice(chunk);
        let l4_len = tcp.header_len + chunk.len();
        if ip.version == 4 {
            wr16(&mut f, p.l3_offset + 2, (ip.header_len + l4_len) as u16);
            wr16(&mut f, p.l3_offset + 4, ip.id.wrapping_add(i as u16));
        } else {
            wr16(&mut f, p.l3_offset + 4, (ip.header_len - 40 + l4_len) as u16);
        }
        wr32(&mut f, ip.l4_offset + 4, tcp.seq.wrapping_add(offset));
        let mut flags = tcp.flags;
        if i + 1 != count {
            flags &= !(TCP_FIN | TCP_PSH);
        }
        if i != 0 {
            flags &= !TCP_CWR;
        }
        write_at(&mut f, ip.l4_offset + 13, &[flags]);
        fill_tcp_checksums(&mut f, p.l3_offset, &ip, l4_len);
        offset = offset.wrapping_add(chunk.len() as u32);
        out(f);
    }
    true
}
