//! What `fe netdev` watches in the driver's namespace while it runs, every [`EVERY`]:
//!
//! * forwarding: when IPv4 or IPv6 forwarding is on there (for all interfaces or for one of the
//!   driver's), receive coalescing goes off, as Linux's `dev_disable_lro` turns LRO off when a
//!   device starts forwarding (merged frames must not be forwarded), and comes back as it was
//!   when forwarding stops (Linux leaves that to the user; here nobody else could);
//! * the MTU of the driver's interfaces: a TAP's largest MTU is fixed by the kernel (65521) and
//!   cannot be lowered from user space, but the MAC takes frames of at most [`MAX_MTU`] bytes of
//!   IP (a 2048-byte buffer less an Ethernet header with a VLAN tag, the `max_mtu` Linux's
//!   mtk_eth_soc gives its netdevs), so an MTU set above that is put back to [`MAX_MTU`].
//!
//! The `/proc/sys/net` files and the ioctl socket are opened inside the namespace; they keep
//! reading that namespace from any thread.

use super::sys;
use super::tap::plain;
use fe_driver::eth::BUF_SIZE;
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::time::Duration;

/// The largest MTU the driver's interfaces may have: a 2048-byte buffer less the 18 bytes of an
/// Ethernet header with a VLAN tag (2030, as mtk_eth_soc's `max_mtu`).
pub const MAX_MTU: u32 = (BUF_SIZE - 18) as u32;
/// How often the bridge looks.
pub const EVERY: Duration = Duration::from_millis(100);

/// The open sysctl files and the ioctl socket of one namespace.
#[derive(Debug, Default)]
pub struct Watch {
    /// `(sysctl name, open file)`: any reading non-zero means the namespace forwards.
    sysctls: Vec<(String, File)>,
    /// A socket in the namespace, for the interfaces' MTU (none in tests without root).
    mtu: Option<OwnedFd>,
}

/// The sysctls that make the namespace forward on `devs`: `(name, /proc/sys path)`.
#[must_use]
pub fn forwarding_sysctls(devs: &[&str]) -> Vec<(String, String)> {
    let mut v = vec![
        ("net.ipv4.ip_forward".to_string(), "/proc/sys/net/ipv4/ip_forward".to_string()),
        ("net.ipv6.conf.all.forwarding".to_string(), "/proc/sys/net/ipv6/conf/all/forwarding".to_string()),
    ];
    for d in devs {
        for fam in ["ipv4", "ipv6"] {
            v.push((format!("net.{fam}.conf.{d}.forwarding"), format!("/proc/sys/net/{fam}/conf/{d}/forwarding")));
        }
    }
    v
}

impl Watch {
    /// Opens, inside the namespace open as `netns`, the forwarding sysctls of the namespace and
    /// of the interfaces `devs` (those the kernel has: IPv6 may be off) and an ioctl socket.
    pub fn open(netns: &File, devs: &[&str]) -> Result<Watch, String> {
        let wanted = forwarding_sysctls(devs);
        super::ns::in_netns(netns, move || -> Result<Watch, String> {
            let mut sysctls = Vec::new();
            for (name, path) in wanted {
                match File::open(&path) {
                    Ok(f) => sysctls.push((name, f)),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(format!("open {path}: {}", plain(&e))),
                }
            }
            let sock = sys::ioctl_socket().map_err(|e| format!("socket for interface ioctls: {}", plain(&e)))?;
            Ok(Watch { sysctls, mtu: Some(sock) })
        })?
    }

    /// A watch over `(name, file)` pairs standing in for the sysctls (tests), without MTU.
    pub fn from_files(files: &[(&str, &Path)]) -> Result<Watch, String> {
        let mut sysctls = Vec::new();
        for (name, path) in files {
            let f = File::open(path).map_err(|e| format!("open {}: {}", path.display(), plain(&e)))?;
            sysctls.push(((*name).to_string(), f));
        }
        Ok(Watch { sysctls, mtu: None })
    }

    /// The first sysctl that says the namespace forwards (`name = value`), if any.
    pub fn forwarding(&self) -> Result<Option<String>, String> {
        for (name, f) in &self.sysctls {
            let mut buf = [0u8; 16];
            let n = f.read_at(&mut buf, 0).map_err(|e| format!("read {name}: {}", plain(&e)))?;
            let v = String::from_utf8_lossy(&buf[..n]).trim().to_string();
            if !v.is_empty() && v != "0" {
                return Ok(Some(format!("{name} = {v}")));
            }
        }
        Ok(None)
    }

    /// Puts `dev`'s MTU back to [`MAX_MTU`] if it was set above; returns the MTU it had then.
    pub fn clamp_mtu(&self, dev: &str) -> Result<Option<u32>, String> {
        let Some(sock) = &self.mtu else { return Ok(None) };
        let mtu = sys::get_mtu(sock.as_fd(), dev).map_err(|e| format!("MTU of {dev}: {}", plain(&e)))?;
        if mtu <= MAX_MTU {
            return Ok(None);
        }
        sys::set_mtu(sock.as_fd(), dev, MAX_MTU).map_err(|e| format!("set MTU of {dev}: {}", plain(&e)))?;
        Ok(Some(mtu))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_mtu_fills_a_buffer_with_a_tagged_header() {
        assert_eq!(MAX_MTU as usize + 18, BUF_SIZE);
        let names: Vec<String> = forwarding_sysctls(&["fe-gmac0"]).into_iter().map(|(n, _)| n).collect();
        assert!(names.contains(&"net.ipv4.ip_forward".to_string()));
        assert!(names.contains(&"net.ipv6.conf.fe-gmac0.forwarding".to_string()));
    }
}
