//! TCP and UDP headers: field offsets and where a TCP header ends.

/// TCP header fields (offsets from the start of the header).
pub mod tcp {
    /// Bytes of a header without options.
    pub const HLEN: usize = 20;
    /// Source then destination port.
    pub const PORTS: usize = 0;
    /// Sequence number.
    pub const SEQ: usize = 4;
    /// Acknowledgment number.
    pub const ACK: usize = 8;
    /// Data offset (high nibble: header length in 32-bit words).
    pub const DATA_OFF: usize = 12;
    /// Flags.
    pub const FLAGS: usize = 13;
    /// Receive window.
    pub const WINDOW: usize = 14;
    /// Checksum.
    pub const CSUM: usize = 16;
    /// Options (when the header is longer than [`HLEN`]).
    pub const OPTIONS: usize = 20;
}

/// TCP flag bits (byte [`tcp::FLAGS`] of the header).
pub mod flags {
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

/// UDP header fields (offsets from the start of the header).
pub mod udp {
    /// Bytes of the header.
    pub const HLEN: usize = 8;
    /// Length (header and payload).
    pub const LEN: usize = 4;
    /// Checksum.
    pub const CSUM: usize = 6;
}

/// The length of the TCP header at `l4` of `frame` from its data offset, when it is at least
/// [`tcp::HLEN`] and the whole header is within the first `limit` bytes of the frame.
#[inline(always)]
#[must_use]
pub fn tcp_header_len(frame: &[u8], l4: usize, limit: usize) -> Option<usize> {
    let hlen = usize::from(*frame.get(l4 + tcp::DATA_OFF)? >> 4) * 4;
    (hlen >= tcp::HLEN && l4 + hlen <= limit.min(frame.len())).then_some(hlen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_header_length_within_its_limit() {
        let mut f = [0u8; 40];
        f[10 + tcp::DATA_OFF] = 0x80;
        assert_eq!(tcp_header_len(&f, 10, 40), None, "32 bytes from 10 pass the frame");
        f[8 + tcp::DATA_OFF] = 0x80;
        assert_eq!(tcp_header_len(&f, 8, 40), Some(32));
        assert_eq!(tcp_header_len(&f, 8, 39), None);
        f[8 + tcp::DATA_OFF] = 0x40;
        assert_eq!(tcp_header_len(&f, 8, 40), None, "shorter than 20 bytes");
        assert_eq!(tcp_header_len(&f, 100, 200), None);
    }
}
