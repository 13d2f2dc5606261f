//! The bounded flow table: `flows` slots carved from caller storage, each holding one aggregate
//! (the head's headers followed by every merged payload), with per-slot metadata in a fixed-size
//! table allocated when the table is built, and least-recently-used eviction. No allocation
//! afterwards.

use super::parse::{Hosts, Options, Seg};
use crate::error::AllocError;
use alloc::boxed::Box;

/// Most flows one [`super::SoftLro`] holds at once (more are clamped to this).
pub const MAX_FLOWS: usize = 64;

/// One held aggregate's metadata; the bytes are in the slot of the same index.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Flow {
    /// Bytes held in the slot; 0 when the slot is free.
    pub len: usize,
    /// Table clock at the last segment (for LRU eviction).
    pub last_use: u64,
    /// Time (ns, the platform clock) of the poll that started the aggregate (for the flush
    /// timeout).
    pub born: u64,
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
    /// More segments of the head's size the aggregate can take (segment cap, IP length, slot).
    pub room: u16,
    /// [`Flow::room`] of an aggregate of the head alone (for the flow's next aggregate).
    pub room0: u16,
    /// Ones'-complement sum of the payload the full path held (unfolded).
    pub payload_sum: u64,
    /// Every held segment had the hardware verdict `Verified`.
    pub verified: bool,
    /// The caller's tag of the last segment merged.
    pub tag: u64,
    /// Ones'-complement sum of the IP addresses (pseudo-header part).
    pub addr_sum: u64,
    /// What the next segment's headers must be for the fast path (see `fast.rs`).
    pub expect: super::fast::Expect,
    /// Little-endian sum of the TCP headers of the segments the fast path took.
    pub fast_hsum: u64,
    /// Segments the full path took (the rest the fast path did).
    pub slow_segs: u16,
    /// Their payload bytes.
    pub slow_payload: usize,
}

impl Flow {
    /// A free slot's metadata.
    pub(crate) const FREE: Flow = Flow {
        len: 0,
        last_use: 0,
        born: 0,
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
        room: 0,
        room0: 0,
        payload_sum: 0,
        verified: false,
        tag: 0,
        addr_sum: 0,
        expect: super::fast::Expect::NONE,
        fast_hsum: 0,
        slow_segs: 0,
        slow_payload: 0,
    };

    /// Whether the slot holds an aggregate.
    #[inline(always)]
    pub(crate) fn held(&self) -> bool {
        self.len != 0
    }

    /// TCP payload bytes held (0 for a free slot).
    #[inline(always)]
    pub(crate) fn payload_len(&self) -> usize {
        self.len.saturating_sub(self.tcp_off + self.tcp_hlen)
    }
}

/// The slots and their metadata.
pub(crate) struct Table<'a> {
    storage: &'a mut [u8],
    /// Bytes per slot.
    pub slot_size: usize,
    /// Slots in use by this table (≤ [`MAX_FLOWS`]).
    pub n: usize,
    /// Metadata per slot, on the heap ([`crate::heap`]).
    pub flows: Box<[Flow; MAX_FLOWS]>,
    /// Slots holding an aggregate.
    pub held: usize,
    /// Slot of the last segment held (checked first).
    pub mru: usize,
    /// Advances by one per segment held (LRU clock).
    clock: u64,
    /// The time stamped on aggregates started now (see [`Flow::born`]).
    pub now: u64,
}

impl<'a> Table<'a> {
    /// Carves `storage` into `flows` (clamped to [`MAX_FLOWS`]) equal slots; their metadata
    /// goes on the heap.
    pub(crate) fn new(storage: &'a mut [u8], flows: usize) -> Result<Self, AllocError> {
        let n = flows.min(MAX_FLOWS);
        let slot_size = storage.len().checked_div(n).unwrap_or(0);
        let flows = crate::heap::table(Flow::FREE)?;
        Ok(Table { storage, slot_size, n, flows, held: 0, mru: 0, clock: 0, now: 0 })
    }

    /// Slot `i`'s metadata and bytes together.
    pub(crate) fn parts(&mut self, i: usize) -> (&mut Flow, &mut [u8]) {
        let start = i * self.slot_size;
        let bytes = self.storage.get_mut(start..start + self.slot_size).unwrap_or_default();
        (&mut self.flows[i % MAX_FLOWS], bytes)
    }

    /// Slot `i`'s prediction and the whole storage (a run copies payloads at storage offsets).
    #[inline(always)]
    pub(crate) fn lane(&mut self, i: usize) -> (&super::fast::Expect, &mut [u8]) {
        (&self.flows[i % MAX_FLOWS].expect, self.storage)
    }

    /// `len` bytes at offset `start` of the storage, if it has them.
    #[inline(always)]
    pub(crate) fn bytes(&mut self, start: usize, len: usize) -> Option<&mut [u8]> {
        self.storage.get_mut(start..)?.get_mut(..len)
    }

    /// `len` bytes at offset `at` of slot `i` (empty when they would not fit).
    #[inline(always)]
    pub(crate) fn room(&mut self, i: usize, at: usize, len: usize) -> &mut [u8] {
        self.bytes(i * self.slot_size + at, len).unwrap_or_default()
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

    /// The least recently used held slot, if any: the most recently used one only when no
    /// other is held.
    pub(crate) fn lru(&self) -> Option<usize> {
        let mru = self.mru;
        (0..self.n)
            .filter(|&i| i != mru && self.flows[i].held())
            .min_by_key(|&i| self.flows[i].last_use)
            .or_else(|| (mru < self.n && self.flows[mru % MAX_FLOWS].held()).then_some(mru))
    }

    /// Marks slot `i` as just used. A slot's `last_use` is when it stopped being the most
    /// recently used one, so segments of that flow need not touch the table at all.
    pub(crate) fn touch(&mut self, i: usize) {
        if i != self.mru {
            self.clock += 1;
            self.flows[self.mru % MAX_FLOWS].last_use = self.clock;
            self.mru = i;
        }
    }
}
