//! Frame builders and an independent checker (own parser and naive RFC 1071 checksum) for the
//! SoftLRO tests.

#![allow(dead_code)]

use fe_driver::softlro::SoftLro;
use fe_driver::{RxChecksum, RxFrame};

/// TCP flag bits (constants only: the checker below parses with its own code).
#[allow(unused_imports)] // each test binary uses some of them
pub use fe_driver::headers::l4::flags::{ACK, CWR, ECE, FIN, PSH, RST, SYN, URG};

/// One TCP flow's addressing.
#[derive(Clone, Debug)]
pub struct Flow {
    pub mac: u8,
    pub dst_mac: [u8; 6],
    pub src_mac: [u8; 6],
    /// 802.1Q TCI (PCP << 13 | VID).
    pub vlan: Option<u16>,
    pub v6: bool,
    pub src: [u8; 16],
    pub dst: [u8; 16],
    pub sport: u16,
    pub dport: u16,
}

impl Flow {
    /// IPv4 flow number `n`.
    pub fn v4(n: u8) -> Flow {
        let mut src = [0; 16];
        let mut dst = [0; 16];
        src[..4].copy_from_slice(&[10, 0, 0, n]);
        dst[..4].copy_from_slice(&[192, 168, 1, 1]);
        Flow {
            mac: 0,
            dst_mac: [0x02, 0, 0, 0, 0, 1],
            src_mac: [0x02, 0, 0, 0, 0, 0x10 + n],
            vlan: None,
            v6: false,
            src,
            dst,
            sport: 40000 + u16::from(n),
            dport: 5201,
        }
    }

    /// IPv6 flow number `n`.
    pub fn v6(n: u8) -> Flow {
        let mut f = Flow::v4(n);
        f.v6 = true;
        f.src = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, n];
        f.dst = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1];
        f
    }

    /// The same flow with an 802.1Q tag.
    pub fn tagged(mut self, pcp: u8, vid: u16) -> Flow {
        self.vlan = Some(u16::from(pcp) << 13 | vid);
        self
    }
}

/// One segment's header fields and payload.
#[derive(Clone, Debug)]
pub struct Seg {
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    pub ts: Option<(u32, u32)>,
    /// Raw TCP options instead of `ts` (padded to 4 bytes by the caller).
    pub options: Option<Vec<u8>>,
    pub payload: Vec<u8>,
    pub ttl: u8,
    pub tos: u8,
    pub df: bool,
    pub ip_id: u16,
    /// Raw IPv4 flags/fragment field bits other than DF (MF 0x2000, offset).
    pub frag: u16,
    /// Four bytes of IPv4 options (NOPs).
    pub ip_options: bool,
    /// An IPv6 extension header before TCP (of type `ext_type`, with `ext_data` in its
    /// option bytes).
    pub ext_header: bool,
    /// The extension header's type: hop-by-hop (0), routing (43), destination options (60).
    pub ext_type: u8,
    /// A byte of the extension header's option data.
    pub ext_data: u8,
    pub flow_label: u32,
    /// Bytes of Ethernet padding after the datagram.
    pub pad: usize,
    /// Break the TCP checksum.
    pub bad_tcp_csum: bool,
    /// Break the IPv4 header checksum.
    pub bad_ip_csum: bool,
    /// Claim more IP length than the frame has.
    pub ip_len_extra: u16,
}

/// Payload bytes for stream offset `seq`.
pub fn pattern(seq: u32, len: usize) -> Vec<u8> {
    (0..len as u32).map(|i| (seq.wrapping_add(i).wrapping_mul(2_654_435_761) >> 24) as u8).collect()
}

/// The head most tests start from: 1448 payload bytes at sequence 1000.
pub fn head() -> Seg {
    Seg::data(1000, 1448)
}

impl Seg {
    /// A data segment (ACK) at `seq` with `len` payload bytes, timestamps on.
    pub fn data(seq: u32, len: usize) -> Seg {
        Seg {
            seq,
            ack: 7000,
            flags: ACK,
            window: 500,
            ts: Some((100, 50)),
            options: None,
            payload: pattern(seq, len),
            ttl: 64,
            tos: 0,
            df: true,
            ip_id: 1,
            frag: 0,
            ip_options: false,
            ext_header: false,
            ext_type: 0,
            ext_data: 0,
            flow_label: 0x12345,
            pad: 0,
            bad_tcp_csum: false,
            bad_ip_csum: false,
            ip_len_extra: 0,
        }
    }

    /// The next data segment after this one (sequence, IP ID and TSval advanced).
    pub fn next(&self, len: usize) -> Seg {
        let seq = self.seq.wrapping_add(self.payload.len() as u32);
        let mut s = self.clone();
        s.seq = seq;
        s.payload = pattern(seq, len);
        s.ip_id = self.ip_id.wrapping_add(1);
        s.ts = self.ts.map(|(v, e)| (v + 1, e));
        s.flags = ACK;
        s
    }
}

/// Naive RFC 1071 sum of 16-bit words (independent of the driver's).
pub fn naive_sum(parts: &[&[u8]]) -> u16 {
    let mut bytes = Vec::new();
    for p in parts {
        bytes.extend_from_slice(p);
    }
    if bytes.len() % 2 == 1 {
        bytes.push(0);
    }
    let mut s: u32 = 0;
    for w in bytes.chunks(2) {
        s += u32::from(w[0]) << 8 | u32::from(w[1]);
        s = (s & 0xffff) + (s >> 16);
    }
    s as u16
}

/// The TCP checksum field value for this segment.
fn tcp_csum(v6: bool, src: &[u8], dst: &[u8], tcp: &[u8]) -> u16 {
    let len = tcp.len() as u32;
    let pseudo: Vec<u8> = if v6 {
        [src, dst, &len.to_be_bytes(), &[0, 0, 0, 6]].concat()
    } else {
        [src, dst, &[0, 6], &(len as u16).to_be_bytes()].concat()
    };
    !naive_sum(&[&pseudo, tcp])
}

/// Builds the Ethernet frame of `seg` in `flow`, with correct checksums unless told otherwise.
pub fn frame(flow: &Flow, seg: &Seg) -> Vec<u8> {
    let mut tcp = Vec::new();
    tcp.extend_from_slice(&flow.sport.to_be_bytes());
    tcp.extend_from_slice(&flow.dport.to_be_bytes());
    tcp.extend_from_slice(&seg.seq.to_be_bytes());
    tcp.extend_from_slice(&seg.ack.to_be_bytes());
    let opts = match (&seg.options, seg.ts) {
        (Some(o), _) => o.clone(),
        (None, Some((v, e))) => [&[1u8, 1, 8, 10][..], &v.to_be_bytes(), &e.to_be_bytes()].concat(),
        (None, None) => Vec::new(),
    };
    assert_eq!(opts.len() % 4, 0);
    tcp.push(((20 + opts.len()) / 4) as u8 * 16);
    tcp.push(seg.flags);
    tcp.extend_from_slice(&seg.window.to_be_bytes());
    tcp.extend_from_slice(&[0, 0, 0, 0]);
    tcp.extend_from_slice(&opts);
    tcp.extend_from_slice(&seg.payload);
    let (src, dst) = if flow.v6 { (&flow.src[..], &flow.dst[..]) } else { (&flow.src[..4], &flow.dst[..4]) };
    let mut c = tcp_csum(flow.v6, src, dst, &tcp);
    if seg.bad_tcp_csum {
        c ^= 0x0101;
    }
    tcp[16..18].copy_from_slice(&c.to_be_bytes());

    let mut f = Vec::new();
    f.extend_from_slice(&flow.dst_mac);
    f.extend_from_slice(&flow.src_mac);
    if let Some(tci) = flow.vlan {
        f.extend_from_slice(&[0x81, 0x00]);
        f.extend_from_slice(&tci.to_be_bytes());
    }
    if flow.v6 {
        f.extend_from_slice(&[0x86, 0xdd]);
        let word0 = 6u32 << 28 | u32::from(seg.tos) << 20 | seg.flow_label & 0xf_ffff;
        f.extend_from_slice(&word0.to_be_bytes());
        let ext = if seg.ext_header { 8 } else { 0 };
        f.extend_from_slice(&((tcp.len() + ext) as u16 + seg.ip_len_extra).to_be_bytes());
        f.push(if seg.ext_header { seg.ext_type } else { 6 });
        f.push(seg.ttl);
        f.extend_from_slice(src);
        f.extend_from_slice(dst);
        if seg.ext_header {
            f.extend_from_slice(&[6, 0, 1, 4, seg.ext_data, 0, 0, 0]);
        }
    } else {
        f.extend_from_slice(&[0x08, 0x00]);
        let ihl = if seg.ip_options { 24 } else { 20 };
        let mut ip = vec![0x40 | (ihl / 4) as u8, seg.tos];
        ip.extend_from_slice(&((ihl + tcp.len()) as u16 + seg.ip_len_extra).to_be_bytes());
        ip.extend_from_slice(&seg.ip_id.to_be_bytes());
        ip.extend_from_slice(&(if seg.df { 0x4000 } else { 0 } | seg.frag).to_be_bytes());
        ip.extend_from_slice(&[seg.ttl, 6, 0, 0]);
        ip.extend_from_slice(src);
        ip.extend_from_slice(dst);
        if seg.ip_options {
            ip.extend_from_slice(&[1, 1, 1, 0]);
        }
        let mut c = !naive_sum(&[&ip]);
        if seg.bad_ip_csum {
            c ^= 0x0101;
        }
        ip[10..12].copy_from_slice(&c.to_be_bytes());
        f.extend_from_slice(&ip);
    }
    f.extend_from_slice(&tcp);
    f.extend(std::iter::repeat_n(0u8, seg.pad));
    f
}

/// A frame as delivered by SoftLRO, owned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub mac: u8,
    pub data: Vec<u8>,
    pub checksum: RxChecksum,
    pub segs: u16,
    pub seg_size: u16,
}

impl Out {
    fn of(f: RxFrame<'_>) -> Out {
        Out { mac: f.mac, data: f.data.to_vec(), checksum: f.checksum, segs: f.segs, seg_size: f.seg_size }
    }
}

/// An RX frame as the driver hands it over.
pub fn rx(mac: u8, data: &[u8], checksum: RxChecksum) -> RxFrame<'_> {
    RxFrame::new(mac, data, checksum)
}

/// Pushes each frame (with its verdict) through `lro`, then flushes; returns what came out.
pub fn run(lro: &mut SoftLro<'_>, frames: &[(u8, Vec<u8>, RxChecksum)]) -> Vec<Out> {
    let mut out = Vec::new();
    for (mac, d, c) in frames {
        lro.push(rx(*mac, d, *c), &mut |f| out.push(Out::of(f)));
    }
    lro.flush(&mut |f| out.push(Out::of(f)));
    assert_eq!(lro.held(), 0, "nothing held after flush");
    out
}

/// Pushes then flushes frames of `flow`, all `Verified`, through a fresh 4-flow SoftLRO.
pub fn coalesce(flow: &Flow, segs: &[Seg]) -> Vec<Out> {
    coalesce_with(segs.iter().map(|s| (flow.mac, frame(flow, s), RxChecksum::Verified)).collect())
}

/// Pushes then flushes frames through a fresh 4-flow SoftLRO with 64 KiB slots.
pub fn coalesce_with(frames: Vec<(u8, Vec<u8>, RxChecksum)>) -> Vec<Out> {
    let mut storage = vec![0u8; 4 * 65536];
    let mut lro = SoftLro::new(&mut storage, 4);
    run(&mut lro, &frames)
}

/// What the independent checker read from a delivered frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checked {
    /// MAC, Ethernet header, addresses and ports.
    pub key: Vec<u8>,
    pub v6: bool,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    pub ts: Option<(u32, u32)>,
    pub payload: Vec<u8>,
    /// The whole IP datagram's length (header included).
    pub ip_len: usize,
    pub tcp_csum_ok: bool,
    pub ip_csum_ok: bool,
    pub tos: u8,
    pub ttl: u8,
}

/// Parses a TCP frame with its own code and checks its checksums and lengths; `None` when it
/// is not plain Ethernet (+ one tag) IPv4/IPv6 TCP.
pub fn check(mac: u8, d: &[u8]) -> Option<Checked> {
    let mut l2 = 14;
    let mut et = u16::from_be_bytes([*d.get(12)?, *d.get(13)?]);
    if et == 0x8100 {
        et = u16::from_be_bytes([*d.get(16)?, *d.get(17)?]);
        l2 = 18;
    }
    let (v6, tcp_off, end, src, dst, ip_csum_ok, tos, ttl) = match et {
        0x0800 => {
            let ip = d.get(l2..l2 + 20)?;
            if ip[0] != 0x45 || ip[9] != 6 {
                return None;
            }
            let total = usize::from(u16::from_be_bytes([ip[2], ip[3]]));
            (false, l2 + 20, l2 + total, &ip[12..16], &ip[16..20], naive_sum(&[ip]) == 0xffff, ip[1], ip[8])
        }
        0x86dd => {
            let ip = d.get(l2..l2 + 40)?;
            // Hop-by-hop, routing and destination-options headers before TCP.
            let (mut next, mut tcp_off) = (ip[6], l2 + 40);
            while matches!(next, 0 | 43 | 60) {
                next = *d.get(tcp_off)?;
                tcp_off += (usize::from(*d.get(tcp_off + 1)?) + 1) * 8;
            }
            if next != 6 {
                return None;
            }
            let plen = usize::from(u16::from_be_bytes([ip[4], ip[5]]));
            let tc = (u16::from_be_bytes([ip[0], ip[1]]) >> 4) as u8;
            (true, tcp_off, l2 + 40 + plen, &ip[8..24], &ip[24..40], true, tc, ip[7])
        }
        _ => return None,
    };
    let tcp = d.get(tcp_off..end)?;
    let hlen = usize::from(tcp.get(12)? >> 4) * 4;
    let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let pseudo: Vec<u8> = if v6 {
        [src, dst, &(tcp.len() as u32).to_be_bytes(), &[0, 0, 0, 6]].concat()
    } else {
        [src, dst, &[0, 6], &(tcp.len() as u16).to_be_bytes()].concat()
    };
    let tcp_csum_ok = naive_sum(&[&pseudo, tcp]) == 0xffff;
    let ts = (hlen == 32 && tcp[20..24] == [1, 1, 8, 10]).then(|| (be32(&tcp[24..]), be32(&tcp[28..])));
    let mut key = vec![mac];
    key.extend_from_slice(&d[..l2]);
    key.extend_from_slice(src);
    key.extend_from_slice(dst);
    key.extend_from_slice(&tcp[..4]);
    Some(Checked {
        key,
        v6,
        seq: be32(&tcp[4..]),
        ack: be32(&tcp[8..]),
        flags: tcp[13],
        window: u16::from_be_bytes([tcp[14], tcp[15]]),
        ts,
        payload: tcp.get(hlen..)?.to_vec(),
        ip_len: end - l2,
        tcp_csum_ok,
        ip_csum_ok,
        tos,
        ttl,
    })
}

/// Checks a delivered frame fully: valid checksums, lengths that match the frame, segment
/// metadata consistent with the payload. Returns what it read.
pub fn check_valid(o: &Out) -> Checked {
    let c = check(o.mac, &o.data).unwrap_or_else(|| panic!("not a TCP frame: {:02x?}", o.data));
    assert!(c.ip_csum_ok, "bad IPv4 header checksum");
    assert!(c.tcp_csum_ok, "bad TCP checksum (segs {})", o.segs);
    check_meta(o, &c);
    c
}

/// Segment metadata consistent with the payload.
pub fn check_meta(o: &Out, c: &Checked) {
    let l2 = if o.data.get(12..14) == Some(&[0x81, 0x00]) { 18 } else { 14 };
    assert!(l2 + c.ip_len <= o.data.len(), "IP length beyond the frame");
    if o.segs > 1 {
        assert_eq!(l2 + c.ip_len, o.data.len(), "aggregate length");
        let (n, size, len) = (usize::from(o.segs), usize::from(o.seg_size), c.payload.len());
        assert!(size > 0 && len > (n - 1) * size && len <= n * size, "segs {n} × {size} vs payload {len}");
        assert!(c.ip_len - if c.v6 { 40 } else { 0 } <= 65535);
    } else {
        assert_eq!((o.segs, o.seg_size), (1, 0), "a single segment has segs 1, seg_size 0");
    }
}

/// Every delivered frame's payload, concatenated per flow key, in delivery order.
pub fn streams(out: &[Out]) -> std::collections::BTreeMap<Vec<u8>, Vec<u8>> {
    let mut m = std::collections::BTreeMap::<Vec<u8>, Vec<u8>>::new();
    for o in out {
        if let Some(c) = check(o.mac, &o.data) {
            m.entry(c.key).or_default().extend_from_slice(&c.payload);
        }
    }
    m
}
