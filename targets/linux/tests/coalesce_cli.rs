//! `fe coalesce`: a generated capture (two TCP flows in segments, a pure ACK, a bad-checksum
//! frame) coalesced by the binary, checked by parsing the output here (with `pcap-parser`, not
//! the code that wrote it) and with `tshark` when it is installed; the same capture as pcapng;
//! errors that name the file and say what happened; outputs never lost or aimed at the input.

#[path = "../../../driver/tests/softlro_support/mod.rs"]
mod softlro_support;

use pcap_parser::traits::PcapReaderIterator;
use pcap_parser::{PcapBlockOwned, PcapError};
use softlro_support::{Flow, Seg, check, frame};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("fe-coalesce-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Timestamped frames of a capture.
type Frames = Vec<(Duration, Vec<u8>)>;
/// Payload bytes per flow key.
type Streams = BTreeMap<Vec<u8>, Vec<u8>>;

/// Writes a pcap capture (little-endian, microsecond timestamps, or nanosecond with `nanos`).
fn write_pcap_res(path: &Path, frames: &[(Duration, Vec<u8>)], nanos: bool) {
    let magic: u32 = if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 };
    let mut b = magic.to_le_bytes().to_vec();
    b.extend_from_slice(&[2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    b.extend_from_slice(&65535u32.to_le_bytes());
    b.extend_from_slice(&1u32.to_le_bytes()); // Ethernet
    for (ts, d) in frames {
        let frac = if nanos { ts.subsec_nanos() } else { ts.subsec_micros() };
        for v in [ts.as_secs() as u32, frac, d.len() as u32, d.len() as u32] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(d);
    }
    std::fs::write(path, b).unwrap();
}

fn write_pcap(path: &Path, frames: &[(Duration, Vec<u8>)]) {
    write_pcap_res(path, frames, false);
}

/// One pcapng block: type, length, body padded to 32 bits, length again.
fn ng_block(kind: u32, body: &[u8]) -> Vec<u8> {
    let padded = body.len().div_ceil(4) * 4;
    let len = (12 + padded) as u32;
    let mut b = kind.to_le_bytes().to_vec();
    b.extend_from_slice(&len.to_le_bytes());
    b.extend_from_slice(body);
    b.resize(8 + padded, 0);
    b.extend_from_slice(&len.to_le_bytes());
    b
}

/// Writes a pcapng capture: a section header, an interface of `linktype` with nanosecond
/// timestamps (if_tsresol 9), a name-resolution block (skipped by readers), then one enhanced
/// packet block per frame.
fn write_pcapng(path: &Path, frames: &[(Duration, Vec<u8>)], linktype: u16) {
    let mut shb = 0x1a2b_3c4du32.to_le_bytes().to_vec();
    shb.extend_from_slice(&[1, 0, 0, 0]); // version 1.0
    shb.extend_from_slice(&u64::MAX.to_le_bytes()); // section length unknown
    let mut b = ng_block(0x0a0d_0d0a, &shb);
    let mut idb = linktype.to_le_bytes().to_vec();
    idb.extend_from_slice(&[0, 0]);
    idb.extend_from_slice(&65535u32.to_le_bytes());
    idb.extend_from_slice(&[9, 0, 1, 0, 9, 0, 0, 0]); // if_tsresol = 9 (nanoseconds)
    idb.extend_from_slice(&[0, 0, 0, 0]); // end of options
    b.extend(ng_block(1, &idb));
    b.extend(ng_block(4, &[0, 0, 0, 0])); // name resolution: no records
    for (ts, d) in frames {
        let ns = ts.as_nanos() as u64;
        let mut epb = 0u32.to_le_bytes().to_vec();
        for v in [(ns >> 32) as u32, ns as u32, d.len() as u32, d.len() as u32] {
            epb.extend_from_slice(&v.to_le_bytes());
        }
        epb.extend_from_slice(d);
        epb.resize(20 + d.len().div_ceil(4) * 4, 0);
        b.extend(ng_block(6, &epb));
    }
    std::fs::write(path, b).unwrap();
}

/// Reads a pcap capture with `pcap-parser`: timestamped frames (and that it is nanosecond).
fn read_pcap_res(path: &Path) -> (Frames, bool) {
    let mut r = pcap_parser::LegacyPcapReader::new(1 << 20, std::fs::File::open(path).unwrap()).unwrap();
    let (mut v, mut nanos) = (Vec::new(), false);
    loop {
        match r.next() {
            Ok((len, block)) => {
                match block {
                    PcapBlockOwned::LegacyHeader(h) => {
                        assert_eq!(h.network, pcap_parser::Linktype::ETHERNET);
                        nanos = h.is_nanosecond_precision();
                    }
                    PcapBlockOwned::Legacy(b) => {
                        let frac = if nanos { b.ts_usec } else { b.ts_usec * 1000 };
                        assert_eq!(b.caplen as usize, b.data.len());
                        v.push((Duration::new(u64::from(b.ts_sec), frac), b.data.to_vec()));
                    }
                    PcapBlockOwned::NG(_) => panic!("pcapng block in a pcap capture"),
                }
                r.consume(len);
            }
            Err(PcapError::Eof) => break,
            Err(PcapError::Incomplete(_)) => r.refill().unwrap(),
            Err(e) => panic!("{}: {e:?}", path.display()),
        }
    }
    (v, nanos)
}

fn read_pcap(path: &Path) -> Frames {
    read_pcap_res(path).0
}

/// The test capture: flow A (IPv4) with 6 full segments, a pure ACK, 4 more and a short tail;
/// flow B (IPv6, tagged) with 8 segments, the 4th with a bad TCP checksum; interleaved.
/// Returns the frames (1 ms apart), the expected payload per flow key, and the bad frame.
fn capture() -> (Frames, Streams, Vec<u8>) {
    let (fa, fb) = (Flow::v4(1), Flow::v6(2).tagged(2, 42));
    let mut a = vec![Seg::data(1, 1448)];
    for _ in 0..5 {
        let n = a.last().unwrap().next(1448);
        a.push(n);
    }
    let mut ack = a.last().unwrap().next(0);
    ack.ack += 1;
    a.push(ack);
    for len in [1448, 1448, 1448, 1448, 300] {
        let mut n = a.last().unwrap().next(len);
        n.ack = a.last().unwrap().ack;
        a.push(n);
    }
    let mut b = vec![Seg::data(500, 1000)];
    for _ in 0..7 {
        let n = b.last().unwrap().next(1000);
        b.push(n);
    }
    b[3].bad_tcp_csum = true;
    let bad = frame(&fb, &b[3]);
    let mut frames = Vec::new();
    let mut expect = Streams::new();
    let (mut ia, mut ib) = (a.iter(), b.iter());
    loop {
        let mut any = false;
        for (f, s) in [(&fa, ia.next()), (&fb, ib.next()), (&fa, ia.next())] {
            if let Some(s) = s {
                any = true;
                let d = frame(f, s);
                expect.entry(check(0, &d).unwrap().key).or_default().extend_from_slice(&s.payload);
                frames.push((Duration::from_millis(1_700_000_000_000 + frames.len() as u64), d));
            }
        }
        if !any {
            break;
        }
    }
    (frames, expect, bad)
}

#[test]
fn fe_coalesce_merges_a_capture_with_valid_output() {
    let d = dir("ok");
    let (input, output) = (d.join("in.pcap"), d.join("out.pcap"));
    let (frames, expect, bad) = capture();
    write_pcap(&input, &frames);
    let out = Command::new(env!("CARGO_BIN_EXE_fe"))
        .args(["coalesce", "--stats", "--poll", "64"])
        .arg(&input)
        .arg(&output)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stats = String::from_utf8_lossy(&out.stdout);
    println!("{stats}");
    for want in ["frames in", "frames out", "segments merged", "flush poll_end", "pass no_payload", "pass bad_checksum"]
    {
        assert!(stats.contains(want), "--stats lacks {want}: {stats}");
    }
    assert!(stats.contains(&format!("frames in{:>25}", frames.len())), "{stats}");

    let got = read_pcap(&output);
    assert!(got.len() < frames.len() / 2, "coalesced: {} of {}", got.len(), frames.len());
    let mut streams = Streams::new();
    let mut bad_seen = 0;
    for (ts, data) in &got {
        let k = check(0, data).expect("TCP frames only");
        if !k.tcp_csum_ok {
            assert_eq!(data, &bad, "only the input's bad frame is bad, and untouched");
            bad_seen += 1;
        } else {
            assert!(k.ip_csum_ok);
            let l2 = if data[12] == 0x81 { 18 } else { 14 };
            assert_eq!(l2 + k.ip_len, data.len(), "IP length matches the frame");
        }
        // The timestamp is that of the last segment merged: the input frame ending the payload.
        let last = frames.iter().find(|(_, f)| {
            let c = check(0, f).unwrap();
            c.key == k.key && !c.payload.is_empty() && k.payload.ends_with(&c.payload) && k.seq <= c.seq
        });
        if let Some((t, _)) = last.filter(|_| !k.payload.is_empty()) {
            assert_eq!(ts, t, "timestamp of the last segment");
        }
        streams.entry(k.key).or_default().extend_from_slice(&k.payload);
    }
    assert_eq!(bad_seen, 1);
    assert_eq!(streams, expect, "every flow's bytes, in order");

    if let Some(ts) = tshark() {
        let bad_lines = Command::new(&ts)
            .args(["-r"])
            .arg(&output)
            .args(["-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE"])
            .args(["-Y", "tcp.checksum.status == 0 || ip.checksum.status == 0", "-T", "fields", "-e", "tcp.seq_raw"])
            .output()
            .unwrap();
        assert!(bad_lines.status.success(), "{}", String::from_utf8_lossy(&bad_lines.stderr));
        let bad_seqs: Vec<_> = String::from_utf8_lossy(&bad_lines.stdout).lines().map(str::to_owned).collect();
        assert_eq!(bad_seqs, vec![check(0, &bad).unwrap().seq.to_string()], "tshark: only the input's bad frame");
        let fields = Command::new(&ts)
            .args(["-r"])
            .arg(&output)
            .args(["-T", "fields", "-e", "tcp.srcport", "-e", "tcp.payload"])
            .output()
            .unwrap();
        let mut by_port = BTreeMap::<String, String>::new();
        for line in String::from_utf8_lossy(&fields.stdout).lines() {
            let mut it = line.split('\t');
            let (port, hex) = (it.next().unwrap_or("").to_owned(), it.next().unwrap_or("").replace(':', ""));
            by_port.entry(port).or_default().push_str(&hex);
        }
        let want: BTreeMap<String, String> = expect
            .iter()
            .map(|(k, v)| {
                let port = u16::from_be_bytes([k[k.len() - 4], k[k.len() - 3]]);
                (port.to_string(), v.iter().map(|b| format!("{b:02x}")).collect())
            })
            .collect();
        assert_eq!(by_port, want, "tshark: payloads per flow");
    }
    std::fs::remove_dir_all(&d).ok();
}

/// `tshark` when it is installed.
fn tshark() -> Option<PathBuf> {
    let ok = Command::new("tshark").arg("--version").output().is_ok_and(|o| o.status.success());
    if ok {
        Some("tshark".into())
    } else {
        eprintln!("tshark not installed: output checked in Rust only");
        None
    }
}

fn fails_naming(args: &[&std::ffi::OsStr], name: &str, what: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_fe")).arg("coalesce").args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(name) && err.contains(what), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn fe_coalesce_reports_bad_input_with_the_file() {
    let d = dir("bad");
    let out = d.join("out.pcap");
    let missing = d.join("missing.pcap");
    fails_naming(&[missing.as_os_str(), out.as_os_str()], "missing.pcap", "No such file");

    let (frames, _, _) = capture();
    let good = d.join("good.pcap");
    write_pcap(&good, &frames[..3]);
    let bytes = std::fs::read(&good).unwrap();
    let cut = d.join("cut.pcap");
    std::fs::write(&cut, &bytes[..bytes.len() - 7]).unwrap();
    fails_naming(&[cut.as_os_str(), out.as_os_str()], "cut.pcap", "truncated");
    assert!(!out.exists(), "no partial output left");
    let header_only = d.join("short.pcap");
    std::fs::write(&header_only, &bytes[..10]).unwrap();
    fails_naming(&[header_only.as_os_str(), out.as_os_str()], "short.pcap", "truncated");

    let mut raw = bytes[..24].to_vec();
    raw[20..24].copy_from_slice(&101u32.to_le_bytes()); // LINKTYPE_RAW
    let raw_path = d.join("raw.pcap");
    std::fs::write(&raw_path, &raw).unwrap();
    fails_naming(&[raw_path.as_os_str(), out.as_os_str()], "raw.pcap", "not Ethernet");

    let text = d.join("text.pcap");
    std::fs::write(&text, b"this is not a capture at all").unwrap();
    fails_naming(&[text.as_os_str(), out.as_os_str()], "text.pcap", "pcap");

    fails_naming(&[good.as_os_str(), good.as_os_str()], "good.pcap", "overwrite");

    let bad_arg =
        Command::new(env!("CARGO_BIN_EXE_fe")).args(["coalesce", "--poll", "0"]).arg(&good).arg(&out).output().unwrap();
    assert!(!bad_arg.status.success());
    assert!(String::from_utf8_lossy(&bad_arg.stderr).contains("--poll"));
    std::fs::remove_dir_all(&d).ok();
}

fn coalesce(input: &Path, output: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fe")).arg("coalesce").arg(input).arg(output).output().unwrap()
}

#[test]
fn fe_coalesce_reads_pcapng_as_it_reads_pcap() {
    let d = dir("ng");
    let (frames, expect, _) = capture();
    let (pcap, ng) = (d.join("in.pcap"), d.join("in.pcapng"));
    write_pcap_res(&pcap, &frames, true);
    write_pcapng(&ng, &frames, 1);
    let (from_pcap, from_ng) = (d.join("a.pcap"), d.join("b.pcap"));
    for (i, o) in [(&pcap, &from_pcap), (&ng, &from_ng)] {
        let out = coalesce(i, o);
        assert!(out.status.success(), "{}: {}", i.display(), String::from_utf8_lossy(&out.stderr));
    }
    let (a, a_nanos) = read_pcap_res(&from_pcap);
    let (b, b_nanos) = read_pcap_res(&from_ng);
    assert!(a_nanos && b_nanos, "nanosecond input, nanosecond output");
    assert!(b.len() < frames.len() / 2, "pcapng input was coalesced: {} of {}", b.len(), frames.len());
    assert_eq!(a, b, "the same frames and timestamps from pcap and pcapng");
    let mut streams = Streams::new();
    for (_, data) in &b {
        let k = check(0, data).unwrap();
        streams.entry(k.key).or_default().extend_from_slice(&k.payload);
    }
    assert_eq!(streams, expect);

    // A pcapng whose interface is not Ethernet (LINKTYPE_RAW) is refused, naming the file.
    let raw = d.join("raw.pcapng");
    write_pcapng(&raw, &frames[..2], 101);
    let out = d.join("raw-out.pcap");
    fails_naming(&[raw.as_os_str(), out.as_os_str()], "raw.pcapng", "link type 101, not Ethernet");
    assert!(!out.exists(), "no output from a refused capture");
    // A pcapng cut inside a block: truncated, not "wrong magic number".
    let bytes = std::fs::read(&ng).unwrap();
    let cut = d.join("cut.pcapng");
    std::fs::write(&cut, &bytes[..bytes.len() - 9]).unwrap();
    fails_naming(&[cut.as_os_str(), out.as_os_str()], "cut.pcapng", "truncated capture: it ends inside the block");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn fe_coalesce_refuses_an_output_hard_linked_to_the_input() {
    let d = dir("link");
    let (frames, _, _) = capture();
    let input = d.join("in.pcap");
    write_pcap(&input, &frames);
    let before = std::fs::read(&input).unwrap();
    let link = d.join("link.pcap");
    std::fs::hard_link(&input, &link).unwrap();
    fails_naming(&[input.as_os_str(), link.as_os_str()], "link.pcap", "same file");
    let sym = d.join("sym.pcap");
    std::os::unix::fs::symlink(&input, &sym).unwrap();
    fails_naming(&[input.as_os_str(), sym.as_os_str()], "sym.pcap", "same file");
    assert_eq!(std::fs::read(&input).unwrap(), before, "the input is untouched");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn fe_coalesce_failed_run_keeps_the_existing_output() {
    let d = dir("keep");
    let (frames, _, _) = capture();
    let good = d.join("good.pcap");
    write_pcap(&good, &frames);
    let bytes = std::fs::read(&good).unwrap();
    let cut = d.join("cut.pcap");
    std::fs::write(&cut, &bytes[..bytes.len() - 7]).unwrap();
    let out = d.join("out.pcap");
    std::fs::write(&out, b"an earlier result").unwrap();
    fails_naming(&[cut.as_os_str(), out.as_os_str()], "cut.pcap", "truncated");
    assert_eq!(std::fs::read(&out).unwrap(), b"an earlier result", "a failed run leaves the output as it was");
    let names: Vec<_> = std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 3, "no temporary file left behind: {names:?}");
    // A successful run replaces it.
    let ok = coalesce(&good, &out);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    assert!(!read_pcap(&out).is_empty());
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn fe_coalesce_says_what_happened() {
    let d = dir("words");
    let (frames, _, _) = capture();
    let good = d.join("good.pcap");
    write_pcap(&good, &frames[..4]);
    let out = d.join("out.pcap");
    let empty = d.join("empty.pcap");
    std::fs::write(&empty, b"").unwrap();
    fails_naming(&[empty.as_os_str(), out.as_os_str()], "empty.pcap", "empty file");
    let bytes = std::fs::read(&good).unwrap();
    let cut = d.join("cut.pcap");
    std::fs::write(&cut, &bytes[..bytes.len() - 7]).unwrap();
    fails_naming(
        &[cut.as_os_str(), out.as_os_str()],
        "cut.pcap",
        "truncated capture: it ends inside the record after packet 3",
    );
    let text = d.join("text.pcap");
    std::fs::write(&text, b"this is not a capture").unwrap();
    fails_naming(&[text.as_os_str(), out.as_os_str()], "text.pcap", "not a capture (starts with bytes 74 68 69 73");
    // A write error says so (the output is a device here, written in place).
    let full = Path::new("/dev/full");
    if full.exists() {
        fails_naming(&[good.as_os_str(), full.as_os_str()], "/dev/full", "write failed: No space left on device");
    }
    std::fs::remove_dir_all(&d).ok();
}
