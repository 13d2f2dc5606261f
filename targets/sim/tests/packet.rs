//! Tests of the simulator's wire-format module: checksums, parsing, builders, FCS, TX offloads, sizes.

use fe_sim::packet::*;
use proptest::prelude::*;

/// The classic IPv4 header example (UDP, 192.168.0.1 -> 192.168.0.199), checksum 0xb861 in place.
const CLASSIC_IPV4: [u8; 20] = [
    0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00,
    0xc7,
];

/// Reference one's-complement sum: 16-bit words, fold at the end.
fn naive_sum(data: &[u8]) -> u16 {
    let mut s: u64 = 0;
    for (i, b) in data.iter().enumerate() {
        s += if i % 2 == 0 { u64::from(*b) << 8 } else { u64::from(*b) };
    }
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    s as u16
}

/// Reference bitwise CRC-32.
fn naive_crc(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xedb8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// Reference TCP/UDP checksum verification built from explicit pseudo-header bytes.
fn naive_l4_ok(p: &Parsed, frame: &[u8]) -> bool {
    let ip = p.ip.unwrap();
    let (proto, len) = if p.tcp.is_some() { (6u8, ip.l4_len) } else { (17u8, usize::from(p.udp.unwrap().length)) };
    let mut bytes = Vec::new();
    if ip.version == 4 {
        bytes.extend_from_slice(&ip.src[..4]);
        bytes.extend_from_slice(&ip.dst[..4]);
        bytes.extend_from_slice(&[0, proto]);
        bytes.extend_from_slice(&(len as u16).to_be_bytes());
    } else {
        bytes.extend_from_slice(&ip.src);
        bytes.extend_from_slice(&ip.dst);
        bytes.extend_from_slice(&(len as u32).to_be_bytes());
        bytes.extend_from_slice(&[0, 0, 0, proto]);
    }
    bytes.extend_from_slice(&frame[ip.l4_offset..ip.l4_offset + len]);
    naive_sum(&bytes) == 0xffff
}

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) as u32
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { self.next() as usize % n }
    }
}

fn v6(last: u8) -> [u8; 16] {
    let mut a = [0u8; 16];
    a[0] = 0x20;
    a[1] = 0x01;
    a[2] = 0x0d;
    a[3] = 0xb8;
    a[15] = last;
    a
}

fn tcp_spec(ipv6: bool, vlan: Option<u16>, ts: bool, payload_len: usize) -> TcpSpec {
    TcpSpec {
        vlan,
        ipv6,
        src_ip: if ipv6 { v6(1) } else { ip4([192, 168, 1, 10]) },
        dst_ip: if ipv6 { v6(2) } else { ip4([192, 168, 1, 20]) },
        src_port: 43210,
        dst_port: 80,
        seq: 0xffff_f000,
        ack: 0x1234_5678,
        flags: TCP_ACK | TCP_PSH,
        window: 501,
        timestamp: ts.then_some((0xdead_beef, 0x0102_0304)),
        ttl_or_hop: 63,
        tos_or_tclass: 0xb8,
        ip_id: 0xfffe,
        dont_fragment: true,
        payload_len,
        payload_seed: 77,
        ..TcpSpec::default()
    }
}

fn udp_spec(ipv6: bool, payload_len: usize) -> UdpSpec {
    UdpSpec {
        src_mac: [2, 0, 0, 0, 0, 3],
        dst_mac: [2, 0, 0, 0, 0, 4],
        ipv6,
        src_ip: if ipv6 { v6(3) } else { ip4([10, 1, 0, 1]) },
        dst_ip: if ipv6 { v6(4) } else { ip4([10, 1, 0, 2]) },
        src_port: 5353,
        dst_port: 53,
        ttl_or_hop: 17,
        payload_len,
        payload_seed: 9,
        ..UdpSpec::default()
    }
}

/// Inserts `bytes` at `at` and fixes the IP lengths/IHL or IPv6 next-header chain by hand.
fn splice(frame: &[u8], at: usize, bytes: &[u8]) -> Vec<u8> {
    let mut f = frame[..at].to_vec();
    f.extend_from_slice(bytes);
    f.extend_from_slice(&frame[at..]);
    f
}

// ---------------------------------------------------------------------------------------------
// Checksums.

#[test]
fn classic_ipv4_header_checksum() {
    assert_eq!(ipv4_header_checksum(&CLASSIC_IPV4), 0xb861);
    let mut zeroed = CLASSIC_IPV4;
    zeroed[10] = 0;
    zeroed[11] = 0;
    assert_eq!(ipv4_header_checksum(&zeroed), 0xb861);
    assert_eq!(!fold(ones_complement_sum(&zeroed, 0)), 0xb861);
    assert_eq!(fold(ones_complement_sum(&CLASSIC_IPV4, 0)), 0xffff);
}

#[test]
fn rfc1071_sum_example() {
    // RFC 1071 section 3: 0001 f203 f4f5 f6f7 sums to 0x2ddf0, folded 0xddf2.
    let data = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
    assert_eq!(fold(ones_complement_sum(&data, 0)), 0xddf2);
    assert_eq!(fold(0x2ddf0), 0xddf2);
    assert_eq!(fold(ones_complement_sum(&[0xab], 0)), 0xab00);
    assert_eq!(fold(ones_complement_sum(&[0x12, 0x34, 0x56], 0)), 0x6834);
    assert_eq!(fold(0xffff_ffff), 0xffff);
    assert_eq!(ones_complement_sum(&[], 7), 7);
}

#[test]
fn sum_carries_wrap_around_at_every_length() {
    // All-ones and near-all-ones words carry out of every 64-bit addition: each carry is worth 1.
    for fill in [0xffu8, 0xfe, 0x80] {
        let data = vec![fill; 700];
        for len in 0..data.len() {
            for start in 0..8.min(data.len() - len) {
                let d = &data[start..start + len];
                assert_eq!(fold(ones_complement_sum(d, 0)), naive_sum(d), "fill {fill:#x} len {len} at {start}");
            }
        }
    }
}

#[test]
fn pseudo_headers_match_explicit_bytes() {
    let (s, d) = ([10, 0, 0, 1], [10, 0, 0, 2]);
    let explicit = [10, 0, 0, 1, 10, 0, 0, 2, 0, 6, 0x05, 0xdc];
    assert_eq!(fold(pseudo_header_sum_v4(s, d, 6, 1500)), naive_sum(&explicit));
    let (s6, d6) = (v6(1), v6(2));
    let mut e6 = Vec::from(s6);
    e6.extend_from_slice(&d6);
    e6.extend_from_slice(&[0, 1, 0, 4, 0, 0, 0, 17]);
    assert_eq!(fold(pseudo_header_sum_v6(&s6, &d6, 17, 0x1_0004)), naive_sum(&e6));
}

#[test]
fn tcp_and_udp_checksums_agree_with_reference() {
    for ipv6 in [false, true] {
        for len in [0, 1, 2, 3, 7, 100, 1448] {
            let f = build_tcp(&tcp_spec(ipv6, None, len % 2 == 0, len));
            let p = parse(&f).unwrap();
            assert!(naive_l4_ok(&p, &f), "tcp ipv6={ipv6} len={len}");
            assert_eq!(p.l4_checksum_ok(&f), Some(true));
            let ip = p.ip.unwrap();
            let seg = &f[ip.l4_offset..ip.l4_offset + ip.l4_len];
            assert_eq!(tcp_checksum(ip.pseudo_header_sum(6, ip.l4_len), seg), p.tcp.unwrap().checksum);
            let u = build_udp(&udp_spec(ipv6, len));
            let pu = parse(&u).unwrap();
            assert!(naive_l4_ok(&pu, &u), "udp ipv6={ipv6} len={len}");
            assert_eq!(l4_checksum_ok(&u), Some(true));
            assert_ne!(pu.udp.unwrap().checksum, 0);
        }
    }
}

#[test]
fn bad_checksums_are_detected() {
    for ipv6 in [false, true] {
        let mut f = build_tcp(&tcp_spec(ipv6, Some(5), true, 300));
        assert_eq!(l4_checksum_ok(&f), Some(true));
        assert!(set_bad_l4_checksum(&mut f));
        assert_eq!(l4_checksum_ok(&f), Some(false));
        assert_eq!(set_bad_ipv4_checksum(&mut f), !ipv6);
        assert_eq!(ipv4_checksum_ok(&f), if ipv6 { None } else { Some(false) });
        assert!(insert_checksums(&mut f));
        assert_eq!(l4_checksum_ok(&f), Some(true));
        assert_eq!(ipv4_checksum_ok(&f), (!ipv6).then_some(true));
    }
    // A field holding 0xffff or 0x0000 must still end up invalid after corruption.
    let mut f = build_tcp(&tcp_spec(false, None, false, 10));
    let off = parse(&f).unwrap().ip.unwrap().l4_offset + 16;
    for v in [0x0000u16, 0xffff] {
        f[off..off + 2].copy_from_slice(&v.to_be_bytes());
        assert!(set_bad_l4_checksum(&mut f));
        assert_eq!(l4_checksum_ok(&f), Some(false), "from {v:#x}");
    }
}

#[test]
fn udp_zero_checksum() {
    let mut s = udp_spec(false, 33);
    s.no_checksum = true;
    let mut f = build_udp(&s);
    let p = parse(&f).unwrap();
    assert_eq!(p.udp.unwrap().checksum, 0);
    assert_eq!(p.l4_checksum_ok(&f), Some(true), "IPv4 UDP checksum 0 means not present");
    assert!(set_bad_l4_checksum(&mut f));
    assert_eq!(l4_checksum_ok(&f), Some(false));

    let mut f6 = build_udp(&udp_spec(true, 33));
    let off = parse(&f6).unwrap().ip.unwrap().l4_offset + 6;
    f6[off..off + 2].copy_from_slice(&[0, 0]);
    assert_eq!(l4_checksum_ok(&f6), Some(false), "IPv6 UDP requires a checksum");
}

// ---------------------------------------------------------------------------------------------
// Build -> parse.

#[test]
fn round_trip_tcp() {
    for ipv6 in [false, true] {
        for vlan in [None, Some(0x6123)] {
            for ts in [false, true] {
                let spec = tcp_spec(ipv6, vlan, ts, 1000);
                let f = build_tcp(&spec);
                let p = parse(&f).unwrap();
                let l3 = 14 + if vlan.is_some() { 4 } else { 0 };
                let ip_len = if ipv6 { 40 } else { 20 };
                let tcp_len = if ts { 32 } else { 20 };
                assert_eq!(f.len(), l3 + ip_len + tcp_len + 1000);
                assert_eq!((p.dst_mac, p.src_mac), (spec.dst_mac, spec.src_mac));
                assert_eq!(p.vlan.map(|v| (v.tpid, v.vid(), v.pcp())), vlan.map(|_| (0x8100, 0x123, 3)));
                assert_eq!(p.inner_vlan, None);
                assert_eq!(p.ethertype, if ipv6 { ETHERTYPE_IPV6 } else { ETHERTYPE_IPV4 });
                assert_eq!(p.l3_offset, l3);
                let ip = p.ip.unwrap();
                assert_eq!(ip.version, if ipv6 { 6 } else { 4 });
                assert_eq!((ip.header_len, ip.total_len), (ip_len, ip_len + tcp_len + 1000));
                assert!(!ip.has_options && !ip.has_ext_headers && !ip.fragment);
                assert_eq!((ip.protocol, ip.ttl, ip.tos), (IPPROTO_TCP, 63, 0xb8));
                assert_eq!((ip.src, ip.dst), (spec.src_ip, spec.dst_ip));
                assert_eq!(ip.id, if ipv6 { 0 } else { 0xfffe });
                assert_eq!(ip.dont_fragment, !ipv6);
                assert_eq!((ip.l4_offset, ip.l4_len), (l3 + ip_len, tcp_len + 1000));
                let t = p.tcp.unwrap();
                assert_eq!((t.src_port, t.dst_port, t.seq, t.ack), (43210, 80, 0xffff_f000, 0x1234_5678));
                assert_eq!((t.header_len, t.flags, t.window, t.urgent), (tcp_len, TCP_ACK | TCP_PSH, 501, 0));
                assert_eq!(t.options.timestamp, ts.then_some((0xdead_beef, 0x0102_0304)));
                assert_eq!(p.udp, None);
                assert_eq!((p.is_ipv4(), p.is_ipv6(), p.l4_protocol()), (!ipv6, ipv6, Some(IPPROTO_TCP)));
                assert_eq!(p.tcp_checksum_field(), Some(t.checksum));
                assert_eq!(p.payload(), l3 + ip_len + tcp_len..f.len());
                // Payload bytes are a function of the sequence number (wrapping past 2^32 here).
                assert!(payload_matches(&f[p.payload()], 77, spec.seq));
                assert!(!payload_matches(&f[p.payload()], 78, spec.seq));
                assert_eq!(p.ipv4_checksum_ok(&f), (!ipv6).then_some(true));
                assert_eq!(p.l4_checksum_ok(&f), Some(true));
                assert!(!is_oversize(&f) && !is_runt(f.len()));
            }
        }
    }
}

#[test]
fn round_trip_udp_and_padding() {
    for ipv6 in [false, true] {
        let f = build_udp(&udp_spec(ipv6, 2));
        assert_eq!(f.len(), if ipv6 { 64 } else { MIN_FRAME }, "short frames are padded");
        let p = parse(&f).unwrap();
        let u = p.udp.unwrap();
        assert_eq!((u.src_port, u.dst_port, u.length), (5353, 53, 10));
        assert_eq!(p.payload_len, 2);
        assert!(payload_matches(&f[p.payload()], 9, 0));
        assert_eq!(p.ip.unwrap().total_len, if ipv6 { 50 } else { 30 });
        assert_eq!(p.l4_checksum_ok(&f), Some(true));
    }
    let ack = build_tcp(&TcpSpec::default());
    assert_eq!(ack.len(), MIN_FRAME);
    let p = parse(&ack).unwrap();
    assert_eq!((p.payload_len, p.ip.unwrap().total_len), (0, 40));
    assert_eq!(p.l4_checksum_ok(&ack), Some(true));
}

#[test]
fn qinq_and_non_ip() {
    let inner = build_tcp(&tcp_spec(false, Some(100), false, 10));
    // Put an 802.1ad service tag in front of the 802.1Q tag.
    let f = splice(&inner, 12, &[0x88, 0xa8, 0x00, 0x07]);
    let p = parse(&f).unwrap();
    assert_eq!(p.vlan, Some(VlanTag { tpid: ETHERTYPE_QINQ, tci: 7 }));
    assert_eq!(p.inner_vlan.map(|v| v.vid()), Some(100));
    assert_eq!(p.l3_offset, 22);
    assert_eq!(p.l4_checksum_ok(&f), Some(true));

    let arp = build_raw([0xff; 6], [2, 0, 0, 0, 0, 1], None, 0x0806, 60, 1);
    let p = parse(&arp).unwrap();
    assert_eq!((p.ethertype, p.ip, p.tcp, p.udp), (0x0806, None, None, None));
    assert_eq!(p.payload(), 14..60);
    assert_eq!(l4_checksum_ok(&arp), None);
    assert_eq!(ipv4_checksum_ok(&arp), None);
    assert!(parse(&arp[..13]).is_none());
    assert!(parse(&[]).is_none());
    assert!(parse(&inner[..17]).is_none(), "truncated VLAN tag");
    let mut copy = arp.clone();
    assert!(!insert_checksums(&mut copy));
    assert_eq!(copy, arp);
}

#[test]
fn ipv4_options_and_fragments() {
    let f = build_tcp(&tcp_spec(false, None, false, 200));
    let mut g = splice(&f, 34, &[1, 1, 1, 0]); // NOP NOP NOP EOL
    g[14] = 0x46;
    g[16..18].copy_from_slice(&(244u16).to_be_bytes());
    assert_eq!(ipv4_checksum_ok(&g), Some(false));
    assert!(insert_checksums(&mut g));
    let p = parse(&g).unwrap();
    let ip = p.ip.unwrap();
    assert!(ip.has_options);
    assert_eq!((ip.header_len, ip.l4_offset, p.tcp.unwrap().seq), (24, 38, 0xffff_f000));
    assert_eq!((p.ipv4_checksum_ok(&g), p.l4_checksum_ok(&g)), (Some(true), Some(true)));

    for frag in [0x2000u16, 0x0001, 0x4000 | 0x00b9] {
        let mut h = f.clone();
        h[20..22].copy_from_slice(&frag.to_be_bytes());
        insert_checksums(&mut h);
        let p = parse(&h).unwrap();
        let ip = p.ip.unwrap();
        assert!(ip.fragment, "{frag:#x}");
        assert_eq!(ip.fragment_offset, frag & 0x1fff);
        assert_eq!((p.tcp, p.l4_checksum_ok(&h), p.ipv4_checksum_ok(&h)), (None, None, Some(true)));
        assert_eq!(tso_segment(&h, 100), None);
    }
    // Malformed IPv4 headers are not IP.
    for (at, v) in [(14, 0x44u8), (14, 0x55), (16, 0xff), (17, 0x10)] {
        let mut h = f.clone();
        h[at] = v;
        assert_eq!(parse(&h).unwrap().ip, None, "byte {at} = {v:#x}");
    }
}

#[test]
fn ipv6_extension_headers() {
    let f = build_tcp(&tcp_spec(true, None, true, 500));
    let l4 = 54;
    // hop-by-hop (PadN) -> routing (type 0, segleft 0) -> destination options (PadN) -> TCP.
    let ext = [
        43, 0, 1, 4, 0, 0, 0, 0, // hop-by-hop, 8 bytes
        60, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // routing, 16 bytes
        6, 0, 1, 4, 0, 0, 0, 0, // destination options, 8 bytes
    ];
    let mut g = splice(&f, l4, &ext);
    g[20] = 0; // next header: hop-by-hop
    let plen = u16::from_be_bytes([g[18], g[19]]) + ext.len() as u16;
    g[18..20].copy_from_slice(&plen.to_be_bytes());
    let p = parse(&g).unwrap();
    let ip = p.ip.unwrap();
    assert!(ip.has_ext_headers);
    assert_eq!((ip.header_len, ip.protocol, ip.l4_offset), (72, IPPROTO_TCP, l4 + 32));
    assert_eq!(p.tcp.unwrap().options.timestamp, Some((0xdead_beef, 0x0102_0304)));
    assert_eq!(p.l4_checksum_ok(&g), Some(true), "pseudo-header uses the upper-layer length");
    let segs = tso_segment(&g, 200).unwrap();
    assert_eq!(segs.len(), 3);
    assert!(segs.iter().all(|s| l4_checksum_ok(s) == Some(true)));

    // Fragment header: offset 0 without M is an atomic fragment (not a fragment); M or offset != 0 is.
    for (fo, is_frag) in [(0u16, false), (1, true), (0x0100, true)] {
        let mut h = splice(&f, l4, &[6, 0, (fo >> 8) as u8, fo as u8, 0, 0, 0, 42]);
        h[20] = 44;
        h[18..20].copy_from_slice(&(u16::from_be_bytes([f[18], f[19]]) + 8).to_be_bytes());
        let p = parse(&h).unwrap();
        let ip = p.ip.unwrap();
        assert!(ip.has_ext_headers);
        assert_eq!(ip.fragment, is_frag, "{fo:#x}");
        assert_eq!(p.l4_checksum_ok(&h).is_some(), !is_frag);
    }
    // An extension header running past the packet makes it malformed.
    let mut bad = g.clone();
    bad[l4 + 1] = 200;
    assert_eq!(parse(&bad).unwrap().ip, None);
}

#[test]
fn tcp_options() {
    let mut f = build_tcp(&TcpSpec { flags: TCP_SYN, timestamp: Some((0, 0)), ..TcpSpec::default() });
    f[54..66].copy_from_slice(&[2, 4, 0x05, 0xb4, 3, 3, 7, 4, 2, 1, 1, 0]);
    assert!(insert_checksums(&mut f));
    let o = parse(&f).unwrap().tcp.unwrap().options;
    assert_eq!(o, TcpOptions { mss: Some(1460), window_scale: Some(7), sack_permitted: true, ..TcpOptions::default() });
    f[54..66].copy_from_slice(&[1, 1, 5, 10, 0, 0, 0, 1, 0, 0, 0, 2]);
    assert_eq!(parse(&f).unwrap().tcp.unwrap().options.sack_blocks, 1);
    f[54..66].copy_from_slice(&[8, 0, 8, 10, 0, 0, 0, 1, 0, 0, 0, 2]); // length 0: stop, no panic
    assert_eq!(parse(&f).unwrap().tcp.unwrap().options, TcpOptions::default());
    f[46] = 0x40; // data offset 4 < 5: not TCP
    assert_eq!(parse(&f).unwrap().tcp, None);
}

// ---------------------------------------------------------------------------------------------
// TX offloads.

#[test]
fn insert_checksums_restores_built_frame() {
    for ipv6 in [false, true] {
        let f = build_tcp(&tcp_spec(ipv6, Some(9), true, 777));
        let p = parse(&f).unwrap();
        let mut g = f.clone();
        let l4 = p.ip.unwrap().l4_offset;
        g[l4 + 16..l4 + 18].fill(0);
        if !ipv6 {
            g[p.l3_offset + 10..p.l3_offset + 12].fill(0);
        }
        assert!(insert_checksums(&mut g));
        assert_eq!(g, f);
        let u = build_udp(&udp_spec(ipv6, 99));
        let mut v = u.clone();
        let l4 = parse(&u).unwrap().ip.unwrap().l4_offset;
        v[l4 + 6..l4 + 8].fill(0);
        assert!(insert_checksums(&mut v));
        assert_eq!(v, u);
    }
}

#[test]
fn tso_segmentation() {
    for ipv6 in [false, true] {
        for vlan in [None, Some(42)] {
            let mut spec = tcp_spec(ipv6, vlan, true, 10_000);
            spec.flags = TCP_ACK | TCP_PSH | TCP_FIN | TCP_CWR;
            let big = build_tcp(&spec);
            let pb = parse(&big).unwrap();
            let segs = tso_segment(&big, 1448).unwrap();
            assert_eq!(segs.len(), 7);
            let hdr = pb.payload_offset;
            let mut joined = Vec::new();
            for (i, s) in segs.iter().enumerate() {
                let p = parse(s).unwrap();
                let (ip, t) = (p.ip.unwrap(), p.tcp.unwrap());
                let len = if i < 6 { 1448 } else { 10_000 - 6 * 1448 };
                assert_eq!(s.len(), hdr + len);
                assert_eq!(p.payload_len, len);
                assert_eq!(ip.total_len, ip.header_len + 32 + len);
                assert_eq!(t.seq, spec.seq.wrapping_add((i * 1448) as u32));
                assert_eq!(ip.id, if ipv6 { 0 } else { spec.ip_id.wrapping_add(i as u16) });
                let last = i == 6;
                assert_eq!(t.flags & (TCP_FIN | TCP_PSH) != 0, last);
                assert_eq!(t.flags & TCP_CWR != 0, i == 0);
                assert_ne!(t.flags & TCP_ACK, 0);
                assert_eq!(t.options.timestamp, pb.tcp.unwrap().options.timestamp);
                assert_eq!(p.vlan, pb.vlan);
                assert_eq!(p.l4_checksum_ok(s), Some(true));
                assert_eq!(p.ipv4_checksum_ok(s), (!ipv6).then_some(true));
                assert!(payload_matches(&s[p.payload()], spec.payload_seed, t.seq));
                assert_eq!(&s[..14], &big[..14]);
                joined.extend_from_slice(&s[p.payload()]);
            }
            assert_eq!(joined, big[pb.payload()]);
        }
    }
    // The MediaTek driver passes the MSS in the TCP checksum field of a TSO frame.
    let mut big = build_tcp(&tcp_spec(false, Some(1), true, 4000));
    let l4 = parse(&big).unwrap().ip.unwrap().l4_offset;
    big[l4 + 16..l4 + 18].copy_from_slice(&1448u16.to_be_bytes());
    let mss = usize::from(parse(&big).unwrap().tcp_checksum_field().unwrap());
    let segs = tso_segment(&big, mss).unwrap();
    assert_eq!(segs.iter().map(Vec::len).collect::<Vec<_>>(), vec![1518, 1518, 18 + 20 + 32 + 1104]);
    assert!(segs.iter().all(|s| l4_checksum_ok(s) == Some(true) && ipv4_checksum_ok(s) == Some(true)));

    let small = build_tcp(&tcp_spec(false, None, false, 100));
    assert_eq!(tso_segment(&small, 0), None);
    assert_eq!(tso_segment(&small, 1448).unwrap(), vec![small[..154].to_vec()]);
    let empty = build_tcp(&TcpSpec { flags: TCP_FIN | TCP_ACK, ..TcpSpec::default() });
    let one = tso_segment(&empty, 100).unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(parse(&one[0]).unwrap().tcp.unwrap().flags, TCP_FIN | TCP_ACK);
    assert_eq!(tso_segment(&build_udp(&udp_spec(false, 3000)), 1000), None);
    let exact = tso_segment(&build_tcp(&tcp_spec(false, None, false, 3000)), 1000).unwrap();
    assert_eq!(exact.iter().map(Vec::len).collect::<Vec<_>>(), vec![1054; 3]);
}

// ---------------------------------------------------------------------------------------------
// FCS.

#[test]
fn crc32_vectors() {
    assert_eq!(crc32_ieee(b"123456789"), 0xcbf4_3926);
    assert_eq!(crc32_ieee(b""), 0);
    assert_eq!(crc32_ieee(b"The quick brown fox jumps over the lazy dog"), 0x414f_a339);
    let mut rng = Lcg(1);
    for len in 0..100 {
        let data: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        assert_eq!(crc32_ieee(&data), naive_crc(&data), "len {len}");
    }
}

#[test]
fn fcs_append_check_corrupt() {
    let f = build_tcp(&tcp_spec(false, None, true, 1448));
    let mut w = append_fcs(f.clone());
    assert_eq!(w.len(), f.len() + FCS);
    assert!(fcs_ok(&w));
    // CRC over a frame and its FCS leaves the standard residue.
    assert_eq!(crc32_ieee(&w), 0x2144_df1c);
    assert!(set_bad_fcs(&mut w));
    assert!(!fcs_ok(&w));
    let mut x = append_fcs(f.clone());
    x[100] ^= 0x80;
    assert!(!fcs_ok(&x));
    assert!(!fcs_ok(&[1, 2, 3]));
    assert!(!set_bad_fcs(&mut [1, 2, 3]));
    assert!(fcs_ok(&append_fcs(Vec::new())));
}

// ---------------------------------------------------------------------------------------------
// Sizes and the bulk generator.

#[test]
fn line_rate_goodput_941_5() {
    let mss = mss_for_mtu(1500, false, true);
    assert_eq!(mss, 1448);
    let frame = ETH_HEADER + 20 + 32 + mss;
    assert_eq!(frame, MAX_FRAME);
    assert_eq!(frame, 1514);
    assert_eq!(wire_bytes(frame), 1538);
    let bps = goodput_bps(1_000_000_000, mss, frame);
    assert_eq!(bps, 941_482_444);
    assert_eq!((bps as f64 / 1e5).round() / 10.0, 941.5);
    assert_eq!(build_tcp(&tcp_spec(false, None, true, mss)).len(), 1514);
    // 64-byte frames (60 + FCS): 84 bytes on the wire, 1.488 Mpps at 1 Gbit/s.
    assert_eq!(wire_bytes(60), 84);
    assert_eq!(wire_bytes(1), 84);
    assert_eq!(1_000_000_000 / 8 / wire_bytes(60) as u64, 1_488_095);
    assert_eq!(MAX_FRAME_VLAN, 1518);
    assert_eq!(mss_for_mtu(1500, true, true), 1428);
    assert_eq!(mss_for_mtu(1500, false, false), 1460);
    assert_eq!(mss_for_mtu(10, false, false), 0);
}

#[test]
fn bulk_stream() {
    for (ipv6, vlan) in [(false, None), (true, None), (false, Some(3)), (true, Some(4))] {
        let mut s = TcpStream::bulk(ipv6, vlan);
        let expect_len = 1514 + if vlan.is_some() { 4 } else { 0 };
        assert_eq!(s.frame_len(), expect_len);
        let isn = s.next_seq();
        let mut prev_ts = None;
        for i in 0..5u32 {
            let f = s.next_segment();
            assert_eq!(f.len(), expect_len);
            let p = parse(&f).unwrap();
            let (ip, t) = (p.ip.unwrap(), p.tcp.unwrap());
            assert_eq!(t.seq, isn.wrapping_add(i * s.mss() as u32));
            assert_eq!(p.payload_len, s.mss());
            assert_eq!(ip.version, if ipv6 { 6 } else { 4 });
            if !ipv6 {
                assert_eq!(ip.id, i as u16);
            }
            let ts = t.options.timestamp.unwrap().0;
            if let Some(pt) = prev_ts {
                assert_eq!(ts, pt + 1);
            }
            prev_ts = Some(ts);
            assert_eq!(p.l4_checksum_ok(&f), Some(true));
            assert!(payload_matches(&f[p.payload()], s.spec().payload_seed, t.seq));
            assert!(!is_oversize(&f));
        }
        assert_eq!(s.segments_sent(), 5);
        assert_eq!(s.bytes_sent(), 5 * s.mss() as u64);
    }
    // Mixed sizes and a driven timestamp clock.
    let mut s = TcpStream::new(TcpSpec { timestamp: Some((0, 0)), ..TcpSpec::default() }, 1000);
    s.set_ts_val(5000, 10);
    let sizes = [1, 64, 1000, 0, 1460];
    let mut seq = s.next_seq();
    for (i, n) in sizes.into_iter().enumerate() {
        let f = s.next_segment_with(n);
        let t = parse(&f).unwrap().tcp.unwrap();
        assert_eq!((t.seq, t.options.timestamp.unwrap().0), (seq, 5000 + 10 * i as u32));
        assert_eq!(l4_checksum_ok(&f), Some(true));
        seq = seq.wrapping_add(n as u32);
    }
    assert_eq!(s.next_seq(), seq);
    assert_eq!(TcpStream::new(TcpSpec::default(), 0).mss(), 1);
}

#[test]
fn runts_and_oversize() {
    let runt = build_raw([1; 6], [2; 6], None, 0x0800, 40, 3);
    assert_eq!(runt.len(), 40);
    assert!(is_runt(runt.len()) && !is_runt(60));
    let tiny = build_raw([1; 6], [2; 6], Some(1), 0x0800, 5, 3);
    assert_eq!(tiny, vec![1; 5]);
    assert!(parse(&tiny).is_none());
    assert!(!is_oversize(&build_raw([1; 6], [2; 6], None, 0x88b5, 1514, 0)));
    assert!(is_oversize(&build_raw([1; 6], [2; 6], None, 0x88b5, 1515, 0)));
    assert!(!is_oversize(&build_raw([1; 6], [2; 6], Some(1), 0x88b5, 1518, 0)));
    assert!(is_oversize(&build_raw([1; 6], [2; 6], Some(1), 0x88b5, 1519, 0)));
    let jumbo = build_tcp(&tcp_spec(false, None, true, 9000));
    assert!(is_oversize(&jumbo));
    assert_eq!(l4_checksum_ok(&jumbo), Some(true));
    // Lengths are clamped to what a 16-bit IP length can express.
    let huge = build_tcp(&tcp_spec(false, None, false, 100_000));
    assert_eq!(parse(&huge).unwrap().ip.unwrap().total_len, 65535);
    assert_eq!(l4_checksum_ok(&huge), Some(true));
    let huge6 = build_udp(&udp_spec(true, 100_000));
    assert_eq!(parse(&huge6).unwrap().udp.unwrap().length, 65535);
    assert_eq!(l4_checksum_ok(&huge6), Some(true));
}

// ---------------------------------------------------------------------------------------------
// Robustness.

fn seeds() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for ipv6 in [false, true] {
        out.push(build_tcp(&tcp_spec(ipv6, Some(7), true, 600)));
        out.push(build_tcp(&tcp_spec(ipv6, None, false, 40)));
        out.push(build_udp(&udp_spec(ipv6, 300)));
    }
    let v6 = build_tcp(&tcp_spec(true, None, true, 300));
    let mut ext = splice(&v6, 54, &[44, 0, 1, 4, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 1]);
    ext[20] = 0;
    ext[18..20].copy_from_slice(&(u16::from_be_bytes([v6[18], v6[19]]) + 16).to_be_bytes());
    out.push(ext);
    out.push(splice(&out[0], 12, &[0x88, 0xa8, 0, 1]));
    out
}

/// Calls everything that takes a frame and checks the invariants that hold for any input.
fn exercise(f: &[u8], mss: usize) {
    let p = parse(f);
    let _ = (l4_checksum_ok(f), ipv4_checksum_ok(f), is_oversize(f), fcs_ok(f), crc32_ieee(f));
    // The receive path's parse of the IP layer only is the full parse's IP layer.
    assert_eq!(parse_ip(f), p.and_then(|p| p.ip_view()));
    let mut g = f.to_vec();
    let inserted = insert_checksums(&mut g);
    assert_eq!(inserted, p.is_some_and(|p| p.ip.is_some()));
    if let Some(q) = parse(&g) {
        assert_eq!(Some(q), p.map(|p| Parsed { tcp: q.tcp, udp: q.udp, ..p }));
        // A verdict exactly where the full parse found a TCP or UDP header.
        let verdict = parse_ip(&g).and_then(|v| v.l4_checksum_ok(&g));
        assert_eq!(verdict.is_some(), q.tcp.is_some() || q.udp.is_some());
        if q.tcp.is_some() || q.udp.is_some() {
            assert_eq!(q.l4_checksum_ok(&g), Some(true));
            assert!(naive_l4_ok(&q, &g));
        }
        if q.ip.is_some_and(|ip| ip.version == 4) {
            assert_eq!(q.ipv4_checksum_ok(&g), Some(true));
        }
    }
    let mut h = g.clone();
    if set_bad_l4_checksum(&mut h) {
        assert_eq!(l4_checksum_ok(&h), Some(false));
    }
    if let Some(segs) = tso_segment(&g, mss) {
        for s in &segs {
            let q = parse(s).unwrap();
            assert!(q.tcp.is_some());
            assert_eq!(q.l4_checksum_ok(s), Some(true));
        }
    }
}

#[test]
fn mutation_fuzz_never_panics() {
    let seeds = seeds();
    let mut rng = Lcg(0x5eed);
    for _ in 0..10_000 {
        let mut f = seeds[rng.below(seeds.len())].clone();
        for _ in 0..=rng.below(4) {
            // Bias mutations towards the headers, where the parser makes decisions.
            let at = if rng.below(4) == 0 { rng.below(f.len()) } else { rng.below(f.len().min(90)) };
            match rng.below(5) {
                0 => f[at] = rng.next() as u8,
                1 => f[at] ^= 1 << rng.below(8),
                2 => f.truncate(at),
                3 => f.insert(at, rng.next() as u8),
                _ => {
                    if at > 0 {
                        f.remove(at);
                    }
                }
            }
            if f.is_empty() {
                f.push(0);
            }
        }
        exercise(&f, 64 + rng.below(1500));
    }
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), mss in 0usize..2000) {
        exercise(&bytes, mss);
        let mut b = bytes.clone();
        let _ = (set_bad_ipv4_checksum(&mut b), set_bad_fcs(&mut b));
    }

    #[test]
    fn sum_chains_and_matches_reference(a in proptest::collection::vec(any::<u8>(), 0..300),
                                        b in proptest::collection::vec(any::<u8>(), 0..300)) {
        let mut a = a;
        if a.len() % 2 == 1 { a.pop(); }
        let mut ab = a.clone();
        ab.extend_from_slice(&b);
        prop_assert_eq!(fold(ones_complement_sum(&ab, 0)), naive_sum(&ab));
        prop_assert_eq!(fold(ones_complement_sum(&b, ones_complement_sum(&a, 0))), naive_sum(&ab));
    }

    #[test]
    fn sum_is_the_same_at_every_alignment(data in proptest::collection::vec(any::<u8>(), 0..300),
                                          skip in 0usize..16, initial in 0u32..0x3_0000) {
        // The sum reads aligned words between an unaligned head and tail: every start address
        // (and every head and tail length) must give the reference sum.
        let d = data.get(skip..).unwrap_or(&[]);
        let reference = fold(u32::from(naive_sum(d)) + initial);
        prop_assert_eq!(fold(ones_complement_sum(d, initial)), reference);
    }

    #[test]
    fn built_tcp_round_trips(ipv6 in any::<bool>(), vlan in proptest::option::of(any::<u16>()),
                             ts in proptest::option::of(any::<(u32, u32)>()), seq in any::<u32>(),
                             flags in any::<u8>(), len in 0usize..3000, seed in any::<u32>(), id in any::<u16>()) {
        let spec = TcpSpec { ipv6, vlan, timestamp: ts, seq, flags, payload_len: len, payload_seed: seed, ip_id: id,
                             ..TcpSpec::default() };
        let f = build_tcp(&spec);
        let p = parse(&f).unwrap();
        let t = p.tcp.unwrap();
        prop_assert_eq!((t.seq, t.flags, t.options.timestamp), (seq, flags, ts));
        prop_assert_eq!(p.vlan.map(|v| v.tci), vlan);
        prop_assert_eq!(p.payload_len, len);
        prop_assert_eq!(p.l4_checksum_ok(&f), Some(true));
        prop_assert!(naive_l4_ok(&p, &f));
        prop_assert!(payload_matches(&f[p.payload()], seed, seq));
        let segs = tso_segment(&f, 536).unwrap();
        prop_assert_eq!(segs.len(), len.div_ceil(536).max(1));
        let total: usize = segs.iter().map(|s| parse(s).unwrap().payload_len).sum();
        prop_assert_eq!(total, len);
    }
}
