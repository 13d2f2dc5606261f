//! Ethernet frame facts the bridge needs, as pure functions: where the IP and L4 headers are,
//! pseudo-header sums, software checksum completion and software TCP segmentation (the
//! fallbacks for what the engine cannot take). Header parsing and checksum arithmetic are the
//! driver core's ([`fe_driver::headers`]); this module only shapes them for the bridge.

use fe_driver::headers::csum;
use fe_driver::headers::ethernet::Ethernet;
use fe_driver::headers::ip::{Ip, PROTO_TCP, addr_range};
use fe_driver::headers::l4::{flags, tcp, tcp_header_len, udp};
use fe_driver::headers::{be16, be32};

pub use fe_driver::headers::csum::fold;

/// IP protocol number of TCP.
pub const TCP: u8 = PROTO_TCP;
/// IP protocol number of UDP.
pub const UDP: u8 = 17;
/// Offset of the checksum field in a TCP header.
pub const TCP_CSUM_OFFSET: usize = tcp::CSUM;
/// Offset of the checksum field in a UDP header.
pub const UDP_CSUM_OFFSET: usize = udp::CSUM;

/// Where the headers of an IPv4/IPv6 frame are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Headers {
    /// Offset of the IP header (after the Ethernet header and up to two VLAN tags).
    pub l3: usize,
    /// IPv6 (else IPv4).
    pub v6: bool,
    /// L4 protocol (IPv6: the next header after the extension headers).
    pub proto: u8,
    /// Offset of the L4 header.
    pub l4: usize,
    /// L4 bytes (header and payload) as the IP header gives them.
    pub l4_len: usize,
    /// TCP header length (TCP only).
    pub tcp_hlen: Option<usize>,
    /// An IP fragment (no L4 header of its own, or only part of the datagram).
    pub fragment: bool,
}

impl Headers {
    /// Offset of the L4 checksum field for TCP and UDP.
    #[must_use]
    pub fn csum_field(&self) -> Option<usize> {
        match self.proto {
            TCP if self.tcp_hlen.is_some() => Some(self.l4 + TCP_CSUM_OFFSET),
            UDP if self.l4_len >= udp::HLEN => Some(self.l4 + UDP_CSUM_OFFSET),
            _ => None,
        }
    }

    /// Bytes of TCP payload (0 for anything but TCP).
    #[must_use]
    pub fn tcp_payload(&self) -> usize {
        self.tcp_hlen.map_or(0, |h| self.l4_len.saturating_sub(h))
    }

    /// Length of every header up to the end of the TCP header (TCP only).
    #[must_use]
    pub fn tcp_headers_end(&self) -> Option<usize> {
        self.tcp_hlen.map(|h| self.l4 + h)
    }
}

/// Parses the Ethernet, VLAN (up to two tags), IPv4/IPv6 and TCP headers of `frame`; `None`
/// when it is not IP or a header is truncated. The IP length must fit the frame (trailing
/// padding is allowed).
#[must_use]
pub fn parse(frame: &[u8]) -> Option<Headers> {
    let eth = Ethernet::parse(frame)?;
    let ip = Ip::parse(frame, eth.ethertype, eth.l3).ok().filter(|ip| ip.whole)?;
    let (l4, l4_len) = (ip.l4, ip.l4_len());
    let tcp_hlen = if ip.proto == TCP && !ip.fragment { Some(tcp_header_len(frame, l4, ip.end)?) } else { None };
    Some(Headers { l3: ip.l3, v6: ip.v6, proto: ip.proto, l4, l4_len, tcp_hlen, fragment: ip.fragment })
}

/// The pseudo-header sum of the L4 segment of `frame` (addresses, protocol, L4 length).
#[must_use]
pub fn pseudo_sum(frame: &[u8], h: &Headers) -> u64 {
    csum::pseudo(frame.get(addr_range(h.l3, h.v6)).unwrap_or_default(), h.proto, h.l4_len)
}

/// Whether the L4 checksum of a TCP/UDP frame verifies (`None`: not TCP/UDP, or a fragment).
#[must_use]
pub fn l4_checksum_ok(frame: &[u8], h: &Headers) -> Option<bool> {
    h.csum_field()?;
    if h.fragment {
        return None;
    }
    let seg = frame.get(h.l4..h.l4 + h.l4_len)?;
    Some(csum::verifies(csum::sum(seg) + pseudo_sum(frame, h)))
}

/// Completes a partial checksum as Linux's `skb_checksum_help` does: sums `frame[start..]`
/// (whose field at `start + offset` holds the pseudo-header sum) and stores the complement
/// there (0 becomes 0xffff for UDP). False when the offsets are out of range.
pub fn complete_checksum(frame: &mut [u8], start: usize, offset: usize) -> bool {
    let at = start + offset;
    if at + 2 > frame.len() || start > frame.len() {
        return false;
    }
    let c = csum::finish(csum::sum(&frame[start..]));
    let c = if c == 0 && offset == UDP_CSUM_OFFSET { 0xffff } else { c };
    frame[at..at + 2].copy_from_slice(&c.to_be_bytes());
    true
}

/// Fills the IPv4 header checksum (if IPv4) and the TCP checksum of a frame, from scratch.
pub fn fill_tcp_checksums(frame: &mut [u8], h: &Headers) {
    if !h.v6 {
        let ihl = h.l4 - h.l3;
        frame[h.l3 + 10..h.l3 + 12].copy_from_slice(&[0, 0]);
        let c = csum::finish(csum::sum(&frame[h.l3..h.l3 + ihl]));
        frame[h.l3 + 10..h.l3 + 12].copy_from_slice(&c.to_be_bytes());
    }
    let f = h.l4 + TCP_CSUM_OFFSET;
    frame[f..f + 2].copy_from_slice(&[0, 0]);
    let c = csum::finish(csum::sum(&frame[h.l4..h.l4 + h.l4_len]) + pseudo_sum(frame, h));
    frame[f..f + 2].copy_from_slice(&c.to_be_bytes());
}

/// Cuts a TCP frame into segments of at most `mss` payload bytes with complete checksums, as
/// Linux's software GSO does (FIN/PSH on the last segment only, CWR on the first only, IPv4 ids
/// counting up); each goes to `out`. `buf` is reused scratch. Returns how many segments, or
/// `None` when the frame is no TCP frame or `mss` is 0.
pub fn segment_tcp(frame: &[u8], mss: usize, buf: &mut Vec<u8>, out: &mut dyn FnMut(&[u8])) -> Option<usize> {
    let h = parse(frame)?;
    let hdrs = h.tcp_headers_end()?;
    if mss == 0 || h.fragment {
        return None;
    }
    let payload = frame.get(hdrs..h.l4 + h.l4_len)?;
    let count = payload.len().div_ceil(mss).max(1);
    let tcp_hlen = hdrs - h.l4;
    let seq0 = be32(frame, h.l4 + tcp::SEQ)?;
    let id0 = be16(frame, h.l3 + 4)?;
    let flags0 = *frame.get(h.l4 + tcp::FLAGS)?;
    for i in 0..count {
        let chunk = payload.get(i * mss..payload.len().min((i + 1) * mss)).unwrap_or_default();
        buf.clear();
        buf.extend_from_slice(&frame[..hdrs]);
        buf.extend_from_slice(chunk);
        let l4_len = tcp_hlen + chunk.len();
        if h.v6 {
            let plen = (h.l4 - h.l3 - 40 + l4_len) as u16;
            buf[h.l3 + 4..h.l3 + 6].copy_from_slice(&plen.to_be_bytes());
        } else {
            let total = (h.l4 - h.l3 + l4_len) as u16;
            buf[h.l3 + 2..h.l3 + 4].copy_from_slice(&total.to_be_bytes());
            buf[h.l3 + 4..h.l3 + 6].copy_from_slice(&id0.wrapping_add(i as u16).to_be_bytes());
        }
        let seq = seq0.wrapping_add((i * mss) as u32);
        buf[h.l4 + tcp::SEQ..h.l4 + tcp::SEQ + 4].copy_from_slice(&seq.to_be_bytes());
        let mut bits = flags0;
        if i + 1 != count {
            bits &= !(flags::FIN | flags::PSH);
        }
        if i != 0 {
            bits &= !flags::CWR;
        }
        buf[h.l4 + tcp::FLAGS] = bits;
        let seg = Headers { l4_len, ..h };
        fill_tcp_checksums(buf, &seg);
        out(buf);
    }
    Some(count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fe_sim::packet::{self, TcpStream};

    #[test]
    fn parses_a_bulk_segment_like_the_model() {
        for v6 in [false, true] {
            let f = TcpStream::bulk(v6, None).next_segment();
            let h = parse(&f).unwrap();
            let p = packet::parse(&f).unwrap();
            assert_eq!(h.v6, v6);
            assert_eq!(h.proto, TCP);
            assert_eq!(h.l4 + h.tcp_hlen.unwrap(), p.payload_offset);
            assert_eq!(h.tcp_payload(), p.payload_len);
            assert_eq!(l4_checksum_ok(&f, &h), Some(true));
        }
    }

    #[test]
    fn vlan_tagged_frames_are_parsed() {
        let f = TcpStream::bulk(false, Some(7)).next_segment();
        let h = parse(&f).unwrap();
        assert_eq!(h.l3, 18);
        assert_eq!(l4_checksum_ok(&f, &h), Some(true));
    }

    #[test]
    fn truncated_and_non_ip_frames_are_not_parsed() {
        let f = TcpStream::bulk(false, None).next_segment();
        for n in [0, 5, 13, 20, 40] {
            assert_eq!(parse(&f[..n]), None, "{n} bytes");
        }
        let mut arp = f.clone();
        arp[12..14].copy_from_slice(&[0x08, 0x06]);
        assert_eq!(parse(&arp), None);
    }

    #[test]
    fn complete_checksum_turns_a_pseudo_header_sum_into_the_checksum() {
        let good = TcpStream::bulk(false, None).next_segment();
        let h = parse(&good).unwrap();
        let mut partial = good.clone();
        let f = h.l4 + TCP_CSUM_OFFSET;
        partial[f..f + 2].copy_from_slice(&fold(pseudo_sum(&good, &h)).to_be_bytes());
        assert!(complete_checksum(&mut partial, h.l4, TCP_CSUM_OFFSET));
        assert_eq!(partial, good);
        assert!(!complete_checksum(&mut partial, good.len(), 16));
    }

    #[test]
    fn software_segmentation_matches_the_engines_tso() {
        for v6 in [false, true] {
            let mut s = TcpStream::bulk(v6, None);
            let big = s.next_segment_with(20_000);
            let mut ours = Vec::new();
            let n = segment_tcp(&big, 1448, &mut Vec::new(), &mut |f| ours.push(f.to_vec())).unwrap();
            let model = packet::tso_segment(&big, 1448).unwrap();
            assert_eq!(n, model.len());
            assert_eq!(ours, model, "v6 {v6}");
        }
    }
}
