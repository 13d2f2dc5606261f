//! The bounded flow table: `flows` slots carved from caller storage, each holding one aggregate
//! (the head's headers followed by every merged payload), with per-slot metadata in a fixed
//! array and least-recently-used eviction. No allocation.

use super::parse::{Hosts, Options, Seg};

/// Most flows one [`super::SoftLro`] holds at once (more are clamped to this).
pub const MAX_FLOWS: usize = 64;

/// One held aggregate's metadata; the bytes are in the slot of the same index.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Flow {
    /// Bytes held in the slot; 0 when the slot is free.
    pub len: usize,
    /// Table clock at the last segment (for LRU eviction).
    pub last_use: u64,
    /// Flow-key hash (prefilter).
    pub hash: u32,
    /// The flow's hosts (MAC, Ethernet header, IP addresses).
    pub hosts: Hosts,
    /// The flow's ports.
    pub ports: u32,
    /// MAC the flow arrived on.
    pub mac: u8,
    /// Ethernet header length of the head (14 or 18).
    pub l2_len: usize,
    /// IPv6 (else IPv4).
    pub v6: bool,
    /// Offset of the TCP header.
    pub tcp_off: usize,
    /// TCP header length.
    pub tcp_hlen: usize,
    /// Options layout of the head.
    pub options: Options,
    /// Sequence number the next segment must carry.
    pub next_seq: u32,
    /// Latest acknowledgment number.
    pub ack: u32,
    /// Latest window.
    pub window: u16,
    /// Latest TSval.
    pub tsval: u32,
    /// Latest TSecr.
    pub tsecr: u32,
    /// Flags to OR into the head's (PSH of the tail).
    pub flags_or: u8,
    /// Head's TOS byte / traffic class.
    pub tos: u8,
    /// Head's TTL / hop limit.
    pub ttl: u8,
    /// Head's DF bit.
    pub df: bool,
    /// IP ID the next segment must carry when DF is clear.
    pub next_id: u16,
    /// Head's IPv6 flow label.
    pub flow_label: u32,
    /// Head's payload length: no later segment may be larger; a shorter one closes.
    pub seg_size: u16,
    /// Segments held.
    pub segs: u16,
    /// TCP payload bytes held.
    pub payload_len: usize,
    /// Ones'-complement sum of the held payload (unfolded).
    pub payload_sum: u64,
    /// Every held segment had the hardware verdict `Verified`.
    pub verified: bool,
    /// The caller's tag of the last segment merged.
    pub tag: u64,
    /// Ones'-complement sum of the IP addresses (pseudo-header part).
    pub addr_sum: u64,
    /// What the next segment's headers must be for the fast path (see `fast.rs`).
    pub expect: super::fast::Expect,
    /// Little-endian sum of the TCP headers of the segments the fast path merged.
    pub fast_hsum: u64,
    /// Their TCP lengths (header + payload), summed.
    pub fast_tcp_len: u64,
    /// Segments the fast path merged.
    pub fast_segs: u64,
}

impl Flow {
    /// A free slot's metadata.
    pub(crate) const FREE: Flow = Flow {
        len: 0,
        last_use: 0,
        hash: 0,
        hosts: Hosts { mac: 0, l2_len: 0, v6: false, tci: 0, macs: [0; 12], addrs: [0; 32] },
        ports: 0,
        mac: 0,
        l2_len: 0,
        v6: false,
        tcp_off: 0,
        tcp_hlen: 0,
        options: Options::None,
        next_seq: 0,
        ack: 0,
        window: 0,
        tsval: 0,
        tsecr: 0,
        flags_or: 0,
        tos: 0,
        ttl: 0,
        df: false,
        next_id: 0,
        flow_label: 0,
        seg_size: 0,
        segs: 0,
        payload_len: 0,
        payload_sum: 0,
        verified: false,
        tag: 0,
        addr_sum: 0,
        expect: super::fast::Expect::NONE,
        fast_hsum: 0,
        fast_tcp_len: 0,
        fast_segs: 0,
    };

    /// Whether the slot holds an aggregate.
    pub(crate) fn held(&self) -> bool {
        self.len != 0
    }
}

/// The slots and their metadata.
pub(crate) struct Table<'a> {
    storage: &'a mut [u8],
    /// Bytes per slot.
    pub slot_size: usize,
    /// Slots in use by this table (≤ [`MAX_FLOWS`]).
    pub n: usize,
    /// Metadata per slot.
    pub flows: [Flow; MAX_FLOWS],
    /// Slots holding an aggregate.
    pub held: usize,
    /// Slot of the last segment held (checked first).
    pub mru: usize,
    /// Advances by one per segment held (LRU clock).
    clock: u64,
}

impl<'a> Table<'a> {
    /// Carves `storage` into `flows` (clamped to [`MAX_FLOWS`]) equal slots.
    pub(crate) fn new(storage: &'a mut [u8], flows: usize) -> Self {
        let n = flows.min(MAX_FLOWS);
        let slot_size = storage.len().checked_div(n).unwrap_or(0);
        Table { storage, slot_size, n, flows: [Flow::FREE; MAX_FLOWS], held: 0, mru: 0, clock: 0 }
    }

    /// Slot `i`'s metadata and bytes together.
    pub(crate) fn parts(&mut self, i: usize) -> (&mut Flow, &mut [u8]) {
        let start = i * self.slot_size;
        let bytes = self.storage.get_mut(start..start + self.slot_size).unwrap_or_default();
        (&mut self.flows[i % MAX_FLOWS], bytes)
    }

    /// The `len` bytes after slot `i`'s aggregate (empty when they would not fit).
    #[inline(always)]
    pub(crate) fn room(&mut self, i: usize, len: usize) -> &mut [u8] {
        let start = i * self.slot_size + self.flows[i % MAX_FLOWS].len;
        self.storage.get_mut(start..start + len).unwrap_or_default()
    }

    /// Whether slot `i` holds the flow of `seg`.
    #[inline]
    fn same_flow(&self, i: usize, seg: &Seg) -> bool {
        let f = &self.flows[i % MAX_FLOWS];
        f.held() && f.hash == seg.hash && f.ports == seg.ports && f.hosts == seg.hosts
    }

    /// The slot holding `seg`'s flow, if any.
    pub(crate) fn find(&self, seg: &Seg) -> Option<usize> {
        if self.held == 0 {
            return None;
        }
        if self.same_flow(self.mru, seg) {
            return Some(self.mru);
        }
        (0..self.n).find(|&i| i != self.mru && self.same_flow(i, seg))
    }

    /// Whether slot `i` holds a flow between `hosts` (any ports).
    pub(crate) fn same_hosts(&self, i: usize, hosts: &Hosts) -> bool {
        let f = &self.flows[i % MAX_FLOWS];
        f.held() && f.hosts == *hosts
    }

    /// A free slot, if any.
    pub(crate) fn free(&self) -> Option<usize> {
        if self.held >= self.n {
            return None;
        }
        (0..self.n).find(|&i| !self.flows[i].held())
    }

    /// The least recently used held slot, if any.
    pub(crate) fn lru(&self) -> Option<usize> {
        (0..self.n).filter(|&i| self.flows[i].held()).min_by_key(|&i| self.flows[i].last_use)
    }

    /// Marks slot `i` as just used.
    pub(crate) fn touch(&mut self, i: usize) {
        self.clock += 1;
        self.mru = i;
        self.flows[i % MAX_FLOWS].last_use = self.clock;
    }
}
