//! `fe coalesce IN OUT.pcap`: the driver core's SoftLRO run offline over a capture (pcap or
//! pcapng, Ethernet), so anyone can check what it merges (and that lengths and checksums are
//! right) with `tshark`.
//!
//! Frames are fed as `Unverified` (as with RX checksum off: SoftLRO verifies each segment in
//! software before merging), one poll per `--poll` frames with a flush at its end and at the end
//! of the capture. Each frame written carries the timestamp of the last segment merged into it.
//!
//! The output is written to a temporary file beside it and renamed over it only when the whole
//! run succeeded, so a failed run leaves an existing output as it was. An output that is the
//! input under another name (the same device and inode: a hard link, a symlink) is refused.

use fe_driver::softlro::{FlushReason, LroStats, PassReason, SoftLro};
use fe_driver::{RxChecksum, RxFrame};
use pcap_parser::pcapng::Block;
use pcap_parser::traits::PcapReaderIterator;
use pcap_parser::{Linktype, PcapBlockOwned, PcapError};
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Bytes per flow slot: the largest aggregate (an 802.1Q header and a 64 KiB datagram) fits.
pub const SLOT_SIZE: usize = 18 + 65536;
/// Snap length of the output capture: every aggregate is written whole.
pub const SNAPLEN: u32 = 262_144;
/// Read buffer: the largest record (pcap) or block (pcapng) the reader takes.
const READ_BUFFER: usize = 1 << 20;

/// What `fe coalesce` was asked to do.
#[derive(Clone, Debug)]
pub struct Options {
    /// The capture to read (pcap or pcapng, Ethernet link type).
    pub input: PathBuf,
    /// The capture to write (pcap).
    pub output: PathBuf,
    /// Frames per poll (a flush after each poll).
    pub poll: usize,
    /// Flow-table size.
    pub flows: usize,
}

/// Runs SoftLRO over `opts.input` and writes `opts.output`; returns the SoftLRO counters.
/// Errors name the file they are about; a failed run leaves no partial output and does not touch
/// an output file that was already there.
pub fn run(opts: &Options) -> Result<LroStats, String> {
    let (input, output) = (&opts.input, &opts.output);
    let file = File::open(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let in_meta = file.metadata().map_err(|e| format!("{}: {e}", input.display()))?;
    let out_meta = std::fs::metadata(output).ok();
    if let Some(m) = &out_meta
        && (m.dev(), m.ino()) == (in_meta.dev(), in_meta.ino())
    {
        return Err(format!(
            "{}: is the input {} under another name (same file: a hard link or a symbolic link); \
             the output would overwrite the input",
            output.display(),
            input.display()
        ));
    }
    let mut capture = Capture::open(file, input)?;
    // A FIFO or a device (`/dev/stdout`, a pipe) is written in place: there is no file to lose.
    let in_place = out_meta.is_some_and(|m| m.file_type().is_fifo() || m.file_type().is_char_device());
    if in_place {
        let f =
            std::fs::OpenOptions::new().write(true).open(output).map_err(|e| format!("{}: {e}", output.display()))?;
        let mut out = Output::new(f, output, capture.nanos)?;
        let stats = coalesce(opts, &mut capture, &mut out)?;
        out.finish()?;
        return Ok(stats);
    }
    let (tmp_path, tmp) = temp_beside(output)?;
    let result = (|| {
        let mut out = Output::new(tmp, output, capture.nanos)?;
        let stats = coalesce(opts, &mut capture, &mut out)?;
        out.finish()?;
        std::fs::rename(&tmp_path, output).map_err(|e| format!("{}: {e}", output.display()))?;
        Ok(stats)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp_path);
    }
    result
}

/// A new file in the output's directory (`.NAME.fe-coalesce-PID-N`), renamed over the output on
/// success (a rename within one directory is atomic and never crosses file systems).
fn temp_beside(output: &Path) -> Result<(PathBuf, File), String> {
    let name = output
        .file_name()
        .ok_or_else(|| format!("{}: not a file name to write", output.display()))?
        .to_string_lossy()
        .into_owned();
    let dir = output.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    for n in 0..100 {
        let path = dir.join(format!(".{name}.fe-coalesce-{}-{n}", std::process::id()));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(format!("{}: cannot create a temporary file beside it: {e}", output.display())),
        }
    }
    Err(format!("{}: cannot create a temporary file beside it (100 names taken)", output.display()))
}

fn coalesce(opts: &Options, capture: &mut Capture, out: &mut Output) -> Result<LroStats, String> {
    let flows = opts.flows.max(1);
    let mut storage = vec![0u8; flows * SLOT_SIZE];
    let mut lro = SoftLro::new(&mut storage, flows);
    let poll = opts.poll.max(1);
    let mut in_poll = 0;
    while capture.next_packet(|p| {
        let frame = RxFrame::new(0, p.data, RxChecksum::Unverified);
        lro.push_tagged(frame, p.ts_ns, &mut |f, tag| {
            // A frame passed through keeps its captured original length (it may be cut short).
            let orig = if core::ptr::eq(f.data, p.data) { p.orig_len } else { f.data.len() as u32 };
            out.write(f.data, orig, tag);
        });
    })? {
        in_poll += 1;
        if in_poll == poll {
            lro.flush_tagged(&mut |f, tag| out.write(f.data, f.data.len() as u32, tag));
            in_poll = 0;
        }
        out.check()?;
    }
    lro.flush_tagged(&mut |f, tag| out.write(f.data, f.data.len() as u32, tag));
    out.check()?;
    Ok(lro.stats().clone())
}

/// One packet of the input capture, borrowed from the reader's buffer.
struct Packet<'a> {
    /// Timestamp, nanoseconds since the epoch.
    ts_ns: u64,
    data: &'a [u8],
    orig_len: u32,
}

/// One pcapng interface: its link type and how its timestamps are counted.
struct Interface {
    linktype: Linktype,
    /// Timestamp units per second.
    units: u64,
    /// Seconds added to every timestamp.
    offset: i64,
}

/// The input capture, pcap or pcapng, read with `pcap-parser`.
struct Capture {
    reader: Box<dyn PcapReaderIterator + Send>,
    /// The I/O error behind a `PcapError::ReadError` (the parser keeps only that one happened).
    io_error: Arc<Mutex<Option<io::Error>>>,
    path: PathBuf,
    /// pcapng (else pcap).
    ng: bool,
    /// Timestamps in nanoseconds (pcap with the nanosecond magic, and every pcapng): the output
    /// keeps a microsecond pcap's resolution and uses nanoseconds otherwise.
    nanos: bool,
    interfaces: Vec<Interface>,
    /// Packets read so far (for messages).
    packets: u64,
    /// The last packet's timestamp (a pcapng simple packet has none of its own).
    last_ts: u64,
}

/// The input as the parser reads it: each read fills the buffer it is given (up to the end of the
/// input; the parser takes a short read for a short file, and a pipe delivers in pieces), and
/// the I/O error met is kept for the message.
struct Filling<R> {
    inner: R,
    error: Arc<Mutex<Option<io::Error>>>,
}

impl<R: Read> Read for Filling<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut got = 0;
        while got < buf.len() {
            match self.inner.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    if let Ok(mut slot) = self.error.lock() {
                        *slot = Some(io::Error::new(e.kind(), e.to_string()));
                    }
                    return Err(e);
                }
            }
        }
        Ok(got)
    }
}

impl Capture {
    /// Reads the capture's header: a pcap file header or a pcapng section header.
    fn open(mut file: File, path: &Path) -> Result<Capture, String> {
        let at = |what: String| format!("{}: {what}", path.display());
        let mut head = [0u8; 4];
        let mut got = 0;
        while got < head.len() {
            match file.read(&mut head[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(at(format!("read failed: {e}"))),
            }
        }
        if got == 0 {
            return Err(at("empty file: expected a pcap or pcapng capture".into()));
        }
        let ng = head == [0x0a, 0x0d, 0x0d, 0x0a];
        let magic = u32::from_le_bytes(head);
        let pcap = [0xa1b2_c3d4u32, 0xa1b2_3c4d].iter().any(|m| magic == *m || magic == m.swap_bytes());
        if got < 4 || !(ng || pcap) {
            let bytes: Vec<String> = head[..got].iter().map(|b| format!("{b:02x}")).collect();
            let what = if got < 4 { "truncated capture: it ends inside the file header" } else { "not a capture" };
            return Err(at(format!(
                "{what} (starts with bytes {}; a pcap capture starts with d4 c3 b2 a1 or 4d 3c b2 a1, \
                 pcapng with 0a 0d 0d 0a)",
                bytes.join(" ")
            )));
        }
        let io_error = Arc::new(Mutex::new(None));
        let source = Filling { inner: io::Cursor::new(head).chain(file), error: io_error.clone() };
        let reader = pcap_parser::create_reader(READ_BUFFER, source).map_err(|e| match e {
            PcapError::Incomplete(_) | PcapError::UnexpectedEof | PcapError::Eof => {
                at("truncated capture: it ends inside the file header".into())
            }
            PcapError::ReadError => at(format!("read failed: {}", take(&io_error))),
            _ => at(format!("malformed {} file header", if ng { "pcapng section" } else { "pcap" })),
        })?;
        let mut c = Capture {
            reader,
            io_error,
            path: path.to_owned(),
            ng,
            nanos: true,
            interfaces: Vec::new(),
            packets: 0,
            last_ts: 0,
        };
        if !ng {
            // The pcap file header is the reader's first block.
            let (len, block) = c.reader.next().map_err(|_| at("malformed pcap file header".into()))?;
            let PcapBlockOwned::LegacyHeader(h) = block else {
                return Err(at("malformed pcap file header".into()));
            };
            if h.network != Linktype::ETHERNET {
                return Err(at(format!(
                    "link type {} is not Ethernet (only Ethernet captures can be coalesced)",
                    h.network.0
                )));
            }
            c.nanos = h.is_nanosecond_precision();
            c.reader.consume(len);
        }
        Ok(c)
    }

    /// Calls `f` with the next packet; `Ok(false)` at the end of the capture.
    fn next_packet(&mut self, mut f: impl FnMut(Packet<'_>)) -> Result<bool, String> {
        loop {
            let before = self.reader.data().len();
            let next = self.reader.next();
            let (len, block) = match next {
                Ok(b) => b,
                Err(PcapError::Eof) => return Ok(false),
                Err(PcapError::Incomplete(_)) => {
                    let exhausted = self.reader.reader_exhausted();
                    if self.reader.refill().is_err() {
                        return Err(self.read_error());
                    }
                    if exhausted || (self.reader.data().len() == before && !self.reader.reader_exhausted()) {
                        return Err(self.truncated());
                    }
                    continue;
                }
                Err(PcapError::UnexpectedEof) => return Err(self.truncated()),
                Err(PcapError::ReadError) => return Err(self.read_error()),
                Err(PcapError::BufferTooSmall) => {
                    return Err(format!(
                        "{}: after packet {}: a record larger than {} KiB (not a capture of Ethernet frames)",
                        self.path.display(),
                        self.packets,
                        READ_BUFFER / 1024
                    ));
                }
                Err(_) => {
                    return Err(format!(
                        "{}: after packet {}: malformed {}",
                        self.path.display(),
                        self.packets,
                        if self.ng { "pcapng block" } else { "pcap record" }
                    ));
                }
            };
            let packet = match block {
                PcapBlockOwned::Legacy(b) => {
                    let frac = u64::from(b.ts_usec) * if self.nanos { 1 } else { 1000 };
                    Some(Packet {
                        ts_ns: u64::from(b.ts_sec) * 1_000_000_000 + frac,
                        data: b.data,
                        orig_len: b.origlen,
                    })
                }
                PcapBlockOwned::LegacyHeader(_) => None,
                PcapBlockOwned::NG(Block::SectionHeader(_)) => {
                    // Interface numbers start again in each section.
                    self.interfaces.clear();
                    None
                }
                PcapBlockOwned::NG(Block::InterfaceDescription(idb)) => {
                    let units = idb.ts_resolution().filter(|u| *u > 0).ok_or_else(|| {
                        format!(
                            "{}: interface {}: timestamp resolution {:#x} is not one pcapng defines",
                            self.path.display(),
                            self.interfaces.len(),
                            idb.if_tsresol
                        )
                    })?;
                    self.interfaces.push(Interface { linktype: idb.linktype, units, offset: idb.if_tsoffset });
                    None
                }
                PcapBlockOwned::NG(Block::EnhancedPacket(epb)) => {
                    let iface = interface(&self.interfaces, &self.path, self.packets, epb.if_id)?;
                    let ticks = (u64::from(epb.ts_high) << 32) | u64::from(epb.ts_low);
                    let ns = i128::from(ticks) * 1_000_000_000 / i128::from(iface.units)
                        + i128::from(iface.offset) * 1_000_000_000;
                    let ts_ns = ns.clamp(0, i128::from(u64::MAX)) as u64;
                    let data = epb.data;
                    Some(Packet { ts_ns, data: &data[..data.len().min(epb.caplen as usize)], orig_len: epb.origlen })
                }
                PcapBlockOwned::NG(Block::SimplePacket(spb)) => {
                    interface(&self.interfaces, &self.path, self.packets, 0)?;
                    // The block holds min(original length, the interface's snap length) bytes.
                    let data = spb.data;
                    Some(Packet {
                        ts_ns: self.last_ts,
                        data: &data[..data.len().min(spb.origlen as usize)],
                        orig_len: spb.origlen,
                    })
                }
                // Statistics, name resolution, comments and the like carry no frame.
                PcapBlockOwned::NG(_) => None,
            };
            let got = packet.is_some();
            if let Some(p) = packet {
                self.packets += 1;
                self.last_ts = p.ts_ns;
                f(p);
            }
            self.reader.consume(len);
            if got {
                return Ok(true);
            }
        }
    }

    fn truncated(&self) -> String {
        format!(
            "{}: truncated capture: it ends inside the {} after packet {}",
            self.path.display(),
            if self.ng { "block" } else { "record" },
            self.packets
        )
    }

    fn read_error(&self) -> String {
        format!("{}: read failed after packet {}: {}", self.path.display(), self.packets, take(&self.io_error))
    }
}

/// The pcapng interface packet `packets + 1` names; it must exist and be Ethernet.
fn interface<'i>(interfaces: &'i [Interface], path: &Path, packets: u64, id: u32) -> Result<&'i Interface, String> {
    let packet = packets + 1;
    let iface = interfaces.get(id as usize).ok_or_else(|| {
        format!("{}: packet {packet}: interface {id} is not described before it (malformed pcapng)", path.display())
    })?;
    if iface.linktype != Linktype::ETHERNET {
        return Err(format!(
            "{}: packet {packet}: interface {id} has link type {}, not Ethernet (only Ethernet frames can be \
             coalesced)",
            path.display(),
            iface.linktype.0
        ));
    }
    Ok(iface)
}

/// The recorded I/O error, in words.
fn take(slot: &Mutex<Option<io::Error>>) -> String {
    slot.lock().ok().and_then(|mut s| s.take()).map_or_else(|| "I/O error".into(), |e| e.to_string())
}

/// The output capture (pcap, Ethernet); the first write error is kept (the SoftLRO callbacks
/// cannot return it).
struct Output<'p> {
    file: BufWriter<File>,
    nanos: bool,
    path: &'p Path,
    error: Option<io::Error>,
}

impl<'p> Output<'p> {
    /// Writes the pcap file header (microsecond or nanosecond magic, little-endian).
    fn new(file: File, path: &'p Path, nanos: bool) -> Result<Self, String> {
        let mut out = Output { file: BufWriter::new(file), nanos, path, error: None };
        let magic: u32 = if nanos { 0xa1b2_3c4d } else { 0xa1b2_c3d4 };
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&magic.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&[0; 8]); // time zone and accuracy: unused
        h.extend_from_slice(&SNAPLEN.to_le_bytes());
        h.extend_from_slice(&u32::from(Linktype::ETHERNET.0 as u16).to_le_bytes());
        out.put(&h);
        out.check()?;
        Ok(out)
    }

    fn put(&mut self, bytes: &[u8]) {
        if self.error.is_none()
            && let Err(e) = self.file.write_all(bytes)
        {
            self.error = Some(e);
        }
    }

    /// Writes one record; `tag` is its timestamp in nanoseconds.
    fn write(&mut self, data: &[u8], orig_len: u32, tag: u64) {
        let div = if self.nanos { 1 } else { 1000 };
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&((tag / 1_000_000_000) as u32).to_le_bytes());
        h[4..8].copy_from_slice(&((tag % 1_000_000_000 / div) as u32).to_le_bytes());
        h[8..12].copy_from_slice(&(data.len() as u32).to_le_bytes());
        h[12..16].copy_from_slice(&orig_len.max(data.len() as u32).to_le_bytes());
        self.put(&h);
        self.put(data);
    }

    /// The first write error, if any, as the message.
    fn check(&mut self) -> Result<(), String> {
        match self.error.take() {
            Some(e) => Err(format!("{}: write failed: {e}", self.path.display())),
            None => Ok(()),
        }
    }

    /// Flushes and syncs everything written (errors reported, not dropped with the buffer).
    fn finish(mut self) -> Result<(), String> {
        self.check()?;
        let fail = |e: io::Error| format!("{}: write failed: {e}", self.path.display());
        self.file.flush().map_err(fail)?;
        let file = self.file.get_ref();
        if file.metadata().is_ok_and(|m| m.is_file()) {
            file.sync_all().map_err(fail)?;
        }
        Ok(())
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
