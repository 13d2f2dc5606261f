//! TAP interfaces: the driver's netdev on the host side and the peer at the other end of each
//! MAC's simulated wire, both with `IFF_VNET_HDR` and checksum/TSO offloads. The peer behaves
//! like a host with an offloading NIC: its kernel hands over GSO frames and partial checksums,
//! which the bridge cuts and completes in software before they go onto the wire.
//!
//! A TAP is created inside its network namespace: a short-lived thread enters the namespace and
//! opens the TUN device there (the interface belongs to the namespace of the opener), so the
//! interface never appears in the namespace `fe netdev` runs in. The descriptor stays valid in
//! any thread; the interface disappears when it is closed.

use super::sys;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The TUN clone device (`FE_TUN_DEVICE` overrides it, for tests of the error path).
pub const TUN_DEVICE: &str = "/dev/net/tun";

/// Offloads of the driver's netdev: checksum offload and TSO for IPv4 and IPv6.
pub const HOST_OFFLOADS: u32 = libc::TUN_F_CSUM | libc::TUN_F_TSO4 | libc::TUN_F_TSO6;
/// Offloads of the peer: the same, as a NIC with checksum offload and TSO gives its host.
pub const PEER_OFFLOADS: u32 = HOST_OFFLOADS;

/// The TUN device to open: `FE_TUN_DEVICE` or [`TUN_DEVICE`].
#[must_use]
pub fn tun_device() -> PathBuf {
    std::env::var_os("FE_TUN_DEVICE").map_or_else(|| PathBuf::from(TUN_DEVICE), PathBuf::from)
}

/// Opens the TUN device read-write and non-blocking; the error names the path.
pub fn open_tun(path: &Path) -> Result<File, String> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| format!("open {}: {}", path.display(), plain(&e)))
}

/// An I/O error's message without Rust's " (os error N)" suffix.
#[must_use]
pub fn plain(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Which end of a MAC's wire a TAP is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The driver's netdev: virtio-net headers, checksum offload and TSO.
    Host,
    /// The link partner: virtio-net headers, checksum offload and TSO (done by the bridge).
    Peer,
}

/// One open TAP interface.
#[derive(Debug)]
pub struct Tap {
    fd: OwnedFd,
    name: String,
    role: Role,
}

impl Tap {
    /// Creates TAP `name` in the network namespace open as `netns` (a `/run/netns/NAME` file),
    /// configured for `role`. Errors name the step and the interface.
    pub fn create(tun: &Path, netns: &File, name: &str, role: Role) -> Result<Tap, String> {
        let ns = netns.try_clone().map_err(|e| format!("{name}: dup netns fd: {}", plain(&e)))?;
        let tun = tun.to_path_buf();
        // The thread's namespace dies with it; the descriptor it opened keeps its interface
        // in that namespace.
        let file = std::thread::scope(|s| {
            s.spawn(|| -> Result<File, String> {
                sys::set_netns(ns.as_fd()).map_err(|e| format!("setns for {name}: {}", plain(&e)))?;
                open_tun(&tun)
            })
            .join()
            .map_err(|_| format!("{name}: namespace thread failed"))?
        })?;
        let fd: OwnedFd = file.into();
        let flags = libc::IFF_TAP | libc::IFF_NO_PI | libc::IFF_VNET_HDR;
        let got = sys::tun_set_iff(fd.as_fd(), name, flags).map_err(|e| format!("TUNSETIFF {name}: {}", plain(&e)))?;
        let size = super::vnet::HDR_LEN as i32;
        sys::tun_set_vnet_hdr_size(fd.as_fd(), size).map_err(|e| format!("TUNSETVNETHDRSZ {got}: {}", plain(&e)))?;
        let offloads = if role == Role::Host { HOST_OFFLOADS } else { PEER_OFFLOADS };
        sys::tun_set_offload(fd.as_fd(), offloads).map_err(|e| format!("TUNSETOFFLOAD {got}: {}", plain(&e)))?;
        Ok(Tap { fd, name: got, role })
    }

    /// Wraps a descriptor that already carries one frame per read and write: a TAP opened
    /// elsewhere, or a datagram socket standing in for one (the bridge's tests run without root
    /// that way). It should be non-blocking.
    #[must_use]
    pub fn from_fd(fd: OwnedFd, name: &str, role: Role) -> Tap {
        Tap { fd, name: name.to_string(), role }
    }

    /// The interface name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Which end it is.
    #[must_use]
    pub fn role(&self) -> Role {
        self.role
    }

    /// Reads one frame (with its virtio-net header); `Ok(None)` when none waits.
    pub fn read(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        sys::read_frame(self.fd.as_fd(), buf)
    }

    /// Writes one frame gathered from `parts`.
    pub fn write(&self, parts: &[&[u8]]) -> io::Result<usize> {
        sys::write_frame(self.fd.as_fd(), parts)
    }

    /// The descriptor, for waiting on it.
    #[must_use]
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// The descriptor, borrowed.
    #[must_use]
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}
