//! Internet (ones'-complement) checksum arithmetic, RFC 1071, without allocation.

/// Ones'-complement sum of `b` read as big-endian 16-bit words (an odd last byte is the high
/// byte of a word padded with zero), unfolded: fold it with [`fold`].
#[inline]
pub(crate) fn sum(b: &[u8]) -> u64 {
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

/// Folds a wide ones'-complement sum to 16 bits.
#[inline]
pub(crate) fn fold(mut s: u64) -> u16 {
    s = (s & 0xffff_ffff) + (s >> 32);
    s = (s & 0xffff_ffff) + (s >> 32);
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    s = (s & 0xffff) + (s >> 16);
    s as u16
}

/// The sum of `s` when its bytes start at an odd offset of the checksummed data (a byte swap is
/// a rotation by 8, which is multiplication by 256 modulo 65535).
pub(crate) fn at_odd_offset(s: u16) -> u16 {
    s.swap_bytes()
}

/// The sum of a TCP pseudo-header but its addresses: protocol 6 and the TCP length.
pub(crate) fn pseudo_rest(tcp_len: usize) -> u64 {
    6 + tcp_len as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc1071_example() {
        // RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2.
        assert_eq!(fold(sum(&[0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7])), 0xddf2);
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
}
