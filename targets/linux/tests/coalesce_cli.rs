//! `fe coalesce`: a generated capture (two TCP flows in segments, a pure ACK, a bad-checksum
//! frame) coalesced by the binary, checked by parsing the output here and with `tshark` when
//! it is installed; and errors that name the file.

#[path = "../../../driver/tests/softlro_support/mod.rs"]
mod softlro_support;

use pcap_file::pcap::{PcapPacket, PcapReader, PcapWriter};
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

fn write_pcap(path: &Path, frames: &[(Duration, Vec<u8>)]) {
    let mut w = PcapWriter::new(std::fs::File::create(path).unwrap()).unwrap();
    for (ts, d) in frames {
        w.write_packet(&PcapPacket::new(*ts, d.len() as u32, d)).unwrap();
    }
}

fn read_pcap(path: &Path) -> Frames {
    let mut r = PcapReader::new(std::fs::File::open(path).unwrap()).unwrap();
    let mut v = Vec::new();
    while let Some(p) = r.next_packet() {
        let p = p.unwrap();
        v.push((p.timestamp, p.data.into_owned()));
    }
    v
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
