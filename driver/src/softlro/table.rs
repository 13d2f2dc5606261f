//! The bounded flow table: `flows` slots carved from caller storage, each holding one aggregate
//! (the head's headers followed by every merged payload), with per-slot metadata in a fixed
//! array and least-recently-used eviction. No allocation.

use super::parse::{Options, Seg, addr_range};

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
}

impl Flow {
    /// A free slot's metadata.
    pub(crate) const FREE: Flow = Flow {
        len: 0,
        last_use: 0,
        hash: 0,
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
    mru: usize,
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

    /// Slot `i`'s metadata and held bytes, read-only.
    pub(crate) fn held_bytes(&self, i: usize) -> (&Flow, &[u8]) {
        let f = &self.flows[i % MAX_FLOWS];
        let start = i * self.slot_size;
        (f, self.storage.get(start..start + f.len).unwrap_or_default())
    }

    /// Whether slot `i` holds the flow of `seg` (frame `d` on `mac`).
    fn same_flow(&self, i: usize, mac: u8, d: &[u8], seg: &Seg) -> bool {
        let (f, held) = self.held_bytes(i);
        if !f.held() || f.hash != seg.hash || f.mac != mac || f.l2_len != seg.l2_len || f.v6 != seg.v6 {
            return false;
        }
        let a = addr_range(seg.l2_len, seg.v6);
        let ports = seg.tcp_off..seg.tcp_off + 4;
        held.get(..seg.l2_len) == d.get(..seg.l2_len)
            && held.get(a.clone()) == d.get(a)
            && held.get(ports.clone()) == d.get(ports)
    }

    /// The slot holding `seg`'s flow, if any.
    pub(crate) fn find(&self, mac: u8, d: &[u8], seg: &Seg) -> Option<usize> {
        if self.held == 0 {
            return None;
        }
        if self.same_flow(self.mru, mac, d, seg) {
            return Some(self.mru);
        }
        (0..self.n).find(|&i| i != self.mru && self.same_flow(i, mac, d, seg))
    }

    /// Whether slot `i` holds a flow between the same hosts as frame `d` (same MAC, Ethernet
    /// header and addresses; any ports).
    pub(crate) fn same_hosts(&self, i: usize, mac: u8, d: &[u8], l2_len: usize, v6: bool) -> bool {
        let (f, held) = self.held_bytes(i);
        let a = addr_range(l2_len, v6);
        f.held()
            && f.mac == mac
            && f.l2_len == l2_len
            && f.v6 == v6
            && held.get(..l2_len) == d.get(..l2_len)
            && held.get(a.clone()) == d.get(a)
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
