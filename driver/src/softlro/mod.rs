//! SoftLRO: software receive coalescing of TCP segments, with no allocation after construction.
//!
//! Frames are offered one by one with [`SoftLro::push`]; segments that may be merged are held,
//! one aggregate per flow in a bounded table of slots carved from caller storage, and delivered
//! when they close (PSH, a short segment, full, a segment that cannot join, eviction) or at the
//! latest at [`SoftLro::flush`]. As Linux GRO does, the driver keeps aggregates across a poll
//! that used its whole budget and flushes them when a poll drains the ring; an aggregate older
//! than the flush timeout ([`SoftLro::set_flush_timeout`]) is closed at the end of the poll
//! that finds it so ([`SoftLro::flush_expired`]). A caller that stops polling flushes. Every flow's
//! bytes leave in the order they came. The merge rules are those of the merged rule table in
//! `docs/lro-rules.md` (one function per rule in `rules.rs`); an aggregate leaves with its segment
//! count and size, correct IP lengths, IPv4 header checksum and TCP checksum.
//!
//! ```
//! use fe_driver::softlro::SoftLro;
//! let mut storage = [0u8; 4 * 16384];
//! let mut lro = SoftLro::new(&mut storage, 4);
//! let mut delivered = 0;
//! let frame = fe_driver::RxFrame::new(0, &[0u8; 60], fe_driver::RxChecksum::Unverified);
//! lro.push(frame, &mut |_f| delivered += 1);
//! lro.flush(&mut |_f| delivered += 1);
//! assert_eq!(delivered, 1); // not TCP: passed straight through
//! ```

pub(crate) mod fast;
mod merge;
pub(crate) mod parse;
mod rules;
pub(crate) mod run;
mod stats;
mod table;

pub use rules::{MAX_IP_LEN, MAX_SEGS};
pub use stats::{FlushReason, LroStats, PassReason};
pub use table::MAX_FLOWS;

use crate::error::AllocError;
use crate::frame::{RxChecksum, RxFrame};
use crate::headers::ip::v6;
use crate::platform::Clock;
use parse::{NotSeg, Unmergeable, flags};

/// Bytes of a slot that holds the largest aggregate: an 802.1Q-tagged Ethernet header and an IP
/// datagram of [`MAX_IP_LEN`] bytes (IPv6: that payload length after the fixed header).
pub const SLOT_SIZE: usize = 18 + v6::HLEN + MAX_IP_LEN;

/// Default of [`SoftLro::set_flush_timeout`]: 20 µs, shorter than one jiffy (Linux flushes
/// aggregates older than that on a full-budget poll) and than the engine's 200 µs LRO age.
pub const FLUSH_TIMEOUT_NS: u64 = 20_000;
use table::Table;

/// The software coalescer: a bounded table of held aggregates over caller storage.
pub struct SoftLro<'a> {
    table: Table<'a>,
    forwarding: bool,
    flush_timeout_ns: u64,
    /// No held aggregate is older than this stamp (see [`Flow`](table::Flow)`::born`).
    oldest: u64,
    stats: LroStats,
}

impl<'a> SoftLro<'a> {
    /// Carves `storage` into `flows` slots (at most [`MAX_FLOWS`]); each slot holds one aggregate
    /// (headers + payload), so the largest aggregate is min(slot size, Ethernet header +
    /// [`MAX_IP_LEN`]): slots of [`SLOT_SIZE`] bytes hold any. The flows' metadata (about
    /// 33 KiB) is allocated here, once; nothing is allocated afterwards. With no room in
    /// `storage` every frame passes through. Like `Box::new`, aborts when the heap has no room
    /// for the metadata: [`SoftLro::try_new`] returns the error instead (what a kernel uses).
    pub fn new(storage: &'a mut [u8], flows: usize) -> Self {
        match Self::try_new(storage, flows) {
            Ok(lro) => lro,
            Err(_) => alloc::alloc::handle_alloc_error(core::alloc::Layout::new::<[table::Flow; MAX_FLOWS]>()),
        }
    }

    /// [`SoftLro::new`], with an error when the heap has no room for the flows' metadata.
    #[inline(never)]
    pub fn try_new(storage: &'a mut [u8], flows: usize) -> Result<Self, AllocError> {
        Ok(SoftLro {
            table: Table::new(storage, flows)?,
            forwarding: false,
            flush_timeout_ns: FLUSH_TIMEOUT_NS,
            oldest: 0,
            stats: LroStats::default(),
        })
    }

    /// Sets how long an aggregate may be held across polls that use their whole budget, in
    /// nanoseconds of the platform clock ([`FLUSH_TIMEOUT_NS`] by default; 0: closed at the end
    /// of every poll, as before).
    pub fn set_flush_timeout(&mut self, ns: u64) {
        self.flush_timeout_ns = ns;
    }

    /// The flush timeout in nanoseconds.
    pub fn flush_timeout(&self) -> u64 {
        self.flush_timeout_ns
    }

    /// Sets the time (ns, the clock [`SoftLro::flush_expired`] is given; it never goes back)
    /// that aggregates started from now on are stamped with: no later than their first segment
    /// is offered, so an aggregate's age is never underestimated.
    pub fn set_time(&mut self, now_ns: u64) {
        self.table.now = now_ns;
    }

    /// The start of a receive poll: aggregates it starts are stamped with the time of the
    /// platform's `clock` ([`SoftLro::set_time`]).
    #[inline(never)]
    pub fn poll_begin<C: Clock>(&mut self, clock: &C) {
        self.set_time(clock.now_ns());
    }

    /// The end of a receive poll: delivers every held aggregate when the poll `drained` the
    /// ring, else those the flush timeout has passed for by the platform's `clock`.
    #[inline(never)]
    pub fn poll_end<C: Clock>(&mut self, clock: &C, drained: bool, out: &mut dyn FnMut(RxFrame<'_>)) {
        if drained {
            self.flush(out);
        } else {
            self.flush_expired(clock.now_ns(), out);
        }
    }

    /// Delivers every held aggregate started [`SoftLro::flush_timeout`] or longer before
    /// `now_ns` (called at the end of a poll that used its whole budget).
    pub fn flush_expired(&mut self, now_ns: u64, out: &mut dyn FnMut(RxFrame<'_>)) {
        let timeout = self.flush_timeout_ns;
        if self.table.held == 0 {
            // Aggregates started from now on are stamped no earlier (the time never goes back).
            self.oldest = self.table.now;
            return;
        }
        if now_ns.saturating_sub(self.oldest) < timeout {
            return;
        }
        let mut oldest = self.table.now;
        for i in 0..self.table.n {
            let f = &self.table.flows[i % MAX_FLOWS];
            if !f.held() {
                continue;
            }
            if now_ns.saturating_sub(f.born) >= timeout {
                self.close(i, FlushReason::Timeout, &mut |f, _| out(f));
            } else {
                oldest = oldest.min(f.born);
            }
        }
        self.oldest = oldest;
    }

    /// Offers one received frame; delivers to `out` zero or more frames, keeping each flow's
    /// bytes in order: the frame itself if it cannot be merged (after its flow's held aggregate),
    /// or aggregates that had to be closed.
    pub fn push(&mut self, frame: RxFrame<'_>, out: &mut dyn FnMut(RxFrame<'_>)) {
        self.push_inner(frame, 0, &mut |f, _| out(f));
    }

    /// [`SoftLro::push`] with a caller's tag (a receive timestamp, say): each delivered frame
    /// comes with the tag of its last merged segment (its own for a frame passed through).
    pub fn push_tagged(&mut self, frame: RxFrame<'_>, tag: u64, out: &mut dyn FnMut(RxFrame<'_>, u64)) {
        self.push_inner(frame, tag, out);
    }

    /// Delivers every held aggregate (the driver calls it when a poll drains the ring; a caller
    /// that stops polling calls it so nothing stays held).
    pub fn flush(&mut self, out: &mut dyn FnMut(RxFrame<'_>)) {
        self.flush_inner(&mut |f, _| out(f));
    }

    /// [`SoftLro::flush`] with each aggregate's tag (see [`SoftLro::push_tagged`]).
    pub fn flush_tagged(&mut self, out: &mut dyn FnMut(RxFrame<'_>, u64)) {
        self.flush_inner(out);
    }

    /// While forwarding/bridging is on, nothing is merged (the caller flushes held aggregates
    /// first with [`SoftLro::flush`]).
    pub fn set_forwarding(&mut self, on: bool) {
        self.forwarding = on;
    }

    /// Counters since creation.
    pub fn stats(&self) -> &LroStats {
        &self.stats
    }

    /// Aggregates held now (0 after [`SoftLro::flush`]).
    pub fn held(&self) -> usize {
        self.table.held
    }

    /// The fast path's plan for a frame of `len` bytes whose first bytes are `head` (bytes past
    /// `len` may be anything); `None`: offer the whole frame with [`SoftLro::push`]. Changes
    /// nothing.
    #[inline(always)]
    pub(crate) fn fast_plan(
        &self,
        mac: u8,
        checksum: RxChecksum,
        head: &[u8; fast::MAX_HDR],
        len: usize,
    ) -> Option<fast::Plan> {
        if self.forwarding {
            return None;
        }
        fast::plan(&self.table, mac, checksum, head, len)
    }

    /// Where the bytes `p` takes from the frame go (the caller copies them there): the end of
    /// its aggregate, or the slot's start for the flow's next aggregate.
    #[inline(always)]
    pub(crate) fn fast_room(&mut self, p: &fast::Plan) -> &mut [u8] {
        self.table.room(p.slot, p.at, p.n)
    }

    /// Takes the segment of `p` (its bytes copied to [`SoftLro::fast_room`]) into the
    /// aggregate, and closes it when it must.
    #[inline(always)]
    pub(crate) fn fast_commit<F: FnMut(RxFrame<'_>, u64) + ?Sized>(&mut self, p: &fast::Plan, tag: u64, out: &mut F) {
        // Counted when the aggregate leaves (`close`).
        if let Some(reason) = fast::commit(&mut self.table, p, tag) {
            self.close(p.slot, reason, out);
        }
    }

    fn flush_inner<F: FnMut(RxFrame<'_>, u64) + ?Sized>(&mut self, out: &mut F) {
        for i in 0..self.table.n {
            if self.table.held == 0 {
                break;
            }
            if self.table.flows[i].held() {
                self.close(i, FlushReason::PollEnd, out);
            }
        }
    }

    fn push_inner<F: FnMut(RxFrame<'_>, u64) + ?Sized>(&mut self, frame: RxFrame<'_>, tag: u64, out: &mut F) {
        let plan = if frame.segs != 1 {
            None
        } else if let Some(head) = frame.data.first_chunk::<{ fast::MAX_HDR }>() {
            self.fast_plan(frame.mac, frame.checksum, head, frame.data.len())
        } else {
            // A frame shorter than the compare: zero the bytes past its end.
            let mut short = [0u8; fast::MAX_HDR];
            short.iter_mut().zip(frame.data).for_each(|(d, s)| *d = *s);
            self.fast_plan(frame.mac, frame.checksum, &short, frame.data.len())
        };
        if let Some(p) = plan
            && let Some(src) = frame.data.get(p.off..p.off + p.n)
        {
            self.fast_room(&p).copy_from_slice(src);
            return self.fast_commit(&p, tag, out);
        }
        self.stats.frames_in += 1;
        let seg = match parse::parse(frame.data, frame.mac) {
            Ok(seg) => seg,
            Err(NotSeg::Unrelated) => return self.pass(frame, tag, PassReason::NotTcp, out),
            Err(NotSeg::Related { hosts, why }) => {
                // Its flow is unknown (no ports, say): close every aggregate between the same hosts.
                for i in 0..self.table.n {
                    if self.table.same_hosts(i, &hosts) {
                        self.close(i, FlushReason::Unmergeable, out);
                    }
                }
                let why = match why {
                    Unmergeable::IpOptions => PassReason::IpOptions,
                    Unmergeable::Fragment => PassReason::Fragment,
                    Unmergeable::Ipv6ExtHeader => PassReason::Ipv6ExtHeader,
                    Unmergeable::Truncated => PassReason::Truncated,
                };
                return self.pass(frame, tag, why, out);
            }
        };
        let held = self.table.find(&seg);
        let verdict = if self.forwarding {
            Err(PassReason::Forwarding)
        } else {
            rules::frame_mergeable(&frame, &seg).and_then(|()| rules::checksum_good(&frame, &seg))
        };
        let psum = match verdict {
            Ok(psum) => psum,
            Err(why) => {
                if let Some(i) = held {
                    let reason = if self.forwarding { FlushReason::Forwarding } else { FlushReason::Unmergeable };
                    self.close(i, reason, out);
                }
                return self.pass(frame, tag, why, out);
            }
        };
        if frame.checksum == RxChecksum::Unverified {
            self.stats.sw_verified += 1;
        }
        let slot_size = self.table.slot_size;
        if let Some(i) = held {
            let mut joins = rules::joins(&self.table.flows[i], &seg, slot_size);
            if joins.is_ok() && seg.v6 && seg.tcp_off != seg.l2_len + v6::HLEN {
                let ext = seg.l2_len + v6::HLEN..seg.tcp_off;
                joins = rules::same_extension_headers(self.table.parts(i).1, frame.data, ext);
            }
            match joins {
                Ok(()) => {
                    self.table.touch(i);
                    let (f, slot) = self.table.parts(i);
                    let payload = frame.data.get(seg.payload_off()..seg.end).unwrap_or_default();
                    merge::append(f, slot, payload, psum, merge::Tail::of(&frame, &seg), tag);
                    if let Some(reason) = rules::closes(f, seg.flags, seg.payload_len()) {
                        self.close(i, reason, out);
                    }
                    return;
                }
                Err(reason) => self.close(i, reason, out),
            }
        }
        // A new aggregate, with this segment as its head.
        if seg.flags & flags::PSH != 0 {
            return self.pass(frame, tag, PassReason::PushAlone, out);
        }
        if seg.end > slot_size {
            return self.pass(frame, tag, PassReason::NoRoom, out);
        }
        let i = match self.table.free() {
            Some(i) => i,
            None => match self.table.lru() {
                Some(victim) => {
                    self.close(victim, FlushReason::Evicted, out);
                    victim
                }
                None => return self.pass(frame, tag, PassReason::NoRoom, out),
            },
        };
        self.table.touch(i);
        self.table.held += 1;
        let now = self.table.now;
        let (f, slot) = self.table.parts(i);
        f.born = now;
        merge::start(f, slot, &frame, &seg, psum, tag);
    }

    /// Delivers `frame` as received.
    fn pass<F: FnMut(RxFrame<'_>, u64) + ?Sized>(
        &mut self,
        frame: RxFrame<'_>,
        tag: u64,
        why: PassReason,
        out: &mut F,
    ) {
        self.stats.count_pass(why);
        out(frame, tag);
    }

    /// Closes the aggregate in slot `i`: rewrites its headers, delivers it, frees the slot.
    fn close<F: FnMut(RxFrame<'_>, u64) + ?Sized>(&mut self, i: usize, reason: FlushReason, out: &mut F) {
        if !self.table.flows[i % MAX_FLOWS].held() {
            return;
        }
        self.table.held -= 1;
        let (f, slot) = self.table.parts(i);
        merge::finish(f, slot);
        let (len, segs, slow_segs, tag) = (f.len, f.segs, f.slow_segs, f.tag);
        let checksum = if f.verified { RxChecksum::Verified } else { RxChecksum::Unverified };
        let frame = RxFrame {
            mac: f.mac,
            data: slot.get(..len).unwrap_or_default(),
            checksum,
            segs,
            seg_size: if segs > 1 { f.seg_size } else { 0 },
        };
        f.len = 0;
        self.stats.count_flush(reason, segs);
        self.stats.count_fast(segs - slow_segs, slow_segs == 0);
        out(frame, tag);
    }
}
