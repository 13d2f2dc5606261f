//! `fe coalesce IN.pcap OUT.pcap`: the driver core's SoftLRO run offline over a capture, so
//! anyone can check what it merges (and that lengths and checksums are right) with `tshark`.
//!
//! Frames are fed as `Unverified` (as with RX checksum off: SoftLRO verifies each segment in
//! software before merging), one poll per `--poll` frames with a flush at its end and at the end
//! of the capture. Each frame written carries the timestamp of the last segment merged into it.

use fe_driver::softlro::{FlushReason, LroStats, PassReason, SoftLro};
use fe_driver::{RxChecksum, RxFrame};
use pcap_file::pcap::{PcapHeader, PcapReader, PcapWriter, RawPcapPacket};
use pcap_file::{DataLink, PcapError, TsResolution};
use std::borrow::Cow;
use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Bytes per flow slot: the largest aggregate (an 802.1Q header and a 64 KiB datagram) fits.
pub const SLOT_SIZE: usize = 18 + 65536;
/// Snap length of the output capture: every aggregate is written whole.
pub const SNAPLEN: u32 = 262_144;

/// What `fe coalesce` was asked to do.
#[derive(Clone, Debug)]
pub struct Options {
    /// The capture to read (pcap, Ethernet link type).
    pub input: PathBuf,
    /// The capture to write.
    pub output: PathBuf,
    /// Frames per poll (a flush after each poll).
    pub poll: usize,
    /// Flow-table size.
    pub flows: usize,
}

/// Runs SoftLRO over `opts.input` and writes `opts.output`; returns the SoftLRO counters.
/// Errors name the file they are about; no partial output is left behind.
pub fn run(opts: &Options) -> Result<LroStats, String> {
    let mut created = false;
    let r = coalesce(opts, &mut created);
    if r.is_err() && created {
        let _ = std::fs::remove_file(&opts.output);
    }
    r
}

/// Says what went wrong reading a capture, in words for the error message.
fn describe(e: &PcapError) -> String {
    match e {
        PcapError::IncompleteBuffer => "truncated capture".into(),
        PcapError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "truncated capture (it ends inside a record)".into()
        }
        PcapError::IoError(io) => io.to_string(),
        other => other.to_string(),
    }
}

fn coalesce(opts: &Options, created: &mut bool) -> Result<LroStats, String> {
    let input = &opts.input;
    let file = File::open(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let mut reader = PcapReader::new(BufReader::new(file))
        .map_err(|e| format!("{}: not a readable pcap capture: {}", input.display(), describe(&e)))?;
    let header = reader.header();
    if header.datalink != DataLink::ETHERNET {
        return Err(format!(
            "{}: link type {:?} is not Ethernet (only Ethernet captures can be coalesced)",
            input.display(),
            header.datalink
        ));
    }
    let out_header = PcapHeader {
        snaplen: SNAPLEN,
        datalink: DataLink::ETHERNET,
        ts_resolution: header.ts_resolution,
        ..PcapHeader::default()
    };
    let output = &opts.output;
    if std::fs::canonicalize(output).ok() == std::fs::canonicalize(input).ok() {
        return Err(format!("{}: the output would overwrite the input", output.display()));
    }
    let out_file = File::create(output).map_err(|e| format!("{}: {e}", output.display()))?;
    *created = true;
    let mut writer = Writer {
        pcap: PcapWriter::with_header(BufWriter::new(out_file), out_header)
            .map_err(|e| format!("{}: {e}", output.display()))?,
        resolution: header.ts_resolution,
        path: output,
        error: None,
    };

    let flows = opts.flows.max(1);
    let mut storage = vec![0u8; flows * SLOT_SIZE];
    let mut lro = SoftLro::new(&mut storage, flows);
    let poll = opts.poll.max(1);
    let mut in_poll = 0;
    let mut index = 0u64;
    while let Some(packet) = reader.next_raw_packet() {
        index += 1;
        let packet = packet.map_err(|e| format!("{}: packet {index}: {}", input.display(), describe(&e)))?;
        let tag = writer.tag(&packet);
        let data: &[u8] = &packet.data;
        let frame = RxFrame::new(0, data, RxChecksum::Unverified);
        lro.push_tagged(frame, tag, &mut |f, tag| {
            // A frame passed through keeps its captured original length (it may be cut short).
            let orig = if core::ptr::eq(f.data, data) { packet.orig_len } else { f.data.len() as u32 };
            writer.write(f.data, orig, tag);
        });
        in_poll += 1;
        if in_poll == poll {
            lro.flush_tagged(&mut |f, tag| writer.write(f.data, f.data.len() as u32, tag));
            in_poll = 0;
        }
        if let Some(e) = writer.error.take() {
            return Err(e);
        }
    }
    lro.flush_tagged(&mut |f, tag| writer.write(f.data, f.data.len() as u32, tag));
    if let Some(e) = writer.error.take() {
        return Err(e);
    }
    writer.pcap.into_writer().flush().map_err(|e| format!("{}: {e}", output.display()))?;
    Ok(lro.stats().clone())
}

/// The output capture; the first write error is kept (the SoftLRO callbacks cannot return it).
struct Writer<'p> {
    pcap: PcapWriter<BufWriter<File>>,
    resolution: TsResolution,
    path: &'p Path,
    error: Option<String>,
}

impl Writer<'_> {
    /// A packet's timestamp in nanoseconds, the tag SoftLRO carries to the frame written.
    fn tag(&self, p: &RawPcapPacket<'_>) -> u64 {
        let frac = u64::from(p.ts_frac);
        let nanos = if self.resolution == TsResolution::MicroSecond { frac * 1000 } else { frac };
        u64::from(p.ts_sec) * 1_000_000_000 + nanos
    }

    fn write(&mut self, data: &[u8], orig_len: u32, tag: u64) {
        if self.error.is_some() {
            return;
        }
        let div = if self.resolution == TsResolution::MicroSecond { 1000 } else { 1 };
        let packet = RawPcapPacket {
            ts_sec: (tag / 1_000_000_000) as u32,
            ts_frac: (tag % 1_000_000_000 / div) as u32,
            incl_len: data.len() as u32,
            orig_len: orig_len.max(data.len() as u32),
            data: Cow::Borrowed(data),
        };
        if let Err(e) = self.pcap.write_raw_packet(&packet) {
            self.error = Some(format!("{}: {e}", self.path.display()));
        }
    }
}

/// The `--stats` report: frames in and out, segments merged, and every non-zero flush and pass
/// reason with its count.
pub fn stats_text(s: &LroStats) -> String {
    let mut t = String::new();
    let mut line = |name: &str, v: u64| t.push_str(&format!("{name:<24}{v:>10}\n"));
    line("frames in", s.frames_in);
    line("frames out", s.frames_out);
    line("aggregates out", s.aggregates_out);
    line("segments merged", s.segments_merged);
    line("verified in software", s.sw_verified);
    line("passed unmerged", s.passed_total());
    line("flushes", s.flushes_total());
    for r in FlushReason::ALL {
        if s.flushes(*r) > 0 {
            line(&format!("  flush {}", r.name()), s.flushes(*r));
        }
    }
    for r in PassReason::ALL {
        if s.passed(*r) > 0 {
            line(&format!("  pass {}", r.name()), s.passed(*r));
        }
    }
    t
}
