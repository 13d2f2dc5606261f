//! The probe: find the Ethernet node by any compatible string of the generated SoC table, read
//! it, its MACs and the DSA switch ports behind them, and check them against the SoC's
//! capabilities.
//!
//! The board is built through the same checked steps a caller without a blob uses
//! ([`Board::init`], [`Board::add_mac`], [`Board::add_switch_port`]), in place: the probe's
//! frames hold the Ethernet node's small facts, never a second copy of the board.

use super::board::{
    Board, DSA_MAX_PORTS, Duplex, EthNode, IrqLines, IrqSpec, Link, MAX_IRQS, MacConfig, NewMac, NewPort, SPEEDS,
    SpaceAt,
};
use super::error::{ProbeError, ProbeErrorKind as K};
use super::path::NodePath;
use super::props::{self, cells, enabled, opt_str, opt_u32, read_reg, read_u32, strings};
use super::walk::{Flow, Tree, Visit};
use core::mem::MaybeUninit;
use fdt::node::FdtNode;
use fe_regs::SocInfo;

/// Ports of the DSA switches these SoCs are built with, by compatible (Linux's
/// `MT7530_NUM_PORTS`); a switch not listed may have up to [`DSA_MAX_PORTS`].
pub const SWITCH_PORTS: &[(&str, u32)] =
    &[("mediatek,mt7530", 7), ("mediatek,mt7531", 7), ("mediatek,mt7621", 7), ("mediatek,mt7988-switch", 7)];

/// Probes the device tree blob `dtb`.
pub fn probe(dtb: &[u8]) -> Result<Board<'_>, ProbeError<'_>> {
    // One place for the board, filled by a callee and returned as it is: the probe's frames
    // hold no second copy of the board.
    let mut out = Err(ProbeError::blob(K::NoEthernetNode));
    probe_to(dtb, &mut out);
    out
}

#[inline(never)]
fn probe_to<'a>(dtb: &'a [u8], out: &mut Result<Board<'a>, ProbeError<'a>>) {
    let tree = match Tree::parse(dtb) {
        Ok(t) => t,
        Err(e) => {
            *out = Err(e);
            return;
        }
    };
    let found = match find_ethernet(&tree) {
        Ok(f) => f,
        Err(e) => {
            *out = Err(e);
            return;
        }
    };
    Board::new_in(out, found.eth, found.irqs());
    if let Ok(board) = out {
        board.irq_lines = found.lines;
        if let Err(e) = fill(&tree, &found.node, board) {
            *out = Err(e);
        }
    }
}

/// Probes `dtb` into `slot`, which the caller owns (a kernel module's board lives in memory it
/// allocated, not on its stack); gives the board written there.
pub fn probe_into<'a, 's>(
    dtb: &'a [u8],
    slot: &'s mut MaybeUninit<Board<'a>>,
) -> Result<&'s mut Board<'a>, ProbeError<'a>> {
    let tree = Tree::parse(dtb)?;
    let found = find_ethernet(&tree)?;
    let board = Board::init(slot, found.eth, found.irqs())?;
    board.irq_lines = found.lines;
    fill(&tree, &found.node, board)?;
    Ok(board)
}

/// The Ethernet node and the facts read from it (small: no board yet).
struct Found<'t, 'a> {
    node: FdtNode<'t, 'a>,
    eth: EthNode<'a>,
    irqs: [IrqSpec; MAX_IRQS],
    nirqs: usize,
    lines: IrqLines,
}

impl Found<'_, '_> {
    fn irqs(&self) -> &[IrqSpec] {
        self.irqs.get(..self.nirqs).unwrap_or(&self.irqs)
    }
}

fn fill<'a>(tree: &Tree<'a>, node: &FdtNode<'_, 'a>, board: &mut Board<'a>) -> Result<(), ProbeError<'a>> {
    read_spaces(tree, node, board)?;
    read_macs(tree, node, board)?;
    // A syscon the board lacks is an error only now that the MACs (and their phy modes) are known.
    board.check_spaces()?;
    read_switches(tree, board)
}

/// Every syscon space of the SoC that the Ethernet node's properties name: the phandle's node
/// and its `reg`. An absent property (or a shorter list) leaves the space out; a dangling
/// phandle or a bad `reg` is an error.
fn read_spaces<'a>(tree: &Tree<'a>, node: &FdtNode<'_, 'a>, board: &mut Board<'a>) -> Result<(), ProbeError<'a>> {
    for loc in board.soc.spaces.iter().filter(|l| !l.is_own_reg()) {
        let found = props::phandle_target_at(tree, node, board.path, loc.property, usize::from(loc.index))?;
        if let Some((path, syscon, parent)) = found {
            let reg = read_reg(&syscon, parent.as_ref(), path)?;
            board.add_space(SpaceAt { space: loc.space, path, reg })?;
        }
    }
    Ok(())
}

/// Finds the first enabled node whose compatible list names a SoC of the table and reads it.
#[inline(never)]
fn find_ethernet<'t, 'a>(tree: &'t Tree<'a>) -> Result<Found<'t, 'a>, ProbeError<'a>> {
    let mut found: Option<Result<Found<'t, 'a>, ProbeError<'a>>> = None;
    let mut disabled: Option<NodePath<'a>> = None;
    let mut unknown: Option<(NodePath<'a>, &'a str)> = None;
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
                        found = Some(read_node(tree, v, soc, c));
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

fn read_node<'t, 'a>(
    tree: &'t Tree<'a>,
    v: &Visit<'_, 't, 'a>,
    soc: &'static SocInfo,
    compatible: &'a str,
) -> Result<Found<'t, 'a>, ProbeError<'a>> {
    let node = v.node;
    let path = v.path;
    let reg = read_reg(&node, v.parent().as_ref(), path)?;
    let (irqs, nirqs, lines) = read_interrupts(tree, v, soc)?;
    check_clocks(&node, path, soc)?;
    let (ethsys_path, ethsys_node, ethsys_parent) = props::phandle_target(tree, &node, path, "mediatek,ethsys")?
        .ok_or(ProbeError::at(path, Some("mediatek,ethsys"), K::MissingProperty))?;
    let ethsys_reg = read_reg(&ethsys_node, ethsys_parent.as_ref(), ethsys_path)?;
    Ok(Found { node, eth: EthNode { compatible, path, reg, ethsys_path, ethsys_reg }, irqs, nirqs, lines })
}

/// `#interrupt-cells` of the node's interrupt parent (its own `interrupt-parent`, else the
/// nearest ancestor's).
fn interrupt_cells<'a>(tree: &Tree<'a>, v: &Visit<'_, '_, 'a>) -> Result<u32, ProbeError<'a>> {
    let holder = core::iter::once(v.node).chain(v.ancestors()).find(|n| n.property("interrupt-parent").is_some());
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
) -> Result<([IrqSpec; MAX_IRQS], usize, IrqLines), ProbeError<'a>> {
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
    let mut lines = IrqLines::by_index(soc);
    if let Some(prop) = v.node.property("interrupt-names") {
        let bad = || ProbeError::at(path, Some("interrupt-names"), K::BadString);
        let names = strings(prop.value).ok_or_else(bad)?.count();
        if names != count {
            return Err(ProbeError::at(path, Some("interrupt-names"), K::IrqNamesMismatch { irqs: count, names }));
        }
        // Lines the SoC names (Linux looks NETSYS v2+ lines up by name first).
        if let Some(want) = soc.caps.irq.names {
            let find = |name: &'static str, role: &'static str| {
                let at = strings(prop.value).ok_or_else(bad)?.position(|n| n == name);
                at.and_then(|i| u8::try_from(i).ok()).ok_or(ProbeError::at(
                    path,
                    Some("interrupt-names"),
                    K::IrqNameMissing { name, role },
                ))
            };
            lines = IrqLines { tx: find(want.tx, "tx")?, rx: find(want.rx, "rx")?, by_name: true };
        }
    }
    Ok((irqs, count.min(MAX_IRQS), lines))
}

fn check_clocks<'a>(node: &FdtNode<'_, 'a>, path: NodePath<'a>, soc: &SocInfo) -> Result<(), ProbeError<'a>> {
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

fn check_speed<'a>(path: NodePath<'a>, prop: &'a str, speed: u32) -> Result<u32, ProbeError<'a>> {
    if SPEEDS.contains(&speed) { Ok(speed) } else { Err(ProbeError::at(path, Some(prop), K::BadSpeed(speed))) }
}

/// The first child named `name` whose `status` is okay: like Linux's
/// `of_get_available_child_by_name`, a disabled child is not there.
fn available_child<'t, 'a>(
    tree: &Tree<'a>,
    node: &FdtNode<'t, 'a>,
    name: &str,
) -> Result<Option<FdtNode<'t, 'a>>, ProbeError<'a>> {
    for c in node.children().filter(|c| c.name == name) {
        if enabled(&c, tree.path_of(&c))? {
            return Ok(Some(c));
        }
    }
    Ok(None)
}

/// A `fixed-link` subnode (when available), or the legacy 5-cell
/// `fixed-link = <id duplex speed pause asym>`.
fn fixed_link<'a>(
    tree: &Tree<'a>,
    node: &FdtNode<'_, 'a>,
    path: NodePath<'a>,
) -> Result<Option<Link<'a>>, ProbeError<'a>> {
    if let Some(p) = node.property("fixed-link") {
        if p.value.len() != 20 {
            return Err(ProbeError::at(
                path,
                Some("fixed-link"),
                K::BadValue("the legacy form has 5 cells <id duplex speed pause asym-pause>"),
            ));
        }
        let mut c = [0u32; 5];
        for (slot, v) in c.iter_mut().zip(cells(p.value)) {
            *slot = v;
        }
        let speed = check_speed(path, "fixed-link", c[2])?;
        let duplex = if c[1] != 0 { Duplex::Full } else { Duplex::Half };
        return Ok(Some(Link::Fixed { speed, duplex, pause: c[3] != 0 }));
    }
    let Some(sub) = available_child(tree, node, "fixed-link")? else { return Ok(None) };
    let sp = tree.path_of(&sub);
    let speed = check_speed(sp, "speed", read_u32(&sub, sp, "speed")?)?;
    let duplex = if sub.property("full-duplex").is_some() { Duplex::Full } else { Duplex::Half };
    Ok(Some(Link::Fixed { speed, duplex, pause: sub.property("pause").is_some() }))
}

/// Reads every `mac@N` child. A disabled MAC is recorded (as disabled) but never fails the probe:
/// Linux skips unavailable MAC nodes before reading them, so a disabled MAC with a bad property,
/// an id past the SoC's MACs or a duplicate id is kept bare or left out.
fn read_macs<'a>(tree: &Tree<'a>, eth: &FdtNode<'_, 'a>, board: &mut Board<'a>) -> Result<(), ProbeError<'a>> {
    for child in eth.children() {
        let cpath = tree.path_of(&child);
        let is_mac = match child.property("compatible") {
            Some(p) => strings(p.value)
                .ok_or(ProbeError::at(cpath, Some("compatible"), K::BadString))?
                .any(|c| c == "mediatek,eth-mac"),
            None => false,
        };
        if !is_mac {
            continue;
        }
        let on = enabled(&child, cpath)?;
        match read_mac(tree, eth, &child, cpath, on) {
            Ok((mac, mode_prop)) => match board.add_mac_as(mac, mode_prop) {
                Err(e) if on => return Err(e),
                _ => {}
            },
            Err(e) if on => return Err(e),
            Err(_) => {
                if let Ok(reg) = read_reg(&child, Some(eth), cpath) {
                    let id = u32::try_from(reg.base).unwrap_or(u32::MAX);
                    let bare = NewMac {
                        id,
                        path: cpath,
                        enabled: false,
                        phy_mode: None,
                        link: Link::Unknown,
                        sfp: None,
                        in_band: false,
                    };
                    let _ = board.add_mac(bare);
                }
            }
        }
    }
    Ok(())
}

/// One `mac@N` node's properties, and the property its phy mode came from.
fn read_mac<'a>(
    tree: &Tree<'a>,
    eth: &FdtNode<'_, 'a>,
    child: &FdtNode<'_, 'a>,
    cpath: NodePath<'a>,
    on: bool,
) -> Result<(NewMac<'a>, &'static str), ProbeError<'a>> {
    let id = read_reg(child, Some(eth), cpath)?.base;
    let id = u32::try_from(id).unwrap_or(u32::MAX);
    let (mode_prop, mode) = match opt_str(child, cpath, "phy-mode")? {
        Some(m) => ("phy-mode", Some(m)),
        None => ("phy-connection-type", opt_str(child, cpath, "phy-connection-type")?),
    };
    let managed = opt_str(child, cpath, "managed")?;
    let in_band = match managed {
        None | Some("auto") => false,
        Some("in-band-status") => true,
        Some(m) => return Err(ProbeError::at(cpath, Some("managed"), K::BadManaged(m))),
    };
    let phy = props::phandle_target(tree, child, cpath, "phy-handle")?.map(|t| t.0);
    let sfp = props::phandle_target(tree, child, cpath, "sfp")?.map(|t| t.0);
    let link = match (fixed_link(tree, child, cpath)?, phy) {
        (Some(l), _) => l,
        (None, Some(phy)) => Link::Phy { phy },
        (None, None) if sfp.is_some() || in_band => Link::InBand,
        (None, None) => Link::Unknown,
    };
    Ok((NewMac { id, path: cpath, enabled: on, phy_mode: mode, link, sfp, in_band }, mode_prop))
}

/// The speed a switch port is known to run at: `fixed-link`, else `max-speed`.
#[inline(never)]
fn port_speed<'a>(tree: &Tree<'a>, port: &FdtNode<'_, 'a>, path: NodePath<'a>) -> Result<Option<u32>, ProbeError<'a>> {
    if let Some(l) = fixed_link(tree, port, path)? {
        return Ok(l.fixed_speed());
    }
    match opt_u32(port, path, "max-speed")? {
        Some(s) => check_speed(path, "max-speed", s).map(Some),
        None => Ok(None),
    }
}

/// Finds DSA switches whose CPU port points at one of the MACs and records their user ports.
///
/// Each switch is found by a walk of its own and read after that walk has returned, so the
/// phandle lookups of its ports do not nest a second walk inside the first one's recursion
/// (the stack a kernel has for all of it is 16 KiB).
fn read_switches<'a>(tree: &Tree<'a>, board: &mut Board<'a>) -> Result<(), ProbeError<'a>> {
    let mut index = 0usize;
    loop {
        let mut seen = 0usize;
        let mut found = None;
        tree.walk(&mut |v| {
            if !(v.node.name == "ports" || v.node.name == "ethernet-ports") {
                return Flow::Continue;
            }
            let Some(sw) = v.parent() else { return Flow::Continue };
            seen += 1;
            if seen <= index {
                return Flow::SkipChildren;
            }
            found = Some((sw, v.node, v.path));
            Flow::Stop
        });
        let Some((sw, ports, ports_path)) = found else { return Ok(()) };
        index += 1;
        // The switch is the `ports` node's parent; a disabled switch (or ports node) has no
        // ports.
        if enabled(&sw, tree.path_of(&sw))? && enabled(&ports, ports_path)? {
            read_ports(tree, &sw, &ports, board)?;
        }
    }
}

/// Ports the switch `sw` has, from its compatible.
fn switch_ports<'a>(sw: &FdtNode<'_, 'a>, path: NodePath<'a>) -> Result<u32, ProbeError<'a>> {
    let Some(p) = sw.property("compatible") else { return Ok(DSA_MAX_PORTS) };
    let list = strings(p.value).ok_or(ProbeError::at(path, Some("compatible"), K::BadString))?;
    for c in list {
        if let Some((_, n)) = SWITCH_PORTS.iter().find(|(name, _)| *name == c) {
            return Ok(*n);
        }
    }
    Ok(DSA_MAX_PORTS)
}

fn read_ports<'a>(
    tree: &Tree<'a>,
    sw: &FdtNode<'_, 'a>,
    ports: &FdtNode<'_, 'a>,
    board: &mut Board<'a>,
) -> Result<(), ProbeError<'a>> {
    let nports = switch_ports(sw, tree.path_of(sw))?;
    // The conduit: among enabled CPU ports whose `ethernet` is an enabled MAC, the fastest MAC,
    // ties to the lowest MAC id. Every enabled port's number is checked on the way.
    let mut conduit: Option<&MacConfig<'a>> = None;
    for port in ports.children() {
        let ppath = tree.path_of(&port);
        if !enabled(&port, ppath)? {
            continue;
        }
        if port.name.starts_with("port") {
            let number = read_reg(&port, Some(ports), ppath)?.base;
            if number >= u64::from(nports) {
                return Err(ProbeError::at(ppath, Some("reg"), K::PortOutOfRange { port: number, ports: nports }));
            }
        }
        let Some((mac_path, target, parent)) = props::phandle_target(tree, &port, ppath, "ethernet")? else {
            continue;
        };
        let Some(mac) = board.macs.iter().flatten().find(|m| m.path == mac_path) else {
            // A disabled MAC the board left out (see read_macs) is a MAC all the same.
            let is_mac_node = parent.is_some_and(|p| tree.path_of(&p) == board.path)
                && target
                    .property("compatible")
                    .and_then(|c| strings(c.value))
                    .is_some_and(|mut l| l.any(|c| c == "mediatek,eth-mac"));
            if is_mac_node {
                continue;
            }
            return Err(ProbeError::at(ppath, Some("ethernet"), K::NotAMac { node: mac_path }));
        };
        if !mac.enabled {
            continue;
        }
        // Rank: faster fixed link first, then lower MAC id.
        let rank = |m: &MacConfig| (core::cmp::Reverse(m.link.fixed_speed().unwrap_or(0)), m.id);
        conduit = match conduit {
            Some(c) if rank(c) <= rank(mac) => Some(c),
            _ => Some(mac),
        };
    }
    let Some(conduit) = conduit.map(|c| c.id) else { return Ok(()) };
    for port in ports.children() {
        let ppath = tree.path_of(&port);
        if !port.name.starts_with("port")
            || port.property("ethernet").is_some()
            || port.property("link").is_some()
            || !enabled(&port, ppath)?
        {
            continue;
        }
        let number = read_reg(&port, Some(ports), ppath)?.base;
        let label = opt_str(&port, ppath, "label")?.unwrap_or(port.name);
        let speed = port_speed(tree, &port, ppath)?;
        board.add_switch_port(NewPort {
            label,
            port: number,
            switch_ports: nports,
            path: ppath,
            conduit_mac: conduit,
            speed,
        })?;
    }
    Ok(())
}
