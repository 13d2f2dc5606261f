//! Software IPv4-header and TCP checksums for the adapters: verifying a received frame the
//! hardware did not verify, and filling a frame to send when TX checksum offload is off.
//!
//! Only what a network stack above an adapter may have been told it need not do is handled here:
//! the IPv4 header checksum and the TCP checksum (IPv4 and IPv6). UDP and ICMP checksums stay
//! with the stack, because a UDP datagram may be fragmented and only the stack sees it whole.
//! Every read is bounds-checked: a malformed frame gives a verdict, never a panic.

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

/// Where the IP and L4 parts of a frame are.
#[derive(Clone, Copy, Debug)]
struct Layout {
    /// Offset of the IP header.
    l3: usize,
    /// Offset of the L4 header.
    l4: usize,
    /// End of the IP packet (frames may carry Ethernet padding after it).
    end: usize,
    /// IPv4 (header checksum present) rather than IPv6.
    v4: bool,
    /// IP protocol / final next header.
    proto: u8,
    /// An IP fragment (IPv4 MF or offset, IPv6 fragment header).
    fragment: bool,
}

const TCP: u8 = 6;

fn be16(f: &[u8], o: usize) -> Option<u16> {
    f.get(o..o.checked_add(2)?).map(|b| u16::from_be_bytes([b[0], b[1]]))
}

/// One's-complement sum of `data` (odd length padded with a zero byte) added to `acc`.
fn sum(data: &[u8], mut acc: u32) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc = acc.wrapping_add(u32::from(u16::from_be_bytes([c[0], c[1]])));
        // Fold early so the accumulator never wraps, whatever the length.
        if acc & 0x8000_0000 != 0 {
            acc = (acc & 0xffff) + (acc >> 16);
        }
    }
    if let [b] = chunks.remainder() {
        acc = acc.wrapping_add(u32::from(*b) << 8);
    }
    acc
}

fn fold(mut acc: u32) -> u16 {
    while acc >> 16 != 0 {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    acc as u16
}

/// `None` for frames that are not IP (ARP, ...) or too short to parse; `Some(Err(()))` for an
/// IP frame whose length fields do not fit.
fn layout(f: &[u8]) -> Option<Result<Layout, ()>> {
    let mut o = 12;
    for _ in 0..2 {
        if matches!(be16(f, o)?, 0x8100 | 0x88a8) {
            o += 4;
        }
    }
    let l3 = o + 2;
    match be16(f, o)? {
        0x0800 => {
            let ihl = usize::from(*f.get(l3)? & 0x0f) * 4;
            let total = usize::from(be16(f, l3 + 2)?);
            if *f.get(l3)? >> 4 != 4 || ihl < 20 || total < ihl || l3 + total > f.len() {
                return Some(Err(()));
            }
            let frag = be16(f, l3 + 6)? & 0x3fff != 0;
            Some(Ok(Layout { l3, l4: l3 + ihl, end: l3 + total, v4: true, proto: *f.get(l3 + 9)?, fragment: frag }))
        }
        0x86dd => {
            let end = l3 + 40 + usize::from(be16(f, l3 + 4)?);
            if *f.get(l3)? >> 4 != 6 || end > f.len() {
                return Some(Err(()));
            }
            let (mut next, mut l4, mut fragment) = (*f.get(l3 + 6)?, l3 + 40, false);
            // Hop-by-hop, routing, fragment and destination options come before the L4 header.
            for _ in 0..8 {
                match next {
                    0 | 43 | 60 => {
                        let len = (usize::from(*f.get(l4 + 1)?) + 1) * 8;
                        next = *f.get(l4)?;
                        l4 += len;
                    }
                    44 => {
                        fragment = true;
                        next = *f.get(l4)?;
                        l4 += 8;
                    }
                    _ => break,
                }
            }
            if l4 > end {
                return Some(Err(()));
            }
            Some(Ok(Layout { l3, l4, end, v4: false, proto: next, fragment }))
        }
        _ => None,
    }
}

/// The pseudo-header sum of the TCP segment of `l`.
fn pseudo(f: &[u8], l: &Layout) -> Option<u32> {
    let len = u32::try_from(l.end - l.l4).ok()?;
    let addrs = if l.v4 { f.get(l.l3 + 12..l.l3 + 20)? } else { f.get(l.l3 + 8..l.l3 + 40)? };
    Some(sum(addrs, u32::from(TCP)).wrapping_add(len))
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
    if l.v4 && frame.get(l.l3..l.l4).is_none_or(|h| fold(sum(h, 0)) != 0xffff) {
        return SwVerdict::Bad;
    }
    if l.proto != TCP {
        return SwVerdict::Good;
    }
    if l.fragment {
        return SwVerdict::Unverifiable;
    }
    match (frame.get(l.l4..l.end), pseudo(frame, &l)) {
        (Some(seg), Some(p)) if seg.len() >= 20 && fold(sum(seg, p)) == 0xffff => SwVerdict::Good,
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
    if l.v4 {
        let Some(h) = frame.get_mut(l.l3..l.l4) else { return false };
        h[10..12].fill(0);
        let c = !fold(sum(h, 0));
        h[10..12].copy_from_slice(&c.to_be_bytes());
    }
    if l.proto != TCP || l.fragment {
        return true;
    }
    let Some(p) = pseudo(frame, &l) else { return false };
    let Some(seg) = frame.get_mut(l.l4..l.end).filter(|s| s.len() >= 20) else { return false };
    seg[16..18].fill(0);
    let c = !fold(sum(seg, p));
    seg[16..18].copy_from_slice(&c.to_be_bytes());
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
        f[23] = TCP;
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
