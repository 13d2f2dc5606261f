//! The merge decision, one rule of the merged rule table (`docs/lro-rules.md` section 2) per
//! function. Frame rules say whether a segment may be merged at all; flow rules whether it may
//! join the aggregate its flow holds; closing rules whether the aggregate ends after it.

use super::parse::{Options, Seg, flags};
use super::stats::{FlushReason, PassReason};
use super::table::Flow;
use crate::frame::{RxChecksum, RxFrame};
use crate::headers::csum;
use crate::headers::ip::{PROTO_TCP, addr_range, v4, v6};

/// Most segments in one aggregate (the MediaTek hardware's and Linux's cap).
pub const MAX_SEGS: u16 = 64;
/// Largest IPv4 total length (and IPv6 payload length) of an aggregate: what the 16-bit field
/// holds, as Linux GRO builds (no margin is kept for headers added if it is sent on).
pub const MAX_IP_LEN: usize = 65535;

/// Frame rules, in order; `Ok` when the segment may be merged with something.
#[inline]
pub(crate) fn frame_mergeable(frame: &RxFrame<'_>, seg: &Seg) -> Result<(), PassReason> {
    single_segment(frame)?;
    flags_mergeable(seg)?;
    has_payload(seg)?;
    options_supported(seg)
}

/// A frame that is already an aggregate (hardware LRO output) is never merged again.
pub(crate) fn single_segment(frame: &RxFrame<'_>) -> Result<(), PassReason> {
    if frame.segs <= 1 { Ok(()) } else { Err(PassReason::Coalesced) }
}

/// ACK required; PSH allowed; SYN, FIN, RST, URG, ECE and CWR never merge.
pub(crate) fn flags_mergeable(seg: &Seg) -> Result<(), PassReason> {
    let never = flags::SYN | flags::FIN | flags::RST | flags::URG | flags::ECE | flags::CWR;
    if seg.flags & flags::ACK != 0 && seg.flags & never == 0 { Ok(()) } else { Err(PassReason::TcpFlags) }
}

/// Pure ACKs, duplicate ACKs and window updates are never merged (no ACK compression).
pub(crate) fn has_payload(seg: &Seg) -> Result<(), PassReason> {
    if seg.payload_len() > 0 { Ok(()) } else { Err(PassReason::NoPayload) }
}

/// Options: none, or exactly the RFC 7323 appendix-A timestamp layout.
pub(crate) fn options_supported(seg: &Seg) -> Result<(), PassReason> {
    if seg.options == Options::Other { Err(PassReason::TcpOptions) } else { Ok(()) }
}

/// Checksums: a `Verified` segment is trusted and the ones'-complement sum of its payload is
/// derived from its TCP checksum field without reading the payload; an `Unverified` one is
/// verified in software (IPv4 header and TCP), the one place that reads every payload byte.
/// Returns the payload's sum as if it started at an even offset.
#[inline]
pub(crate) fn checksum_good(frame: &RxFrame<'_>, seg: &Seg) -> Result<u16, PassReason> {
    let d = frame.data;
    let bad = PassReason::BadChecksum;
    let tcp_len = seg.end - seg.tcp_off;
    let pseudo = csum::pseudo(d.get(addr_range(seg.l2_len, seg.v6)).ok_or(bad)?, PROTO_TCP, tcp_len);
    let header = csum::sum(d.get(seg.tcp_off..seg.payload_off()).ok_or(bad)?);
    match frame.checksum {
        RxChecksum::Verified => Ok(csum::finish(pseudo + header)),
        RxChecksum::Unverified => {
            if !seg.v6 && !csum::verifies(csum::sum(d.get(seg.l2_len..seg.l2_len + v4::HLEN).ok_or(bad)?)) {
                return Err(bad);
            }
            let payload = csum::fold(csum::sum(d.get(seg.payload_off()..seg.end).ok_or(bad)?));
            if csum::verifies(pseudo + header + u64::from(payload)) { Ok(payload) } else { Err(bad) }
        }
    }
}

/// Flow rules, in order; `Ok` when `seg` may join the aggregate `f` of its flow (slots of
/// `slot_size` bytes), else why the aggregate has to be closed first.
#[inline]
pub(crate) fn joins(f: &Flow, seg: &Seg, slot_size: usize) -> Result<(), FlushReason> {
    sequence_contiguous(f, seg)?;
    ack_not_backwards(f, seg)?;
    same_tcp_header_len(f, seg)?;
    timestamps_not_older(f, seg)?;
    not_larger_than_head(f, seg)?;
    same_ttl(f, seg)?;
    same_tos(f, seg)?;
    same_df(f, seg)?;
    ip_id_next(f, seg)?;
    same_flow_label(f, seg)?;
    same_ip_header_len(f, seg)?;
    below_segment_cap(f)?;
    fits(f, seg, slot_size)
}

/// SEG.SEQ must equal the aggregate's next sequence number (modulo 2^32).
pub(crate) fn sequence_contiguous(f: &Flow, seg: &Seg) -> Result<(), FlushReason> {
    if seg.seq == f.next_seq { Ok(()) } else { Err(FlushReason::SeqGap) }
}

/// SEG.ACK must not be behind the aggregate's (modulo 2^32); the tail's is taken.
pub(crate) fn ack_not_backwards(f: &Flow, seg: &Seg) -> Result<(), FlushReason> {
    if seg.ack.wrapping_sub(f.ack) as i32 >= 0 { Ok(()) } else { Err(FlushReason::AckBackwards) }
}

/// Same TCP header length (with the frame rule on options: the same options layout).
pub(crate) fn same_tcp_header_len(f: &Flow, seg: &Seg) -> Result<(), FlushReason> {
    if seg.tcp_hlen == f.tcp_hlen { Ok(()) } else { Err(FlushReason::TcpHeaderLen) }
}

/// TSval and TSecr must not go backwards (modulo 2^32); the last pair is taken (not B1).
pub(crate) fn timestamps_not_older(f: &Flow, seg: &Seg) -> Result<(), FlushReason> {
    let newer = |new: u32, old: u32| new.wrapping_sub(old) as i32 >= 0;
    if f.options != Options::Timestamp || (newer(seg.tsval, f.tsval) && newer(seg.tsecr, f.tsecr)) {
        Ok(())
    } else {
        Err(FlushReason::TimestampOlder)
    }
}

/// No segment larger than the head's (the stack's MSS estimate is the head's size).
pub(crate) fn not_larger_than_head(f: &Flow, seg: &Seg) -> Result<(), FlushReason> {
    if seg.payload_len() <= usize::from(f.seg_size) { Ok(()) } else { Err(FlushReason::LargerSegment) }
}

/// Equal IPv4 TTL / IPv6 hop limit.
pub(crate) fn same_ttl(f: &Flow, seg: &Seg) -> Result<(), FlushReason> {
    if seg.ttl == f.ttl { Ok(()) } else { Err(FlushReason::TtlChange) }
}

/// Equal TOS byte / traffic class, ECN included: CE never merges with non-CE (not B2).
pub(crate) fn same_tos(f: &Flow, seg: &Seg) -> Result<(), FlushReason> {
    if seg.tos == f.tos { Ok(()) } else { Err(FlushReason::TosChange) }
}

/// Equal DF bit.
pub(crate) fn same_df(f: &Flow, seg: &Seg) -> Result<(), FlushReason> {
    if seg.df == f.df { Ok(()) } else { Err(FlushReason::DfChange) }
}

/// Without DF (IPv4), the IP ID must be the head's plus the segments held (RFC 6864).
pub(crate) fn ip_id_next(f: &Flow, seg: &Seg) -> Result<(), FlushReason> {
    if f.v6 || f.df || seg.ip_id == f.next_id { Ok(()) } else { Err(FlushReason::IpIdGap) }
}

/// Equal IPv6 flow label.
pub(crate) fn same_flow_label(f: &Flow, seg: &Seg) -> Result<(), FlushReason> {
    if seg.flow_label == f.flow_label { Ok(()) } else { Err(FlushReason::FlowLabelChange) }
}

/// The same IP header length, so IPv6 extension headers of the same length (their bytes are
/// compared by [`same_extension_headers`]).
pub(crate) fn same_ip_header_len(f: &Flow, seg: &Seg) -> Result<(), FlushReason> {
    if seg.tcp_off == f.tcp_off { Ok(()) } else { Err(FlushReason::ExtHeaderChange) }
}

/// IPv6 extension headers (bytes `ext` of the held head `head` and of the segment's frame
/// `frame`) must be equal byte for byte, as Linux GRO requires.
pub(crate) fn same_extension_headers(
    head: &[u8],
    frame: &[u8],
    ext: core::ops::Range<usize>,
) -> Result<(), FlushReason> {
    if head.get(ext.clone()) == frame.get(ext) { Ok(()) } else { Err(FlushReason::ExtHeaderChange) }
}

/// At most [`MAX_SEGS`] segments.
pub(crate) fn below_segment_cap(f: &Flow) -> Result<(), FlushReason> {
    if f.segs < MAX_SEGS { Ok(()) } else { Err(FlushReason::SegmentLimit) }
}

/// The grown IP length stays within [`MAX_IP_LEN`] and the grown frame within the slot.
#[inline]
pub(crate) fn fits(f: &Flow, seg: &Seg, slot_size: usize) -> Result<(), FlushReason> {
    if grown_fits(f, seg.payload_len(), slot_size) { Ok(()) } else { Err(FlushReason::SizeLimit) }
}

fn grown_fits(f: &Flow, more: usize, slot_size: usize) -> bool {
    ip_len(f) + more <= MAX_IP_LEN && f.len + more <= slot_size
}

/// The aggregate's IP length as its length field counts it: IPv4 total length, IPv6 payload
/// length (extension headers included).
fn ip_len(f: &Flow) -> usize {
    let fixed = if f.v6 { v6::HLEN } else { 0 };
    (f.tcp_off - f.l2_len - fixed) + f.tcp_hlen + f.payload_len()
}

/// How many more segments of the head's size `f` can take: the segment cap, the IP length
/// limit and the slot of `slot_size` bytes each bound it ([`closes`] ends the aggregate at 0).
pub(crate) fn room(f: &Flow, slot_size: usize) -> u16 {
    let size = usize::from(f.seg_size);
    if size == 0 {
        return 0;
    }
    let by_ip = MAX_IP_LEN.saturating_sub(ip_len(f)) / size;
    let by_slot = slot_size.saturating_sub(f.len) / size;
    let by_segs = usize::from(MAX_SEGS.saturating_sub(f.segs));
    by_ip.min(by_slot).min(by_segs) as u16
}

/// Why an aggregate with no [`room`] left closes.
pub(crate) fn limit_reason(f: &Flow) -> FlushReason {
    if f.segs >= MAX_SEGS { FlushReason::SegmentLimit } else { FlushReason::SizeLimit }
}

/// Closing rules after a segment (`flags`, `plen` payload bytes) was merged into `f`: PSH, a
/// short segment, the segment cap, or no room for another segment of the head's size end the
/// aggregate.
#[inline(always)]
pub(crate) fn closes(f: &Flow, flags: u8, plen: usize) -> Option<FlushReason> {
    if flags & flags::PSH != 0 {
        Some(FlushReason::Push)
    } else if plen < usize::from(f.seg_size) {
        Some(FlushReason::ShortSegment)
    } else if f.room == 0 {
        Some(limit_reason(f))
    } else {
        None
    }
}
