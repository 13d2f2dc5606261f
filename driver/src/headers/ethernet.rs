//! The Ethernet II header and up to two VLAN tags (802.1Q, 802.1ad) before the EtherType.

use super::be16;

/// Bytes of an untagged Ethernet II header (addresses and EtherType).
pub const HLEN: usize = 14;
/// Offset of the EtherType (or the first tag's TPID).
pub const TYPE: usize = 12;
/// Bytes of one VLAN tag (TPID and TCI).
pub const TAG_LEN: usize = 4;
/// Most VLAN tags [`Ethernet::parse`] steps over.
pub const MAX_TAGS: u8 = 2;
/// EtherType of IPv4.
pub const ETHERTYPE_IPV4: u16 = 0x0800;
/// EtherType of IPv6.
pub const ETHERTYPE_IPV6: u16 = 0x86dd;
/// TPID of an 802.1Q (customer) VLAN tag.
pub const TPID_8021Q: u16 = 0x8100;
/// TPID of an 802.1ad (service) VLAN tag.
pub const TPID_8021AD: u16 = 0x88a8;

/// Where the Ethernet header of a frame ends and what it carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ethernet {
    /// Offset of the L3 header: 14 plus 4 per tag.
    pub l3: usize,
    /// EtherType after the tags.
    pub ethertype: u16,
    /// VLAN tags stepped over (0 to [`MAX_TAGS`]).
    pub tags: u8,
    /// TPID of the outermost tag (0 when untagged).
    pub tpid: u16,
    /// TCI (PCP, DEI, VID) of the outermost tag (0 when untagged).
    pub tci: u16,
}

impl Ethernet {
    /// Reads the Ethernet header of `frame`, stepping over up to [`MAX_TAGS`] VLAN tags;
    /// `None` when the frame is too short to hold its EtherType.
    #[inline]
    #[must_use]
    pub fn parse(frame: &[u8]) -> Option<Ethernet> {
        let mut e = Ethernet { l3: HLEN, ethertype: be16(frame, TYPE)?, tags: 0, tpid: 0, tci: 0 };
        while e.tags < MAX_TAGS && matches!(e.ethertype, TPID_8021Q | TPID_8021AD) {
            if e.tags == 0 {
                (e.tpid, e.tci) = (e.ethertype, be16(frame, e.l3)?);
            }
            e.ethertype = be16(frame, e.l3 + 2)?;
            e.l3 += TAG_LEN;
            e.tags += 1;
        }
        Some(e)
    }

    /// Whether the frame is untagged or carries exactly one 802.1Q tag.
    #[must_use]
    pub fn at_most_one_8021q(&self) -> bool {
        self.tags == 0 || (self.tags == 1 && self.tpid == TPID_8021Q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untagged_single_and_double_tags() {
        let mut f = [0u8; 26];
        f[12..14].copy_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
        assert_eq!(Ethernet::parse(&f), Some(Ethernet { l3: 14, ethertype: 0x0800, tags: 0, tpid: 0, tci: 0 }));
        f[12..18].copy_from_slice(&[0x81, 0x00, 0x20, 0x07, 0x86, 0xdd]);
        let e = Ethernet::parse(&f).unwrap();
        assert_eq!((e.l3, e.ethertype, e.tags, e.tci), (18, ETHERTYPE_IPV6, 1, 0x2007));
        assert!(e.at_most_one_8021q());
        f[12..22].copy_from_slice(&[0x88, 0xa8, 0, 5, 0x81, 0x00, 0, 9, 0x08, 0x00]);
        let e = Ethernet::parse(&f).unwrap();
        assert_eq!((e.l3, e.ethertype, e.tags, e.tpid, e.tci), (22, ETHERTYPE_IPV4, 2, TPID_8021AD, 5));
        assert!(!e.at_most_one_8021q());
        for n in 0..22 {
            let _ = Ethernet::parse(&f[..n]);
        }
        assert_eq!(Ethernet::parse(&f[..13]), None);
    }
}
