//! The one module of `fe netdev` with `unsafe`: the system calls the TAP bridge needs and the
//! standard library does not offer (TUN ioctls, `setns`, `ppoll`, `writev`, `signalfd`,
//! `geteuid`, an interface's MTU), each wrapped in a safe function that owns its file descriptors.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

/// `struct ifreq` as TUNSETIFF reads it: the name, then the flags (the union's first member).
#[repr(C)]
struct IfReq {
    name: [libc::c_char; libc::IFNAMSIZ],
    flags: libc::c_short,
    _pad: [u8; 22],
}

/// `struct ifreq` as SIOCGIFMTU/SIOCSIFMTU use it: the name, then the MTU (an `int`).
#[repr(C)]
struct IfReqMtu {
    name: [libc::c_char; libc::IFNAMSIZ],
    mtu: libc::c_int,
    _pad: [u8; 20],
}

/// The effective user id of this process.
#[must_use]
pub fn euid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// TUNSETIFF: attaches the open TUN/TAP file `fd` to a new interface `name` with `flags`
/// (`IFF_TAP | IFF_NO_PI | ...`); returns the name the kernel gave it.
pub fn tun_set_iff(fd: BorrowedFd<'_>, name: &str, flags: i32) -> io::Result<String> {
    if name.len() >= libc::IFNAMSIZ || name.bytes().any(|b| b == 0 || b == b'/' || b.is_ascii_whitespace()) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("bad interface name {name:?}")));
    }
    let mut req = IfReq { name: [0; libc::IFNAMSIZ], flags: flags as libc::c_short, _pad: [0; 22] };
    for (d, s) in req.name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    // SAFETY: `fd` is an open descriptor for the lifetime of the borrow; TUNSETIFF reads and
    // writes one `struct ifreq`, and `req` is a live, correctly laid out (repr(C), 40 bytes)
    // ifreq that outlives the call.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETIFF, &mut req as *mut IfReq) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    let end = req.name.iter().position(|&c| c == 0).unwrap_or(libc::IFNAMSIZ);
    Ok(req.name[..end].iter().map(|&c| c as u8 as char).collect())
}

/// TUNSETVNETHDRSZ: the size of the virtio-net header in front of every frame.
pub fn tun_set_vnet_hdr_size(fd: BorrowedFd<'_>, size: i32) -> io::Result<()> {
    let mut v: libc::c_int = size;
    // SAFETY: `fd` is open; TUNSETVNETHDRSZ reads one `int` through the pointer, which points
    // at a live local.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETVNETHDRSZ, &mut v as *mut libc::c_int) };
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// TUNSETOFFLOAD: which offloads (`TUN_F_*`) the kernel may use in frames it hands us.
pub fn tun_set_offload(fd: BorrowedFd<'_>, flags: u32) -> io::Result<()> {
    // SAFETY: `fd` is open; TUNSETOFFLOAD takes its argument by value (an unsigned long), no
    // memory is passed.
    let r = unsafe { libc::ioctl(fd.as_raw_fd(), libc::TUNSETOFFLOAD, libc::c_ulong::from(flags)) };
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// A datagram socket for interface ioctls; it belongs to the calling thread's network namespace
/// (for good: ioctls through it reach that namespace's interfaces from any thread).
pub fn ioctl_socket() -> io::Result<OwnedFd> {
    // SAFETY: socket() takes integers by value; a non-negative result is a new descriptor this
    // function alone owns.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by socket() and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

fn mtu_req(name: &str, mtu: i32) -> io::Result<IfReqMtu> {
    if name.len() >= libc::IFNAMSIZ || name.bytes().any(|b| b == 0) {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, format!("bad interface name {name:?}")));
    }
    let mut req = IfReqMtu { name: [0; libc::IFNAMSIZ], mtu, _pad: [0; 20] };
    for (d, s) in req.name.iter_mut().zip(name.bytes()) {
        *d = s as libc::c_char;
    }
    Ok(req)
}

/// SIOCGIFMTU: the MTU of interface `name` in the namespace of socket `sock`.
pub fn get_mtu(sock: BorrowedFd<'_>, name: &str) -> io::Result<u32> {
    let mut req = mtu_req(name, 0)?;
    // SAFETY: `sock` is open; SIOCGIFMTU reads the name from and writes the MTU into one
    // `struct ifreq`; `req` is a live repr(C) ifreq of the kernel's size (40 bytes).
    let r = unsafe { libc::ioctl(sock.as_raw_fd(), libc::SIOCGIFMTU, &mut req as *mut IfReqMtu) };
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(req.mtu.max(0) as u32) }
}

/// SIOCSIFMTU: sets the MTU of interface `name` in the namespace of socket `sock`.
pub fn set_mtu(sock: BorrowedFd<'_>, name: &str, mtu: u32) -> io::Result<()> {
    let mut req = mtu_req(name, i32::try_from(mtu).unwrap_or(i32::MAX))?;
    // SAFETY: as in `get_mtu`; SIOCSIFMTU only reads the ifreq.
    let r = unsafe { libc::ioctl(sock.as_raw_fd(), libc::SIOCSIFMTU, &mut req as *mut IfReqMtu) };
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// Moves the calling thread into the network namespace open as `ns` (a `/run/netns/NAME` file).
pub fn set_netns(ns: BorrowedFd<'_>) -> io::Result<()> {
    // SAFETY: `ns` is an open descriptor; setns only changes the calling thread's namespace.
    let r = unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) };
    if r < 0 { Err(io::Error::last_os_error()) } else { Ok(()) }
}

/// Reads one frame from a non-blocking TUN/TAP descriptor; `Ok(None)` when none is waiting.
pub fn read_frame(fd: BorrowedFd<'_>, buf: &mut [u8]) -> io::Result<Option<usize>> {
    loop {
        // SAFETY: `buf` is a live, writable buffer of `buf.len()` bytes for the whole call and
        // `fd` is open.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(Some(n as usize));
        }
        let e = io::Error::last_os_error();
        match e.kind() {
            io::ErrorKind::WouldBlock => return Ok(None),
            io::ErrorKind::Interrupted => {}
            _ => return Err(e),
        }
    }
}

/// Writes one frame made of `parts` (gathered, one `writev`) to a TUN/TAP descriptor; a TAP
/// takes a whole frame or nothing. Returns the bytes written.
pub fn write_frame(fd: BorrowedFd<'_>, parts: &[&[u8]]) -> io::Result<usize> {
    let mut iov = [libc::iovec { iov_base: std::ptr::null_mut(), iov_len: 0 }; 4];
    if parts.len() > iov.len() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "too many parts"));
    }
    for (v, p) in iov.iter_mut().zip(parts) {
        *v = libc::iovec { iov_base: p.as_ptr() as *mut libc::c_void, iov_len: p.len() };
    }
    loop {
        // SAFETY: the first `parts.len()` iovecs point at live slices that outlive the call;
        // writev only reads through them. `fd` is open.
        let n = unsafe { libc::writev(fd.as_raw_fd(), iov.as_ptr(), parts.len() as libc::c_int) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Blocks SIGINT and SIGTERM for this thread (and threads it starts later) and returns a
/// non-blocking signalfd that becomes readable when one arrives.
pub fn termination_signalfd() -> io::Result<OwnedFd> {
    // SAFETY: `set` is a local sigset_t initialised by sigemptyset before any other use; the
    // calls only read/write that local and the thread's signal mask.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGINT);
        libc::sigaddset(&mut set, libc::SIGTERM);
        let r = libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
        if r != 0 {
            return Err(io::Error::from_raw_os_error(r));
        }
        let fd = libc::signalfd(-1, &set, libc::SFD_NONBLOCK | libc::SFD_CLOEXEC);
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(OwnedFd::from_raw_fd(fd))
    }
}

/// Reads one pending signal from a signalfd; returns its number, `None` when none is pending.
pub fn read_signal(fd: BorrowedFd<'_>) -> io::Result<Option<u32>> {
    let mut info = [0u8; 128];
    match read_frame(fd, &mut info)? {
        Some(n) if n >= 4 => Ok(Some(u32::from_ne_bytes([info[0], info[1], info[2], info[3]]))),
        _ => Ok(None),
    }
}

/// What to wait for on one descriptor in [`wait`].
#[derive(Clone, Copy, Debug)]
pub struct Interest {
    /// The descriptor.
    pub fd: RawFd,
    /// Wait for it to become readable (otherwise it is only watched for errors).
    pub read: bool,
}

/// Waits until one of `fds` is readable (or in error), or `timeout` passes (`None`: forever);
/// fills `ready[i]` and returns how many are ready. A signal interrupting the wait returns 0.
pub fn wait(fds: &[Interest], timeout: Option<Duration>, ready: &mut Vec<bool>) -> io::Result<usize> {
    let mut pfds: Vec<libc::pollfd> = fds
        .iter()
        .map(|i| libc::pollfd { fd: i.fd, events: if i.read { libc::POLLIN } else { 0 }, revents: 0 })
        .collect();
    let ts = timeout.map(|t| libc::timespec {
        tv_sec: t.as_secs().min(i64::MAX as u64) as libc::time_t,
        tv_nsec: libc::c_long::from(t.subsec_nanos() as i32),
    });
    let tsp = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `pfds` is a live array of `pfds.len()` pollfd structs the kernel may write
    // revents into; `tsp` is null or points at a live timespec; the sigmask pointer is null.
    let n = unsafe { libc::ppoll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, tsp, std::ptr::null()) };
    ready.clear();
    if n < 0 {
        let e = io::Error::last_os_error();
        if e.kind() == io::ErrorKind::Interrupted {
            ready.resize(fds.len(), false);
            return Ok(0);
        }
        return Err(e);
    }
    ready.extend(pfds.iter().map(|p| p.revents != 0));
    Ok(n as usize)
}

/// Sets the calling thread's timer slack (how late the kernel may wake a timed wait), so short
/// paced waits are not stretched by the default 50 µs.
pub fn set_timer_slack(ns: u64) {
    // SAFETY: PR_SET_TIMERSLACK takes an integer argument by value and only affects this thread.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0);
    }
}
