//! Wire capture in the pcap format (nanosecond timestamps, Ethernet link type), readable by
//! tshark and Wireshark. Frames are recorded without FCS, as captures usually are.

use alloc::vec::Vec;

/// pcap magic for nanosecond-resolution timestamps.
pub const MAGIC_NS: u32 = 0xa1b2_3c4d;
/// Link type Ethernet.
pub const LINKTYPE_ETHERNET: u32 = 1;

/// Frames seen on one wire direction.
#[derive(Clone, Debug, Default)]
pub struct Capture {
    records: Vec<(u64, Vec<u8>)>,
}

impl Capture {
    /// An empty capture.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Records `frame` seen at simulated time `t_ns`.
    pub fn record(&mut self, t_ns: u64, frame: &[u8]) {
        self.records.push((t_ns, frame.to_vec()));
    }

    /// Frames recorded.
    #[must_use]
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether nothing was recorded.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The records, `(time in ns, frame)`.
    #[must_use]
    pub fn records(&self) -> &[(u64, Vec<u8>)] {
        &self.records
    }

    /// The capture as a pcap file.
    #[must_use]
    pub fn to_pcap(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(24 + self.records.iter().map(|(_, f)| 16 + f.len()).sum::<usize>());
        out.extend_from_slice(&MAGIC_NS.to_le_bytes());
        out.extend_from_slice(&2u16.to_le_bytes()); // version 2.4
        out.extend_from_slice(&4u16.to_le_bytes());
        out.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        out.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        out.extend_from_slice(&65535u32.to_le_bytes()); // snaplen
        out.extend_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        for (t, f) in &self.records {
            let sec = (t / 1_000_000_000) as u32;
            let nsec = (t % 1_000_000_000) as u32;
            let len = f.len().min(65535) as u32;
            for v in [sec, nsec, len, f.len() as u32] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&f[..len as usize]);
        }
        out
    }
}

/// Reads a pcap file written by [`Capture::to_pcap`] (nanosecond, little-endian); `None` if it is
/// not one.
#[must_use]
pub fn parse_pcap(bytes: &[u8]) -> Option<Vec<(u64, Vec<u8>)>> {
    let word = |o: usize| bytes.get(o..o + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    if word(0)? != MAGIC_NS || word(20)? != LINKTYPE_ETHERNET {
        return None;
    }
    let mut out = Vec::new();
    let mut o = 24;
    while o < bytes.len() {
        let (sec, nsec, incl) = (word(o)?, word(o + 4)?, word(o + 12)?.min(word(o + 8)?) as usize);
        let data = bytes.get(o + 16..o + 16 + incl)?;
        out.push((u64::from(sec) * 1_000_000_000 + u64::from(nsec), data.to_vec()));
        o += 16 + incl;
    }
    Some(out)
}
