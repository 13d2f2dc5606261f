//! Packet headers and Internet checksums, for every part of the driver that reads or writes
//! them (SoftLRO, TX checksum offload and TSO, the stack adapters): where the Ethernet, VLAN,
//! IPv4, IPv6 (with extension headers), TCP and UDP headers of a frame are, their fields, and
//! the ones'-complement arithmetic of RFC 1071 and RFC 1624.
//!
//! A leaf module: it imports nothing else of the crate. Every read is bounds-checked, so
//! truncated or malformed input gives `None` or a flag, never a panic.

pub mod csum;
pub mod ethernet;
pub mod ip;
pub mod l4;

/// The big-endian 16-bit field at `at` of `b`; `None` past the end.
#[inline(always)]
#[must_use]
pub fn be16(b: &[u8], at: usize) -> Option<u16> {
    b.get(at..)?.first_chunk::<2>().map(|w| u16::from_be_bytes(*w))
}

/// The big-endian 32-bit field at `at` of `b`; `None` past the end.
#[inline(always)]
#[must_use]
pub fn be32(b: &[u8], at: usize) -> Option<u32> {
    b.get(at..)?.first_chunk::<4>().map(|w| u32::from_be_bytes(*w))
}

/// Writes `v` big-endian at `at` of `b` (nothing when it does not fit).
#[inline(always)]
pub fn put16(b: &mut [u8], at: usize, v: u16) {
    if let Some(d) = b.get_mut(at..).and_then(|d| d.first_chunk_mut::<2>()) {
        *d = v.to_be_bytes();
    }
}

/// Writes `v` big-endian at `at` of `b` (nothing when it does not fit).
#[inline(always)]
pub fn put32(b: &mut [u8], at: usize, v: u32) {
    if let Some(d) = b.get_mut(at..).and_then(|d| d.first_chunk_mut::<4>()) {
        *d = v.to_be_bytes();
    }
}
