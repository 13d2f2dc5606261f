//! The probe: find the Ethernet node by any compatible string of the generated SoC table, read
//! it, its MACs and the DSA switch ports behind them, and check them against the SoC's
//! capabilities.

use super::board::{Board, Duplex, IrqSpec, Link, MAX_IRQS, MAX_MACS, MAX_PORTS, MacConfig, Shaping, SwitchPort};
use super::error::{ProbeError, ProbeErrorKind as K};
use super::path::NodePath;
use super::props::{self, cells, enabled, opt_str, opt_u32, read_reg, read_u32, strings};
use super::walk::{Flow, Tree, Visit};
use fdt::node::FdtNode;
use fe_regs::SocInfo;

/// Link speeds (Mbit/s) a MAC or switch port can run at.
pub const SPEEDS: &[u32] = &[10, 100, 1000, 2500, 5000, 10000];

/// Probes the device tree blob `dtb`.
pub fn probe(dtb: &[u8]) -> Result<Board<'_>, ProbeError<'_>> {
    let tree = Tree::parse(dtb)?;
    find_ethernet(&tree)
}

/// Finds the first enabled node whose compatible list names a SoC of the table and probes it.
fn find_ethernet<'a>(tree: &Tree<'a>) -> Result<Board<'a>, ProbeError<'a>> {
    let mut found: Option<Result<Board<'a>, ProbeError<'a>>> = None;
    let mut disabled: Option<NodePath> = None;
    let mut unknown: Option<(NodePath, &'a str)> = None;
    tree.walk(&mut |v| {
        let Some(p) = v.node.property("compatible") else { return Flow::Continue };
        let Some(list) = strings(p.value) else {
            found = Some(Err(ProbeError::at(v.path, Some("compatible"), K::BadString)));
            return Flow::Stop;
        };
        for c in list {
            if let Some(soc) = fe_regs::by_compatible(c) {
                match enabled(&v.node, v.path) {
                    Ok(true) => {
                        found = Some(probe_node(tree, v, soc, c));
                        return Flow::Stop;
                    }
                    Ok(false) => disabled = disabled.or(Some(v.path)),
                    Err(e) => {
                        found = Some(Err(e));
                        return Flow::Stop;
                    }
                }
                return Flow::SkipChildren;
            }
            if unknown.is_none() && c.starts_with("mediatek,") && c.ends_with("-eth") {
                unknown = Some((v.path, c));
            }
        }
        Flow::Continue
    });
    match (found, disabled, unknown) {
        (Some(r), _, _) => r,
        (None, Some(p), _) => Err(ProbeError::at(p, Some("status"), K::Disabled)),
        (None, None, Some((p, c))) => Err(ProbeError::at(p, Some("compatible"), K::UnknownCompatible(c))),
        (None, None, None) => Err(ProbeError::blob(K::NoEthernetNode)),
    }
}

fn probe_node<'a>(
    tree: &Tree<'a>,
    v: &Visit<'_, '_, 'a>,
    soc: &'static SocInfo,
    compatible: &'a str,
) -> Result<Board<'a>, ProbeError<'a>> {
    let node = v.node;
    let path = v.path;
    let reg = read_reg(&node, v.parent().as_ref(), path)?;
    let (irqs, nirqs) = read_interrupts(tree, v, soc)?;
    check_clocks(&node, path, soc)?;
    let (ethsys_path, ethsys_node, ethsys_parent) = props::phandle_target(tree, &node, path, "mediatek,ethsys")?
        .ok_or(ProbeError::at(path, Some("mediatek,ethsys"), K::MissingProperty))?;
    let ethsys_reg = read_reg(&ethsys_node, ethsys_parent.as_ref(), ethsys_path)?;
    let macs = read_macs(tree, &node, path, soc)?;
    let mut board = Board {
        soc,
        compatible,
        path,
        reg,
        irqs,
        nirqs,
        ethsys_path,
        ethsys_reg,
        macs,
        ports: [None; MAX_PORTS],
        nports: 0,
    };
    read_switches(tree, &mut board)?;
    Ok(board)
}

/// `#interrupt-cells` of the node's interrupt parent (its own `interrupt-parent`, else the
/// nearest ancestor's).
fn interrupt_cells<'a>(tree: &Tree<'a>, v: &Visit<'_, '_, 'a>) -> Result<u32, ProbeError<'a>> {
    let holder = core::iter::once(v.node)
        .chain(v.ancestors.iter().rev().copied())
        .find(|n| n.property("interrupt-parent").is_some());
    let Some(holder) = holder else {
        return Err(ProbeError::at(v.path, Some("interrupt-parent"), K::NoInterruptParent));
    };
    let (ppath, parent, _) = props::phandle_target(tree, &holder, v.path, "interrupt-parent")?
        .ok_or(ProbeError::at(v.path, Some("interrupt-parent"), K::NoInterruptParent))?;
    match opt_u32(&parent, ppath, "#interrupt-cells")? {
        Some(n @ 1..=4) => Ok(n),
        Some(n) => Err(ProbeError::at(ppath, Some("#interrupt-cells"), K::BadCells { value: n })),
        None => Err(ProbeError::at(ppath, Some("#interrupt-cells"), K::NoInterruptParent)),
    }
}

fn read_interrupts<'a>(
    tree: &Tree<'a>,
    v: &Visit<'_, '_, 'a>,
    soc: &SocInfo,
) -> Result<([IrqSpec; MAX_IRQS], u8), ProbeError<'a>> {
    let path = v.path;
    let p = v.node.property("interrupts").ok_or(ProbeError::at(path, Some("interrupts"), K::MissingProperty))?;
    let n = interrupt_cells(tree, v)? as usize;
    if p.value.is_empty() || p.value.len() % (4 * n) != 0 {
        return Err(ProbeError::at(
            path,
            Some("interrupts"),
            K::BadValue("length is not a whole number of interrupt specifiers"),
        ));
    }
    let count = p.value.len() / (4 * n);
    let expected = soc.caps.irq.lines;
    if count != expected as usize {
        return Err(ProbeError::at(path, Some("interrupts"), K::WrongIrqCount { expected, found: count }));
    }
    let mut irqs = [IrqSpec::default(); MAX_IRQS];
    for (i, chunk) in p.value.chunks_exact(4 * n).enumerate().take(MAX_IRQS) {
        let mut spec = IrqSpec { ncells: n as u8, ..IrqSpec::default() };
        for (k, c) in cells(chunk).enumerate() {
            spec.cells[k] = c;
        }
        irqs[i] = spec;
    }
    if let Some(names) = v.node.property("interrupt-names") {
        let names = strings(names.value).ok_or(ProbeError::at(path, Some("interrupt-names"), K::BadString))?.count();
        if names != count {
            return Err(ProbeError::at(path, Some("interrupt-names"), K::IrqNamesMismatch { irqs: count, names }));
        }
    }
    Ok((irqs, count.min(MAX_IRQS) as u8))
}

fn check_clocks<'a>(node: &FdtNode<'_, 'a>, path: NodePath, soc: &SocInfo) -> Result<(), ProbeError<'a>> {
    if soc.caps.clocks.is_empty() {
        return Ok(());
    }
    let p = node.property("clock-names").ok_or(ProbeError::at(path, Some("clock-names"), K::MissingProperty))?;
    let names = strings(p.value).ok_or(ProbeError::at(path, Some("clock-names"), K::BadString))?;
    let mut have = [false; 32];
    for n in names {
        if let Some(i) = soc.caps.clocks.iter().position(|c| *c == n) {
            have[i.min(31)] = true;
        }
    }
    for (i, c) in soc.caps.clocks.iter().enumerate().take(32) {
        if !have[i] {
            return Err(ProbeError::at(path, Some("clock-names"), K::MissingClock(c)));
        }
    }
    Ok(())
}

fn check_speed<'a>(path: NodePath, prop: &'a str, speed: u32) -> Result<u32, ProbeError<'a>> {
    if SPEEDS.contains(&speed) { Ok(speed) } else { Err(ProbeError::at(path, Some(prop), K::BadSpeed(speed))) }
}

/// A `fixed-link` subnode, or the legacy 5-cell `fixed-link = <id duplex speed pause asym>`.
fn fixed_link<'a>(node: &FdtNode<'_, 'a>, path: NodePath) -> Result<Option<Link>, ProbeError<'a>> {
    if let Some(p) = node.property("fixed-link") {
        let c: [u32; 5] = {
            let mut out = [0; 5];
            if p.value.len() != 20 {
                return Err(ProbeError::at(
                    path,
                    Some("fixed-link"),
                    K::BadValue("the legacy form has 5 cells <id duplex speed pause asym-pause>"),
                ));
            }
            for (i, v) in cells(p.value).enumerate() {
                out[i] = v;
            }
            out
        };
        let speed = check_speed(path, "fixed-link", c[2])?;
        let duplex = if c[1] != 0 { Duplex::Full } else { Duplex::Half };
        return Ok(Some(Link::Fixed { speed, duplex, pause: c[3] != 0 }));
    }
    let Some(sub) = node.children().find(|c| c.name == "fixed-link") else { return Ok(None) };
    let sp = path.child("fixed-link");
    let speed = check_speed(sp, "speed", read_u32(&sub, sp, "speed")?)?;
    let duplex = if sub.property("full-duplex").is_some() { Duplex::Full } else { Duplex::Half };
    Ok(Some(Link::Fixed { speed, duplex, pause: sub.property("pause").is_some() }))
}

fn read_macs<'a>(
    tree: &Tree<'a>,
    eth: &FdtNode<'_, 'a>,
    path: NodePath,
    soc: &'static SocInfo,
) -> Result<[Option<MacConfig<'a>>; MAX_MACS], ProbeError<'a>> {
    let mut macs: [Option<MacConfig<'a>>; MAX_MACS] = [None; MAX_MACS];
    for child in eth.children() {
        let cpath = path.child(child.name);
        let is_mac = match child.property("compatible") {
            Some(p) => strings(p.value)
                .ok_or(ProbeError::at(cpath, Some("compatible"), K::BadString))?
                .any(|c| c == "mediatek,eth-mac"),
            None => false,
        };
        if !is_mac {
            continue;
        }
        let id = read_reg(&child, Some(eth), cpath)?.base;
        let nmacs = soc.caps.macs.len().min(MAX_MACS);
        if id >= nmacs as u64 {
            return Err(ProbeError::at(
                cpath,
                Some("reg"),
                K::MacOutOfRange { reg: id.min(u32::MAX as u64) as u32, macs: nmacs },
            ));
        }
        let id = id as usize;
        if macs[id].is_some() {
            return Err(ProbeError::at(cpath, Some("reg"), K::DuplicateMac(id as u32)));
        }
        let on = enabled(&child, cpath)?;
        let (mode_prop, mode) = match opt_str(&child, cpath, "phy-mode")? {
            Some(m) => ("phy-mode", Some(m)),
            None => ("phy-connection-type", opt_str(&child, cpath, "phy-connection-type")?),
        };
        let allowed = soc.caps.macs[id].phy_modes;
        let mode = match mode {
            Some(m) if on && !allowed.contains(&m) => {
                return Err(ProbeError::at(cpath, Some(mode_prop), K::UnsupportedPhyMode { mode: m, allowed }));
            }
            Some(m) => m,
            None if on => return Err(ProbeError::at(cpath, Some("phy-mode"), K::MissingProperty)),
            None => "",
        };
        let managed = opt_str(&child, cpath, "managed")?;
        let in_band = match managed {
            None | Some("auto") => false,
            Some("in-band-status") => true,
            Some(m) => return Err(ProbeError::at(cpath, Some("managed"), K::BadManaged(m))),
        };
        let phy = props::phandle_target(tree, &child, cpath, "phy-handle")?.map(|t| t.0);
        let sfp = props::phandle_target(tree, &child, cpath, "sfp")?.map(|t| t.0);
        let link = match (fixed_link(&child, cpath)?, phy) {
            (Some(l), _) => l,
            (None, Some(phy)) => Link::Phy { phy },
            (None, None) if sfp.is_some() || in_band => Link::InBand,
            (None, None) => Link::Unknown,
        };
        macs[id] = Some(MacConfig {
            id: id as u8,
            path: cpath,
            enabled: on,
            phy_mode: mode,
            link,
            sfp,
            in_band,
            queue: id as u8,
        });
    }
    Ok(macs)
}

/// The speed a switch port is known to run at: `fixed-link`, else `max-speed`.
fn port_speed<'a>(port: &FdtNode<'_, 'a>, path: NodePath) -> Result<Option<u32>, ProbeError<'a>> {
    if let Some(l) = fixed_link(port, path)? {
        return Ok(l.fixed_speed());
    }
    match opt_u32(port, path, "max-speed")? {
        Some(s) => check_speed(path, "max-speed", s).map(Some),
        None => Ok(None),
    }
}

/// Finds DSA switches whose CPU port points at one of the MACs and records their user ports.
fn read_switches<'a>(tree: &Tree<'a>, board: &mut Board<'a>) -> Result<(), ProbeError<'a>> {
    let mut error = None;
    tree.walk(&mut |v| {
        if !(v.path.name() == "ports" || v.path.name() == "ethernet-ports") {
            return Flow::Continue;
        }
        // The switch is the `ports` node's parent; a disabled switch has no ports.
        if let Some(sw) = v.parent() {
            match enabled(&sw, v.path.parent()) {
                Ok(false) => return Flow::SkipChildren,
                Ok(true) => {}
                Err(e) => {
                    error = Some(e);
                    return Flow::Stop;
                }
            }
        }
        if let Err(e) = read_ports(tree, v, board) {
            error = Some(e);
            return Flow::Stop;
        }
        Flow::SkipChildren
    });
    error.map_or(Ok(()), Err)
}

fn read_ports<'a>(tree: &Tree<'a>, v: &Visit<'_, '_, 'a>, board: &mut Board<'a>) -> Result<(), ProbeError<'a>> {
    // The conduit: among enabled CPU ports whose `ethernet` is an enabled MAC, the fastest MAC,
    // ties to the lowest MAC id.
    let mut conduit: Option<&MacConfig<'a>> = None;
    for port in v.node.children() {
        let ppath = v.path.child(port.name);
        if !enabled(&port, ppath)? {
            continue;
        }
        let Some((mac_path, _, _)) = props::phandle_target(tree, &port, ppath, "ethernet")? else { continue };
        let Some(mac) = board.macs.iter().flatten().find(|m| m.path == mac_path && m.enabled) else { continue };
        // Rank: faster fixed link first, then lower MAC id.
        let rank = |m: &MacConfig| (core::cmp::Reverse(m.link.fixed_speed().unwrap_or(0)), m.id);
        conduit = match conduit {
            Some(c) if rank(c) <= rank(mac) => Some(c),
            _ => Some(mac),
        };
    }
    let Some(conduit) = conduit.copied() else { return Ok(()) };
    let queues = board.soc.caps.tx_queues as u32;
    for port in v.node.children() {
        let ppath = v.path.child(port.name);
        if !port.name.starts_with("port")
            || port.property("ethernet").is_some()
            || port.property("link").is_some()
            || !enabled(&port, ppath)?
        {
            continue;
        }
        let number = read_reg(&port, Some(&v.node), ppath)?.base.min(u32::MAX as u64) as u32;
        let label = opt_str(&port, ppath, "label")?.unwrap_or(port.name);
        let speed = port_speed(&port, ppath)?;
        let (queue, own_queue) = match number.checked_add(3) {
            Some(q) if q < queues => (q as u8, true),
            _ => (conduit.queue, false),
        };
        let shaping = match (own_queue, speed, conduit.link.fixed_speed()) {
            (false, _, _) => Shaping::Unshaped,
            (true, Some(s), Some(c)) if s < c => Shaping::Shaped { speed: s },
            (true, Some(_), Some(_)) => Shaping::Unshaped,
            _ => Shaping::AtLinkUp,
        };
        let n = board.nports as usize;
        if n >= MAX_PORTS {
            return Err(ProbeError::at(v.path, None, K::TooManyPorts));
        }
        board.ports[n] =
            Some(SwitchPort { label, port: number, path: ppath, conduit_mac: conduit.id, speed, queue, shaping });
        board.nports += 1;
    }
    Ok(())
}
