//! Network namespaces and interface configuration for `fe netdev`, through iproute2's `ip`.
//! A run owns `PREFIX-dut` and `PREFIX-peer`: it creates them, or takes over the ones an earlier
//! run left behind (killed with SIGKILL, say: its control socket no longer answers, which
//! [`super::ctl::Server::bind`] checks first), and deletes both when it ends. Addresses are only
//! ever set inside them.

use std::fs::File;
use std::path::PathBuf;
use std::process::Command;

/// Where `ip netns` keeps its namespaces.
pub const NETNS_DIR: &str = "/run/netns";

/// The namespaces of one run: the driver's side and the link partners' side.
#[derive(Debug)]
pub struct Namespaces {
    /// The namespace of the driver's netdevs (`PREFIX-dut`).
    pub dut: String,
    /// The namespace of the peers (`PREFIX-peer`).
    pub peer: String,
    owned: Vec<String>,
    reused: Vec<String>,
}

/// Longest `--netns-prefix` (the namespace names add `-peer`; the socket path adds `.sock`).
pub const MAX_PREFIX: usize = 32;

/// Runs `ip ARGS`; the error names the command and what `ip` said.
pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip").args(args).output().map_err(|e| format!("run ip: {}", super::tap::plain(&e)))?;
    if out.status.success() {
        Ok(())
    } else {
        let msg = String::from_utf8_lossy(&out.stderr).trim().to_string();
        Err(format!("ip {}: {}", args.join(" "), if msg.is_empty() { out.status.to_string() } else { msg }))
    }
}

/// The file of namespace `name`.
#[must_use]
pub fn path(name: &str) -> PathBuf {
    PathBuf::from(NETNS_DIR).join(name)
}

/// Whether `s` is a usable namespace prefix (letters, digits, `-`, `_`; short enough).
#[must_use]
pub fn valid_prefix(s: &str) -> bool {
    !s.is_empty() && s.len() <= MAX_PREFIX && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Checks a `--netns-prefix`; the error says what a prefix may hold (so no `/` or `..` can lead
/// a namespace or socket path out of its directory).
pub fn check_prefix(s: &str) -> Result<(), String> {
    if valid_prefix(s) {
        Ok(())
    } else {
        Err(format!(
            "bad --netns-prefix {s:?}: 1 to {MAX_PREFIX} characters, letters, digits, - and _ only (it names the \
             namespaces PREFIX-dut and PREFIX-peer and the socket /run/fe/PREFIX.sock)"
        ))
    }
}

/// Runs `f` on a thread that has entered the network namespace open as `netns`; what `f` opens
/// there (sockets, `/proc/sys/net` files) stays in that namespace when used from any thread.
pub fn in_netns<R: Send>(netns: &File, f: impl FnOnce() -> R + Send) -> Result<R, String> {
    let ns = netns.try_clone().map_err(|e| format!("dup netns fd: {}", super::tap::plain(&e)))?;
    std::thread::scope(|s| {
        s.spawn(|| {
            super::sys::set_netns(std::os::fd::AsFd::as_fd(&ns))
                .map_err(|e| format!("setns: {}", super::tap::plain(&e)))?;
            Ok(f())
        })
        .join()
        .map_err(|_| "namespace thread failed".to_string())?
    })
}

impl Namespaces {
    /// Creates `PREFIX-dut` and `PREFIX-peer` with their loopback up, or takes over the ones
    /// left from an earlier run (listed by [`Namespaces::reused`]); either way this run owns them
    /// and deletes them at the end. The caller has made sure no live run uses the prefix.
    pub fn create(prefix: &str) -> Result<Namespaces, String> {
        check_prefix(prefix)?;
        let mut ns = Namespaces {
            dut: format!("{prefix}-dut"),
            peer: format!("{prefix}-peer"),
            owned: Vec::new(),
            reused: Vec::new(),
        };
        for name in [ns.dut.clone(), ns.peer.clone()] {
            if path(&name).exists() {
                ns.reused.push(name.clone());
            } else {
                ip(&["netns", "add", &name])?;
            }
            ns.owned.push(name.clone());
            ip(&["-n", &name, "link", "set", "dev", "lo", "up"])?;
        }
        Ok(ns)
    }

    /// Opens namespace `name` (for `setns`).
    pub fn open(name: &str) -> Result<File, String> {
        let p = path(name);
        File::open(&p).map_err(|e| format!("open {}: {}", p.display(), super::tap::plain(&e)))
    }

    /// Brings interface `dev` in namespace `ns` up.
    pub fn up(ns: &str, dev: &str) -> Result<(), String> {
        ip(&["-n", ns, "link", "set", "dev", dev, "up"])
    }

    /// Adds address `cidr` (IPv4, or IPv6 without duplicate detection) to `dev` in `ns`.
    pub fn add_addr(ns: &str, dev: &str, cidr: &str) -> Result<(), String> {
        if cidr.contains(':') {
            ip(&["-n", ns, "-6", "addr", "add", cidr, "dev", dev, "nodad"])
        } else {
            ip(&["-n", ns, "addr", "add", cidr, "dev", dev])
        }
    }

    /// The namespaces this run owns (deleted by [`Namespaces::remove`]): both of them.
    #[must_use]
    pub fn owned(&self) -> &[String] {
        &self.owned
    }

    /// The namespaces that were already there (left by an earlier run) and were taken over.
    #[must_use]
    pub fn reused(&self) -> &[String] {
        &self.reused
    }

    /// Deletes the namespaces this run owns; returns the errors.
    pub fn remove(&mut self) -> Vec<String> {
        let mut errs = Vec::new();
        for name in self.owned.drain(..) {
            if let Err(e) = ip(&["netns", "del", &name]) {
                errs.push(e);
            }
        }
        errs
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        for e in self.remove() {
            eprintln!("warning: {e}");
        }
    }
}

/// The addresses `--addr` gives MAC `mac`: `(dut, peer)` IPv4 and IPv6, with prefix lengths.
#[must_use]
pub fn addresses(mac: u8) -> [(String, String); 2] {
    [
        (format!("10.77.{mac}.1/24"), format!("10.77.{mac}.2/24")),
        (format!("fd77:0:0:{mac}::1/64"), format!("fd77:0:0:{mac}::2/64")),
    ]
}

/// The IPv4 address `--addr` gives the driver's side of MAC `mac` (its hardware LRO rule).
#[must_use]
pub fn dut_ipv4(mac: u8) -> [u8; 4] {
    [10, 77, mac, 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_addresses() {
        assert!(valid_prefix("fe"));
        assert!(valid_prefix("fe-test_2"));
        assert!(!valid_prefix(""));
        assert!(!valid_prefix("a/b"));
        assert!(!valid_prefix("a b"));
        for bad in ["../../x", "..", "a/b", "", &"x".repeat(MAX_PREFIX + 1)] {
            let e = check_prefix(bad).unwrap_err();
            assert!(e.contains("1 to 32 characters") && e.contains(&format!("{bad:?}")), "{e}");
        }
        assert!(check_prefix(&"x".repeat(MAX_PREFIX)).is_ok());
        assert_eq!(addresses(1)[0], ("10.77.1.1/24".to_string(), "10.77.1.2/24".to_string()));
        assert_eq!(dut_ipv4(2), [10, 77, 2, 1]);
    }
}
