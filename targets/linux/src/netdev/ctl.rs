//! The control socket of a running `fe netdev`: a Unix socket under `/run/fe/` (directory 0700,
//! socket 0600, so only root reaches it) taking one request line per connection and answering
//! `ok` or `error: ...` followed by the result. `fe ctl` and `fe stats` are its clients.
//!
//! No client can lock the others out: a connection that has not sent a whole line (ending in a
//! newline, or closed for writing) within [`REQUEST_TIMEOUT`] is answered with an error and
//! closed, and when [`MAX_CONNS`] connections are waiting a new one takes the place of the one
//! that waited longest (which is answered with an error too).

use fe_driver::LroMode;
use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::tap::plain;

/// The directory of the control sockets.
pub const RUN_DIR: &str = "/run/fe";
/// Longest request line.
const MAX_REQUEST: usize = 256;
/// Connections held open at once (a new one evicts the one that waited longest).
pub const MAX_CONNS: usize = 8;
/// How long a client may take to send its request line.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(2);

/// The control socket of the run whose namespaces have prefix `prefix`.
#[must_use]
pub fn socket_path(prefix: &str) -> PathBuf {
    Path::new(RUN_DIR).join(format!("{prefix}.sock"))
}

/// One request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Turn RX checksum offload on or off.
    RxCsum(bool),
    /// Set receive coalescing.
    Lro(LroMode),
    /// Set (or clear) hardware LRO's destination rule 0 of a MAC.
    LroDst {
        /// The MAC.
        mac: u8,
        /// IPv4 destination, or none to clear.
        dst: Option<[u8; 4]>,
    },
    /// Counters, as text or JSON.
    Stats {
        /// JSON instead of text.
        json: bool,
    },
}

/// Parses a request line.
pub fn parse_request(line: &str) -> Result<Request, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let onoff = |w: &str| match w {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("expected on or off, got {w:?}")),
    };
    match words.as_slice() {
        ["rx-csum", w] => onoff(w).map(Request::RxCsum),
        ["lro", "off"] => Ok(Request::Lro(LroMode::Off)),
        ["lro", "soft"] => Ok(Request::Lro(LroMode::Soft)),
        ["lro", "hw"] => Ok(Request::Lro(LroMode::Hw)),
        ["lro", w] => Err(format!("expected off, soft or hw, got {w:?}")),
        ["lro-dst", mac, dst] => {
            let mac = mac.parse::<u8>().map_err(|_| format!("bad MAC id {mac:?}"))?;
            let dst = match *dst {
                "none" => None,
                a => Some(a.parse::<std::net::Ipv4Addr>().map_err(|_| format!("bad IPv4 address {a:?}"))?.octets()),
            };
            Ok(Request::LroDst { mac, dst })
        }
        ["stats"] => Ok(Request::Stats { json: false }),
        ["stats", "json"] => Ok(Request::Stats { json: true }),
        _ => Err(format!("unknown request {line:?}")),
    }
}

/// The line that asks for `r` (the inverse of [`parse_request`]).
#[must_use]
pub fn request_line(r: &Request) -> String {
    match r {
        Request::RxCsum(on) => format!("rx-csum {}", if *on { "on" } else { "off" }),
        Request::Lro(m) => format!("lro {}", crate::run::lro_name(*m)),
        Request::LroDst { mac, dst: None } => format!("lro-dst {mac} none"),
        Request::LroDst { mac, dst: Some(a) } => format!("lro-dst {mac} {}", std::net::Ipv4Addr::from(*a)),
        Request::Stats { json } => if *json { "stats json" } else { "stats" }.to_string(),
    }
}

/// Sends `r` to the socket at `path` and returns the answer's body, or the error it gave. A path
/// in [`RUN_DIR`] must be one [`socket_path`] makes of a valid prefix (see
/// [`super::ns::check_prefix`]): `--netns-prefix ../../x` is refused before anything is opened.
pub fn request(path: &Path, r: &Request) -> Result<String, String> {
    if let Ok(rest) = path.strip_prefix(RUN_DIR) {
        let prefix = rest.to_string_lossy();
        super::ns::check_prefix(prefix.strip_suffix(".sock").unwrap_or(&prefix))?;
    }
    let mut s = UnixStream::connect(path).map_err(|e| {
        let hint = match e.kind() {
            io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused => " (is fe netdev running?)",
            io::ErrorKind::PermissionDenied => " (the control socket is root's)",
            _ => "",
        };
        format!("connect {}: {}{hint}", path.display(), plain(&e))
    })?;
    let io_err = |e: io::Error| format!("{}: {}", path.display(), plain(&e));
    s.set_read_timeout(Some(Duration::from_secs(10))).map_err(io_err)?;
    s.write_all(format!("{}\n", request_line(r)).as_bytes()).map_err(io_err)?;
    s.shutdown(std::net::Shutdown::Write).map_err(io_err)?;
    let mut answer = String::new();
    s.read_to_string(&mut answer).map_err(io_err)?;
    match answer.split_once('\n') {
        Some(("ok", body)) => Ok(body.to_string()),
        _ if answer == "ok" => Ok(String::new()),
        _ => Err(answer.trim_end().strip_prefix("error: ").unwrap_or(answer.trim_end()).to_string()),
    }
}

#[derive(Debug)]
struct Conn {
    stream: UnixStream,
    buf: Vec<u8>,
    since: Instant,
}

/// The listening side, served from the bridge's event loop without blocking it.
#[derive(Debug)]
pub struct Server {
    listener: UnixListener,
    /// Waiting connections, oldest first.
    conns: Vec<Conn>,
    path: PathBuf,
    timeout: Duration,
}

/// Answers `c` (best effort: a client that does not read within 0.5 s loses the answer).
fn answer(c: &mut Conn, text: &str) {
    let _ = c.stream.set_nonblocking(false);
    let _ = c.stream.set_write_timeout(Some(Duration::from_millis(500)));
    let _ = c.stream.write_all(text.as_bytes());
}

impl Server {
    /// Binds the socket at `path` (its directory made 0700 if missing, the socket 0600). A socket
    /// file left by a run that is gone is replaced; one that answers is an error.
    pub fn bind(path: &Path) -> Result<Server, String> {
        if let Some(dir) = path.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| format!("create {}: {}", dir.display(), plain(&e)))?;
        }
        if path.exists() {
            if UnixStream::connect(path).is_ok() {
                return Err(format!("{} is in use: another fe netdev runs with this --netns-prefix", path.display()));
            }
            std::fs::remove_file(path).map_err(|e| format!("remove stale {}: {}", path.display(), plain(&e)))?;
        }
        let listener = UnixListener::bind(path).map_err(|e| format!("bind {}: {}", path.display(), plain(&e)))?;
        let server = Server { listener, conns: Vec::new(), path: path.to_path_buf(), timeout: REQUEST_TIMEOUT };
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| format!("chmod 0600 {}: {}", path.display(), plain(&e)))?;
        server.listener.set_nonblocking(true).map_err(|e| format!("{}: {}", path.display(), plain(&e)))?;
        Ok(server)
    }

    /// The socket's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Descriptors to wait on: the listener and every open connection.
    #[must_use]
    pub fn fds(&self) -> Vec<RawFd> {
        std::iter::once(self.listener.as_raw_fd()).chain(self.conns.iter().map(|c| c.stream.as_raw_fd())).collect()
    }

    /// When the connection that waited longest runs out of time, if any is waiting (the event
    /// loop wakes then to call [`Server::expire`]).
    #[must_use]
    pub fn next_deadline(&self) -> Option<Instant> {
        self.conns.iter().map(|c| c.since + self.timeout).min()
    }

    /// Answers and closes every connection that has not sent its request line in time; returns
    /// how many.
    pub fn expire(&mut self) -> usize {
        self.expire_at(Instant::now())
    }

    /// [`Server::expire`] as of `now`.
    pub fn expire_at(&mut self, now: Instant) -> usize {
        let timeout = self.timeout;
        let before = self.conns.len();
        self.conns.retain_mut(|c| {
            if now.saturating_duration_since(c.since) < timeout {
                return true;
            }
            answer(c, &format!("error: no request line (ending in a newline) within {} s\n", timeout.as_secs_f32()));
            false
        });
        before - self.conns.len()
    }

    /// Accepts waiting clients, reads what they sent, and answers every complete request with
    /// `handle` (`Ok(body)` or `Err(message)`); connections out of time are answered with an
    /// error and closed. Returns how many requests were answered.
    pub fn serve(&mut self, handle: &mut dyn FnMut(Request) -> Result<String, String>) -> usize {
        self.serve_at(Instant::now(), handle)
    }

    /// [`Server::serve`] as of `now`.
    pub fn serve_at(&mut self, now: Instant, handle: &mut dyn FnMut(Request) -> Result<String, String>) -> usize {
        while let Ok((stream, _)) = self.listener.accept() {
            if stream.set_nonblocking(true).is_err() {
                continue;
            }
            if self.conns.len() >= MAX_CONNS {
                let mut oldest = self.conns.remove(0);
                answer(&mut oldest, &format!("error: {MAX_CONNS} connections were waiting; this one waited longest\n"));
            }
            self.conns.push(Conn { stream, buf: Vec::new(), since: now });
        }
        let mut answered = 0;
        let mut keep = Vec::with_capacity(self.conns.len());
        for mut c in self.conns.drain(..) {
            let mut chunk = [0u8; MAX_REQUEST];
            let done = loop {
                match c.stream.read(&mut chunk) {
                    Ok(0) => break true,
                    Ok(n) => {
                        c.buf.extend_from_slice(&chunk[..n]);
                        if c.buf.contains(&b'\n') || c.buf.len() > MAX_REQUEST {
                            break true;
                        }
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break false,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => break true,
                }
            };
            if !done {
                keep.push(c);
                continue;
            }
            let line = String::from_utf8_lossy(&c.buf);
            let line = line.lines().next().unwrap_or("").trim();
            let text = match parse_request(line).and_then(&mut *handle) {
                Ok(body) => format!("ok\n{body}"),
                Err(e) => format!("error: {e}\n"),
            };
            answer(&mut c, &text);
            answered += 1;
        }
        self.conns = keep;
        self.expire_at(now);
        answered
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_round_trip_through_their_lines() {
        for r in [
            Request::RxCsum(true),
            Request::RxCsum(false),
            Request::Lro(LroMode::Off),
            Request::Lro(LroMode::Soft),
            Request::Lro(LroMode::Hw),
            Request::LroDst { mac: 1, dst: Some([10, 77, 1, 1]) },
            Request::LroDst { mac: 0, dst: None },
            Request::Stats { json: false },
            Request::Stats { json: true },
        ] {
            assert_eq!(parse_request(&request_line(&r)), Ok(r));
        }
        assert!(parse_request("rx-csum maybe").unwrap_err().contains("on or off"));
        assert!(parse_request("lro fast").unwrap_err().contains("soft"));
        assert!(parse_request("reboot").unwrap_err().contains("unknown request"));
        assert!(parse_request("lro-dst 0 10.1").unwrap_err().contains("IPv4"));
    }

    #[test]
    fn a_server_answers_clients_and_removes_its_socket() {
        let dir = std::env::temp_dir().join(format!("fe-ctl-test-{}", std::process::id()));
        let path = dir.join("t.sock");
        let mut server = Server::bind(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(Server::bind(&path).unwrap_err().contains("in use"));
        let p = path.clone();
        let client = std::thread::spawn(move || {
            (request(&p, &Request::RxCsum(false)), request(&p, &Request::Stats { json: true }))
        });
        let mut seen = Vec::new();
        let start = Instant::now();
        while seen.len() < 2 && start.elapsed() < Duration::from_secs(10) {
            server.serve(&mut |r| {
                seen.push(r);
                if r == Request::RxCsum(false) { Ok("done\n".into()) } else { Err("no stats here".into()) }
            });
            std::thread::sleep(Duration::from_millis(1));
        }
        let (a, b) = client.join().unwrap();
        assert_eq!(a, Ok("done\n".to_string()));
        assert_eq!(b, Err("no stats here".to_string()));
        drop(server);
        assert!(!path.exists());
        let gone = request(&path, &Request::Stats { json: false }).unwrap_err();
        assert!(gone.contains("is fe netdev running?"), "{gone}");
        let _ = std::fs::remove_dir(&dir);
    }

    /// Reads a client's whole answer (the server has closed its end).
    fn answer_of(s: &mut UnixStream) -> String {
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut a = String::new();
        s.read_to_string(&mut a).unwrap();
        a
    }

    #[test]
    fn idle_clients_lock_nobody_out_and_every_client_gets_an_answer() {
        let dir = std::env::temp_dir().join(format!("fe-ctl-idle-{}", std::process::id()));
        let path = dir.join("t.sock");
        let mut server = Server::bind(&path).unwrap();
        let t0 = Instant::now();
        let mut ok = |_: Request| Ok::<_, String>("counters\n".to_string());
        // MAX_CONNS clients that connect and say nothing, and one that sends no newline.
        let mut idle: Vec<UnixStream> = (0..MAX_CONNS).map(|_| UnixStream::connect(&path).unwrap()).collect();
        assert_eq!(server.serve_at(t0, &mut ok), 0);
        assert_eq!(server.next_deadline(), Some(t0 + REQUEST_TIMEOUT));
        let mut no_newline = UnixStream::connect(&path).unwrap();
        no_newline.write_all(b"stats").unwrap();
        // A client with a request still gets through: it takes the place of the oldest.
        let mut client = UnixStream::connect(&path).unwrap();
        client.write_all(b"stats\n").unwrap();
        let t1 = t0 + Duration::from_millis(1);
        server.serve_at(t1, &mut ok);
        server.serve_at(t1, &mut ok);
        assert_eq!(answer_of(&mut client), "ok\ncounters\n");
        let evicted: Vec<String> = idle.drain(..2).map(|mut s| answer_of(&mut s)).collect();
        for a in &evicted {
            assert!(a.starts_with("error: 8 connections were waiting"), "{a}");
        }
        // Before the timeout nothing else is closed; at it, everyone still waiting is answered.
        assert_eq!(server.expire_at(t0 + REQUEST_TIMEOUT - Duration::from_millis(1)), 0);
        assert_eq!(server.expire_at(t1 + REQUEST_TIMEOUT), MAX_CONNS - 1, "6 idle and the one without a newline");
        assert_eq!(server.next_deadline(), None);
        for mut s in idle.into_iter().chain([no_newline]) {
            let a = answer_of(&mut s);
            assert!(a.starts_with("error: no request line (ending in a newline) within 2 s"), "{a}");
        }
        drop(server);
        let _ = std::fs::remove_dir(&dir);
    }

    #[test]
    fn a_prefix_that_leaves_the_socket_directory_is_refused() {
        for bad in ["../../x", "a/b", "..", &"x".repeat(40)] {
            let e = request(&socket_path(bad), &Request::Stats { json: false }).unwrap_err();
            assert!(e.contains("1 to 32 characters"), "{bad}: {e}");
        }
    }
}
