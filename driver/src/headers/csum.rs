//! Internet (ones'-complement) checksum arithmetic without allocation: sums (RFC 1071), their
//! fold, pseudo-header sums, and incremental update of a checksum field (RFC 1624).

/// Ones'-complement sum of `b` read as big-endian 16-bit words (an odd last byte is the high
/// byte of a word padded with zero), unfolded: fold it with [`fold`].
#[inline]
#[must_use]
pub fn sum(b: &[u8]) -> u64 {
    let mut s: u64 = 0;
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_be_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        s += (w >> 32) + (w & 0xffff_ffff);
    }
    let mut rest = words.remainder();
    if rest.len() >= 4 {
        s += u64::from(u32::from_be_bytes([rest[0], rest[1], rest[2], rest[3]]));
        rest = &rest[4..];
    }
    if rest.len() >= 2 {
        s += u64::from(u16::from_be_bytes([rest[0], rest[1]]));
        rest = &rest[2..];
    }
    if let Some(&b) = rest.first() {
        s += u64::from(b) << 8;
    }
    s
}

/// Ones'-complement sum of `b` (a whole number of 32-bit words, a shorter tail ignored) read
/// as little-endian words: the byte-swapped sum of the big-endian words, without a swap per
/// word (RFC 1071 section 2(B)); fold it, then swap the bytes.
#[inline(always)]
#[must_use]
pub fn sum_le(b: &[u8]) -> u64 {
    let (pairs, rest) = b.as_chunks::<8>();
    let mut s = 0u64;
    for p in pairs {
        let w = u64::from_le_bytes(*p);
        s += (w & 0xffff_ffff) + (w >> 32);
    }
    if let Some(w) = rest.first_chunk::<4>() {
        s += u64::from(u32::from_le_bytes(*w));
    }
    s
}

/// Folds a wide ones'-complement sum to 16 bits (not complemented).
#[inline]
#[must_use]
pub fn fold(mut s: u64) -> u16 {
    s = (s & 0xffff_ffff) + (s >> 32);
    s = (s & 0xffff_ffff) + (s >> 32);
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    s as u16
}

/// The checksum field value for data (checksum field zeroed, pseudo-header included) whose
/// sum is `s`.
#[inline]
#[must_use]
pub fn finish(s: u64) -> u16 {
    !fold(s)
}

/// Whether data whose sum is `s` (its checksum field included) verifies.
#[inline]
#[must_use]
pub fn verifies(s: u64) -> bool {
    fold(s) == 0xffff
}

/// The sum of `s` when its bytes start at an odd offset of the checksummed data (a byte swap is
/// a rotation by 8, which is multiplication by 256 modulo 65535).
#[inline]
#[must_use]
pub fn at_odd_offset(s: u16) -> u16 {
    s.swap_bytes()
}

/// The sum of a pseudo-header (RFC 793, RFC 8200 section 8.1) but its addresses: the protocol
/// and the L4 length (header and payload).
#[inline(always)]
#[must_use]
pub fn pseudo_rest(proto: u8, l4_len: usize) -> u64 {
    u64::from(proto) + l4_len as u64
}

/// The sum of a whole pseudo-header: `addrs` (source and destination, 8 or 32 bytes), the
/// protocol and the L4 length.
#[inline]
#[must_use]
pub fn pseudo(addrs: &[u8], proto: u8, l4_len: usize) -> u64 {
    sum(addrs) + pseudo_rest(proto, l4_len)
}

/// A checksum field `check` after a 16-bit word it covers changed from `old` to `new`, by
/// RFC 1624 equation 3: HC' = ~(~HC + ~m + m').
#[inline]
#[must_use]
pub fn update16(check: u16, old: u16, new: u16) -> u16 {
    !fold(u64::from(!check) + u64::from(!old) + u64::from(new))
}

/// [`update16`] for a 32-bit field (two words).
#[inline]
#[must_use]
pub fn update32(check: u16, old: u32, new: u32) -> u16 {
    let words = |v: u32| [(v >> 16) as u16, v as u16];
    let ([o1, o2], [n1, n2]) = (words(old), words(new));
    !fold(u64::from(!check) + u64::from(!o1) + u64::from(!o2) + u64::from(n1) + u64::from(n2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_example() {
        // RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2.
        assert_eq!(fold(sum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7])), 0xddf2);
        assert_eq!(fold(sum_le(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7])).swap_bytes(), 0xddf2);
    }

    #[test]
    fn odd_lengths_and_offsets() {
        let data: [u8; 7] = [0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde];
        for cut in 0..=data.len() {
            let (a, b) = data.split_at(cut);
            let sb = fold(sum(b));
            let sb = if cut % 2 == 1 { at_odd_offset(sb) } else { sb };
            let joined = fold(u64::from(fold(sum(a))) + u64::from(sb));
            // Equal modulo 65535 (0 and ffff are the same number).
            assert_eq!(joined % 0xffff, fold(sum(&data)) % 0xffff, "cut {cut}");
        }
    }

    #[test]
    fn incremental_update_matches_a_full_recompute() {
        // An IPv4 header (RFC 1071 style example values), its total length and TTL changed.
        let mut h = [0x45, 0, 0, 0x73, 0, 0, 0x40, 0, 0x40, 0x11, 0, 0, 0xc0, 0xa8, 0, 1, 0xc0, 0xa8, 0, 0xc7];
        let c = finish(sum(&h));
        assert_eq!(c, 0xb861);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        assert!(verifies(sum(&h)));
        for (old, new) in [(0x0073u16, 0xffc0u16), (0x0073, 0x0073), (0x0073, 0), (0x0073, 0xffff)] {
            let mut g = h;
            g[2..4].copy_from_slice(&new.to_be_bytes());
            g[10..12].fill(0);
            let full = finish(sum(&g));
            assert_eq!(update16(c, old, new) % 0xffff, full % 0xffff, "{old:#x} -> {new:#x}");
        }
        let mut g = h;
        g[12..16].copy_from_slice(&[10, 1, 2, 3]);
        g[10..12].fill(0);
        assert_eq!(update32(c, 0xc0a8_0001, 0x0a01_0203) % 0xffff, finish(sum(&g)) % 0xffff);
    }

    #[test]
    fn pseudo_header_of_a_tcp_segment() {
        // IPv4 10.0.0.1 -> 10.0.0.2, TCP, 20 bytes: 0a00 + 0001 + 0a00 + 0002 + 6 + 20.
        assert_eq!(fold(pseudo(&[10, 0, 0, 1, 10, 0, 0, 2], 6, 20)), 0x0a00 + 1 + 0x0a00 + 2 + 6 + 20);
    }
}
