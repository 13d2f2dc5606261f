//! SoftLRO counters: frames in and out, merged segments, why each aggregate was closed and why
//! frames passed unmerged, with stable snake_case names for `fe coalesce --stats` and
//! ethtool-style counters.

/// Declares a `Copy` enum with a stable name per variant and the list of all variants.
macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $s:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vm])* $v,)*
        }

        impl $name {
            /// Every variant, in counter order.
            pub const ALL: &'static [$name] = &[$($name::$v,)*];
            /// How many variants there are.
            pub const COUNT: usize = Self::ALL.len();

            /// The stable snake_case name (for `--stats` and ethtool-style counters).
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$v => $s,)*
                }
            }
        }
    };
}

named_enum! {
    /// Why a held aggregate was closed and delivered.
    FlushReason {
        /// A poll that drained the ring, or a caller that stopped polling (`flush`).
        PollEnd = "poll_end",
        /// The flow table was full and this was the least recently used aggregate.
        Evicted = "evicted",
        /// The last merged segment had PSH.
        Push = "push",
        /// The last merged segment was shorter than the head's (it closes the aggregate).
        ShortSegment = "short_segment",
        /// Another segment would not fit (IP length limit or slot size).
        SizeLimit = "size_limit",
        /// The segment cap was reached.
        SegmentLimit = "segment_limit",
        /// A segment of the flow did not continue the sequence.
        SeqGap = "seq_gap",
        /// A segment of the flow acknowledged less than the aggregate.
        AckBackwards = "ack_backwards",
        /// A segment of the flow had an older TSval or TSecr.
        TimestampOlder = "timestamp_older",
        /// A segment of the flow had a different TCP header length (options).
        TcpHeaderLen = "tcp_header_len",
        /// A segment of the flow was larger than the head's.
        LargerSegment = "larger_segment",
        /// A segment of the flow had a different IPv4 TTL or IPv6 hop limit.
        TtlChange = "ttl_change",
        /// A segment of the flow had a different TOS byte or traffic class (DSCP or ECN).
        TosChange = "tos_change",
        /// A segment of the flow had a different DF bit.
        DfChange = "df_change",
        /// A segment of the flow without DF had an IP ID that is not the next one.
        IpIdGap = "ip_id_gap",
        /// A segment of the flow had a different IPv6 flow label.
        FlowLabelChange = "flow_label_change",
        /// A frame of the flow that cannot be merged at all came (it follows the aggregate).
        Unmergeable = "unmergeable",
        /// Forwarding is on: a frame of the flow came while the aggregate was still held.
        Forwarding = "forwarding",
        /// Held for the flush timeout across polls that used their whole budget.
        Timeout = "timeout",
        /// A segment of the flow had IPv6 extension headers other than the head's.
        ExtHeaderChange = "ext_header_change",
    }
}

named_enum! {
    /// Why a frame was delivered as received, without being held.
    PassReason {
        /// Not IPv4/IPv6 TCP over Ethernet II with at most one 802.1Q tag.
        NotTcp = "not_tcp",
        /// IPv4 header with options.
        IpOptions = "ip_options",
        /// IPv4 fragment.
        Fragment = "fragment",
        /// IPv6 extension headers SoftLRO does not merge: a routing header, or a chain it does
        /// not follow to TCP.
        Ipv6ExtHeader = "ipv6_ext_header",
        /// IP length larger than the frame, or inconsistent lengths.
        Truncated = "truncated",
        /// Already a coalesced frame (`segs` > 1).
        Coalesced = "coalesced",
        /// SYN, FIN, RST, URG, ECE or CWR set, or ACK missing.
        TcpFlags = "tcp_flags",
        /// No payload (pure ACK, window update).
        NoPayload = "no_payload",
        /// TCP options other than none or the appendix-A timestamp.
        TcpOptions = "tcp_options",
        /// Bad IPv4 header or TCP checksum (found by software verification).
        BadChecksum = "bad_checksum",
        /// Forwarding is on.
        Forwarding = "forwarding",
        /// PSH on a segment that would have started an aggregate (it would close at once).
        PushAlone = "push_alone",
        /// The frame does not fit a flow slot (or there are no slots).
        NoRoom = "no_room",
    }
}

/// SoftLRO counters since creation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LroStats {
    /// Frames offered to `push` (those the fast path takes are counted when their aggregate
    /// is delivered, at the latest at the end of the poll).
    pub frames_in: u64,
    /// Frames delivered (aggregates, single held segments and frames passed through).
    pub frames_out: u64,
    /// Delivered frames made of two segments or more.
    pub aggregates_out: u64,
    /// Segments delivered inside aggregates of two segments or more.
    pub segments_merged: u64,
    /// Unverified segments whose checksums software verified as good.
    pub sw_verified: u64,
    /// Segments merged by the fast path (a header compare against the flow's prediction, the
    /// payload copied once).
    pub fast_merged: u64,
    /// Aggregates the fast path started: a flow's predicted next segment after its last
    /// aggregate closed (copied once, whole).
    pub fast_started: u64,
    flushes: [u64; FlushReason::COUNT],
    passed: [u64; PassReason::COUNT],
}

impl LroStats {
    /// Held aggregates (of any segment count) closed for `reason`.
    pub fn flushes(&self, reason: FlushReason) -> u64 {
        self.flushes[reason as usize]
    }

    /// Frames delivered as received for `reason`.
    pub fn passed(&self, reason: PassReason) -> u64 {
        self.passed[reason as usize]
    }

    /// Every frame delivered as received, whatever the reason.
    pub fn passed_total(&self) -> u64 {
        self.passed.iter().sum()
    }

    /// Every held aggregate closed, whatever the reason.
    pub fn flushes_total(&self) -> u64 {
        self.flushes.iter().sum()
    }

    pub(crate) fn count_flush(&mut self, reason: FlushReason, segs: u16) {
        self.flushes[reason as usize] += 1;
        self.frames_out += 1;
        if segs > 1 {
            self.aggregates_out += 1;
            self.segments_merged += u64::from(segs);
        }
    }

    /// Counts `segs` segments the fast path took into one delivered aggregate, its head among
    /// them when `head`.
    pub(crate) fn count_fast(&mut self, segs: u16, head: bool) {
        let segs = u64::from(segs);
        self.frames_in += segs;
        if head {
            self.fast_started += 1;
        }
        self.fast_merged += segs - u64::from(head && segs > 0);
    }

    pub(crate) fn count_pass(&mut self, reason: PassReason) {
        self.passed[reason as usize] += 1;
        self.frames_out += 1;
    }
}
