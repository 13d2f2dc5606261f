//! Software IPv4-header and TCP checksums for the adapters: verifying a received frame the
//! hardware did not verify, and filling a frame to send when TX checksum offload is off.
//!
//! Only what a network stack above an adapter may have been told it need not do is handled here:
//! the IPv4 header checksum and the TCP checksum (IPv4 and IPv6). UDP and ICMP checksums stay
//! with the stack, because a UDP datagram may be fragmented and only the stack sees it whole.
//! Every read is bounds-checked: a malformed frame gives a verdict, never a panic.

use crate::headers::ethernet::Ethernet;
use crate::headers::ip::{Ip, IpError, PROTO_TCP, v4};
use crate::headers::l4::tcp;
use crate::headers::{csum, put16};

/// Result of checking a received frame in software.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwVerdict {
    /// Every checksum this module owns is right (or the frame has none of them).
    Good,
    /// An IPv4 header or TCP checksum is wrong, or a length field does not fit the frame.
    Bad,
    /// A TCP segment in an IP fragment: its checksum cannot be checked frame by frame.
    Unverifiable,
}

/// `None` for frames that are not IP (ARP, ...) or too short to hold an EtherType;
/// `Some(Err(()))` for an IP frame whose header or length fields do not fit.
fn layout(f: &[u8]) -> Option<Result<Ip, ()>> {
    let l2 = Ethernet::parse(f)?;
    match Ip::parse(f, l2.ethertype, l2.l3) {
        Err(IpError::NotIp) => None,
        Ok(ip) if ip.whole => Some(Ok(ip)),
        _ => Some(Err(())),
    }
}

/// The pseudo-header sum of the TCP segment of `l`.
fn pseudo(f: &[u8], l: &Ip) -> Option<u64> {
    Some(csum::pseudo(f.get(l.addrs())?, PROTO_TCP, l.l4_len()))
}

/// Checks the IPv4 header checksum and the TCP checksum of `frame` (an Ethernet frame, up to two
/// VLAN tags). Frames that are not IP, or IP but not TCP, pass on their IPv4 header alone.
#[must_use]
pub fn verify(frame: &[u8]) -> SwVerdict {
    let l = match layout(frame) {
        None => return SwVerdict::Good,
        Some(Err(())) => return SwVerdict::Bad,
        Some(Ok(l)) => l,
    };
    if !l.v6 && frame.get(l.l3..l.l4).is_none_or(|h| !csum::verifies(csum::sum(h))) {
        return SwVerdict::Bad;
    }
    if l.proto != PROTO_TCP {
        return SwVerdict::Good;
    }
    if l.fragment {
        return SwVerdict::Unverifiable;
    }
    match (frame.get(l.l4..l.end), pseudo(frame, &l)) {
        (Some(seg), Some(p)) if seg.len() >= tcp::HLEN && csum::verifies(csum::sum(seg) + p) => SwVerdict::Good,
        _ => SwVerdict::Bad,
    }
}

/// Whether `frame` is an IP fragment (the engine must not be asked to fill its L4 checksum).
#[must_use]
pub fn is_fragment(frame: &[u8]) -> bool {
    matches!(layout(frame), Some(Ok(l)) if l.fragment)
}

/// Fills the IPv4 header checksum and (unless the frame is a fragment) the TCP checksum of
/// `frame` in place. Returns `false` when the frame is IP but malformed (left untouched).
pub fn fill(frame: &mut [u8]) -> bool {
    let l = match layout(frame) {
        None => return true,
        Some(Err(())) => return false,
        Some(Ok(l)) => l,
    };
    if !l.v6 {
        let Some(h) = frame.get_mut(l.l3..l.l4) else { return false };
        put16(h, v4::CSUM, 0);
        put16(h, v4::CSUM, csum::finish(csum::sum(h)));
    }
    if l.proto != PROTO_TCP || l.fragment {
        return true;
    }
    let Some(p) = pseudo(frame, &l) else { return false };
    let Some(seg) = frame.get_mut(l.l4..l.end).filter(|s| s.len() >= tcp::HLEN) else { return false };
    put16(seg, tcp::CSUM, 0);
    put16(seg, tcp::CSUM, csum::finish(csum::sum(seg) + p));
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An IPv4 TCP frame with 5 payload bytes and zero checksums.
    fn tcp4() -> [u8; 59] {
        let mut f = [0u8; 59];
        f[12..14].copy_from_slice(&[0x08, 0x00]);
        f[14] = 0x45;
        f[16..18].copy_from_slice(&45u16.to_be_bytes());
        f[22] = 64;
        f[23] = PROTO_TCP;
        f[26..30].copy_from_slice(&[10, 0, 0, 1]);
        f[30..34].copy_from_slice(&[10, 0, 0, 2]);
        f[46] = 0x50;
        f[54..59].copy_from_slice(b"hello");
        f
    }

    #[test]
    fn fill_then_verify_and_detect_corruption() {
        let mut f = tcp4();
        assert_eq!(verify(&f), SwVerdict::Bad);
        assert!(fill(&mut f));
        assert_eq!(verify(&f), SwVerdict::Good);
        for i in 14..f.len() {
            let mut g = f;
            g[i] ^= 0x10;
            assert_ne!(verify(&g), SwVerdict::Good, "flip in byte {i} not caught");
        }
    }

    #[test]
    fn fragments_non_ip_and_truncation() {
        let mut f = tcp4();
        f[20] = 0x20; // MF
        assert!(fill(&mut f));
        assert_eq!(verify(&f), SwVerdict::Unverifiable);
        assert!(is_fragment(&f));
        assert_eq!(verify(&[0u8; 14]), SwVerdict::Good);
        let g = tcp4();
        assert_eq!(verify(&g[..40]), SwVerdict::Bad);
        for n in 0..g.len() {
            let _ = verify(&g[..n]);
            let mut h = g;
            let _ = fill(&mut h[..n]);
        }
    }
}
