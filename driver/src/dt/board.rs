//! What the probe found: the `Board` the driver core is brought up with, and the checked way to
//! build one without a device-tree blob.
//!
//! A kernel has its device tree already parsed (the OF API) and builds a [`Board`] from it:
//! [`Board::new`] (or [`Board::init`] into a slot the caller owns) with the Ethernet node's own
//! facts, then [`Board::add_mac`] per `mac@N` and [`Board::add_switch_port`] per DSA user
//! port. Each step applies the checks `dt::probe` applies to a blob (the probe itself is
//! built on these steps), so a hand-built board is as valid as a probed one.

use super::error::{Need, ProbeError, ProbeErrorKind as K};
use super::path::NodePath;
use core::mem::MaybeUninit;
use fe_regs::{SocInfo, Space};

/// Most MACs a frame engine has (`mac@N` with N < 3).
pub const MAX_MACS: usize = 3;
/// Most switch user ports the platform records.
pub const MAX_PORTS: usize = 16;
/// Most interrupt lines recorded.
pub const MAX_IRQS: usize = 8;
/// Most syscon spaces one board names (ETHSYS, one SGMIISYS per MAC, INFRACFG, ...).
pub const MAX_SPACES: usize = 6;

/// A syscon space the device tree locates: the node a phandle property of the Ethernet node
/// names (the SoC's data says which property and which phandle of it), and that node's `reg`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpaceAt<'a> {
    /// The space (generated id).
    pub space: Space,
    /// Path of the syscon node.
    pub path: NodePath<'a>,
    /// The syscon's registers.
    pub reg: Region,
}

/// Which interrupt line does what: by `interrupt-names` when the node has them and the SoC
/// names its lines (capability `irq.names`), else by the SoC's indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IrqLines {
    /// Index (in `interrupts`) of the TX line (the shared line on a one-line SoC).
    pub tx: u8,
    /// Index of the RX line.
    pub rx: u8,
    /// The indices came from `interrupt-names`.
    pub by_name: bool,
}

impl IrqLines {
    /// The SoC's indices (the fallback without `interrupt-names`).
    #[must_use]
    pub fn by_index(soc: &SocInfo) -> Self {
        let (tx, rx) = match soc.caps.irq.layout {
            fe_regs::caps::IrqLayout::Shared { line } => (line, line),
            fe_regs::caps::IrqLayout::Split { tx, rx } => (tx, rx),
        };
        IrqLines { tx, rx, by_name: false }
    }
}
/// Link speeds (Mbit/s) a MAC or switch port can run at.
pub const SPEEDS: &[u32] = &[10, 100, 1000, 2500, 5000, 10000];
/// Ports a DSA switch of unknown model may have (Linux's `DSA_MAX_PORTS`).
pub const DSA_MAX_PORTS: u32 = 12;

/// An address range from a `reg` property.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Region {
    /// Physical base address.
    pub base: u64,
    /// Size in bytes.
    pub size: u64,
}

/// Duplex of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Duplex {
    /// Full duplex.
    Full,
    /// Half duplex.
    Half,
}

/// How a MAC's link is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Link<'a> {
    /// A fixed link (to a switch CPU port, usually).
    Fixed {
        /// Speed in Mbit/s.
        speed: u32,
        /// Duplex.
        duplex: Duplex,
        /// Symmetric pause.
        pause: bool,
    },
    /// A PHY on MDIO (`phy-handle`); speed is known at link-up.
    Phy {
        /// Path of the PHY node.
        phy: NodePath<'a>,
    },
    /// An SFP cage or in-band status; speed is known at link-up.
    InBand,
    /// Nothing says; speed is known at link-up.
    Unknown,
}

impl Link<'_> {
    /// The speed if the device tree fixes it.
    #[must_use]
    pub fn fixed_speed(&self) -> Option<u32> {
        match *self {
            Link::Fixed { speed, .. } => Some(speed),
            _ => None,
        }
    }
}

/// One `mac@N` node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacConfig<'a> {
    /// MAC id (`reg`).
    pub id: u8,
    /// Node path.
    pub path: NodePath<'a>,
    /// `status` is okay, and the SoC can drive its phy mode (see [`Board::warnings`]).
    pub enabled: bool,
    /// `phy-mode` (or `phy-connection-type`); empty for a disabled MAC without one.
    pub phy_mode: &'a str,
    /// The link.
    pub link: Link<'a>,
    /// Path of the SFP cage, if any.
    pub sfp: Option<NodePath<'a>>,
    /// `managed = "in-band-status"`.
    pub in_band: bool,
    /// TX queue of traffic sent directly on this MAC (= id; never shaped).
    pub queue: u8,
    /// Disabled by the probe: the SoC cannot drive `phy_mode` (see [`Board::warnings`]).
    pub unsupported_mode: bool,
    /// The phy mode came from the legacy `phy-connection-type` property.
    legacy_mode_property: bool,
}

/// Whether a switch port's QDMA queue is rate-limited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shaping {
    /// Not shaped: the port is at least as fast as its conduit MAC, or shares the MAC's queue.
    Unshaped,
    /// Shaped to the port's speed (slower than the conduit MAC).
    Shaped {
        /// Max rate in Mbit/s.
        speed: u32,
    },
    /// The speed is unknown until link-up; decided then.
    AtLinkUp,
}

/// A DSA switch user port behind one of the MACs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwitchPort<'a> {
    /// `label` (or the node name).
    pub label: &'a str,
    /// Port number (`reg`).
    pub port: u32,
    /// Node path.
    pub path: NodePath<'a>,
    /// MAC id of the conduit (the CPU port's `ethernet`).
    pub conduit_mac: u8,
    /// Speed if known from the device tree (`fixed-link` or `max-speed`).
    pub speed: Option<u32>,
    /// QDMA TX queue: port + 3, or the conduit MAC's queue when that is past the SoC's queues.
    pub queue: u8,
    /// Rate limiting decision.
    pub shaping: Shaping,
}

/// An interrupt of the Ethernet node, as its specifier cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct IrqSpec {
    /// Specifier cells (`#interrupt-cells` of the parent, at most 4).
    pub cells: [u32; 4],
    /// How many cells are used.
    pub ncells: u8,
}

impl IrqSpec {
    /// The interrupt number: the second cell for 3-cell GIC specifiers, else the first.
    #[must_use]
    pub fn number(&self) -> u32 {
        if self.ncells >= 3 { self.cells[1] } else { self.cells[0] }
    }
}

/// The Ethernet node's own facts, the first step of building a [`Board`] by hand.
#[derive(Clone, Copy, Debug)]
pub struct EthNode<'a> {
    /// A compatible string of the node; it selects the SoC (`mediatek,mt7621-eth`).
    pub compatible: &'a str,
    /// The node's path (for messages).
    pub path: NodePath<'a>,
    /// Frame-engine registers (`reg`): at least the extent of the SoC's register map.
    pub reg: Region,
    /// Path of the ETHSYS syscon (`mediatek,ethsys`).
    pub ethsys_path: NodePath<'a>,
    /// ETHSYS registers.
    pub ethsys_reg: Region,
}

/// One `mac@N` for [`Board::add_mac`].
#[derive(Clone, Copy, Debug)]
pub struct NewMac<'a> {
    /// MAC id (`reg`), below the SoC's MAC count.
    pub id: u32,
    /// Node path (for messages).
    pub path: NodePath<'a>,
    /// `status` is okay.
    pub enabled: bool,
    /// `phy-mode`; required when enabled.
    pub phy_mode: Option<&'a str>,
    /// The link.
    pub link: Link<'a>,
    /// Path of the SFP cage, if any.
    pub sfp: Option<NodePath<'a>>,
    /// `managed = "in-band-status"`.
    pub in_band: bool,
}

/// One DSA switch user port for [`Board::add_switch_port`].
#[derive(Clone, Copy, Debug)]
pub struct NewPort<'a> {
    /// `label` (or the node name).
    pub label: &'a str,
    /// Port number (`reg`), below `switch_ports`.
    pub port: u64,
    /// How many ports the switch has (7 for MT7530/MT7531).
    pub switch_ports: u32,
    /// Node path (for messages).
    pub path: NodePath<'a>,
    /// MAC id of the conduit; must be an enabled MAC of the board.
    pub conduit_mac: u8,
    /// Speed if known (`fixed-link` or `max-speed`).
    pub speed: Option<u32>,
}

/// Register windows narrower than the SoC's map that upstream device trees give and Linux
/// works with, by compatible: MT7621's `reg = <0x1e100000 0x10000>` leaves out the MDIO and
/// GMAC registers at 0x10000..0x10210 (MIPS reaches them through the unmapped KSEG1 segment,
/// so Linux never notices). A platform that maps `reg` page by page must map [`fe_extent`].
/// Listed in `dts/README.md`; anything smaller is refused.
pub const NARROW_WINDOWS: &[(&str, u64)] = &[("mediatek,mt7621-eth", 0x10000)];

/// The smallest `reg` size the probe accepts for `compatible` on `soc`: the map's extent, or
/// the accepted upstream window of [`NARROW_WINDOWS`].
#[must_use]
pub fn min_window(soc: &SocInfo, compatible: &str) -> u64 {
    let extent = fe_extent(soc);
    NARROW_WINDOWS.iter().find(|(c, _)| *c == compatible).map_or(extent, |&(_, w)| w.min(extent))
}

/// The bytes of the frame-engine window the driver uses: one past the SoC's highest register,
/// or past the descriptor rings it keeps in the engine's SRAM (capability `rings: {sram}`,
/// laid out by the ring module) when those end later.
#[must_use]
pub fn fe_extent(soc: &SocInfo) -> u64 {
    map_extent(soc).max(crate::ring::sram::SramLayout::of(soc).map_or(0, |l| l.end()))
}

/// The bytes the SoC's frame-engine register map spans: one past its highest register.
fn map_extent(soc: &SocInfo) -> u64 {
    soc.registers
        .iter()
        .filter(|r| r.space == Space::Fe)
        .map(|r| u64::from(r.offset) + u64::from(r.stride) * u64::from(r.count.max(1) - 1) + 4)
        .max()
        .unwrap_or(0)
}

/// Everything the probe learned about the board's frame engine.
///
/// Read its fields; build one with `dt::probe`, [`Board::new`] or [`Board::init`] (the
/// struct is `#[non_exhaustive]`, so it is never assembled unchecked).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Board<'a> {
    /// The SoC, from the generated table.
    pub soc: &'static SocInfo,
    /// The compatible string that matched.
    pub compatible: &'a str,
    /// Path of the Ethernet node.
    pub path: NodePath<'a>,
    /// Frame-engine registers.
    pub reg: Region,
    /// Interrupts in device-tree order.
    pub irqs: [IrqSpec; MAX_IRQS],
    /// Number of interrupts.
    pub nirqs: u8,
    /// Path of the ETHSYS syscon.
    pub ethsys_path: NodePath<'a>,
    /// ETHSYS registers.
    pub ethsys_reg: Region,
    /// Which interrupt line does what.
    pub irq_lines: IrqLines,
    /// Syscon spaces found (ETHSYS first), by the SoC's `dt:` locations.
    pub spaces: [Option<SpaceAt<'a>>; MAX_SPACES],
    /// MACs by id.
    pub macs: [Option<MacConfig<'a>>; MAX_MACS],
    /// Switch user ports (first `nports` entries).
    pub ports: [Option<SwitchPort<'a>>; MAX_PORTS],
    /// Number of switch user ports.
    pub nports: u8,
}

impl<'a> Board<'a> {
    /// Checks the Ethernet node's facts (a compatible some SoC claims, a register window that
    /// spans the SoC's map, the SoC's number of interrupts) and gives a board without MACs or
    /// ports.
    pub fn new(node: EthNode<'a>, irqs: &[IrqSpec]) -> Result<Self, ProbeError<'a>> {
        let soc = Self::check_node(&node, irqs)?;
        Ok(Self::empty(soc, &node, irqs))
    }

    /// [`Board::new`] into `out`, written in place.
    #[cfg(feature = "fdt")]
    pub(crate) fn new_in(out: &mut Result<Self, ProbeError<'a>>, node: EthNode<'a>, irqs: &[IrqSpec]) {
        match Self::check_node(&node, irqs) {
            Ok(soc) => *out = Ok(Self::empty(soc, &node, irqs)),
            Err(e) => *out = Err(e),
        }
    }

    /// [`Board::new`] into `slot`, which the caller owns (a kernel keeps a board in memory it
    /// allocated, not on its 16 KiB stack); gives the board written there.
    pub fn init<'s>(
        slot: &'s mut MaybeUninit<Board<'a>>,
        node: EthNode<'a>,
        irqs: &[IrqSpec],
    ) -> Result<&'s mut Board<'a>, ProbeError<'a>> {
        let soc = Self::check_node(&node, irqs)?;
        Ok(slot.write(Self::empty(soc, &node, irqs)))
    }

    fn check_node(node: &EthNode<'a>, irqs: &[IrqSpec]) -> Result<&'static SocInfo, ProbeError<'a>> {
        let soc = fe_regs::by_compatible(node.compatible).ok_or(ProbeError::at(
            node.path,
            Some("compatible"),
            K::UnknownCompatible(node.compatible),
        ))?;
        let need = min_window(soc, node.compatible);
        // A window that holds the register map but not the SRAM rings is said in those words.
        if node.reg.size < need.min(map_extent(soc)) {
            return Err(ProbeError::at(node.path, Some("reg"), K::RegTooSmall { size: node.reg.size, need }));
        }
        if let Err(e) = crate::ring::sram::places(soc, node.reg.base, node.reg.size) {
            return Err(ProbeError::at(node.path, Some("reg"), K::SramRings(e)));
        }
        if node.reg.size < need {
            return Err(ProbeError::at(node.path, Some("reg"), K::RegTooSmall { size: node.reg.size, need }));
        }
        let expected = soc.caps.irq.lines;
        if irqs.len() != usize::from(expected) || irqs.len() > MAX_IRQS {
            return Err(ProbeError::at(
                node.path,
                Some("interrupts"),
                K::WrongIrqCount { expected, found: irqs.len() },
            ));
        }
        Ok(soc)
    }

    /// A board with no MACs or ports yet (inlined, and the constant tables last, so that the
    /// caller's place is written directly: a probe runs on a kernel stack).
    #[inline(always)]
    fn empty(soc: &'static SocInfo, node: &EthNode<'a>, list: &[IrqSpec]) -> Self {
        let mut irqs = [IrqSpec::default(); MAX_IRQS];
        for (slot, i) in irqs.iter_mut().zip(list) {
            *slot = *i;
        }
        Board {
            soc,
            compatible: node.compatible,
            path: node.path,
            reg: node.reg,
            irqs,
            nirqs: list.len().min(MAX_IRQS) as u8,
            ethsys_path: node.ethsys_path,
            ethsys_reg: node.ethsys_reg,
            irq_lines: IrqLines::by_index(soc),
            spaces: Self::ethsys_space(soc, node),
            nports: 0,
            macs: [None; MAX_MACS],
            ports: [None; MAX_PORTS],
        }
    }

    /// The ETHSYS syscon of `node` as the first space (the space the SoC locates by
    /// `mediatek,ethsys`, the binding's required syscon).
    fn ethsys_space(soc: &SocInfo, node: &EthNode<'a>) -> [Option<SpaceAt<'a>>; MAX_SPACES] {
        let mut spaces = [None; MAX_SPACES];
        if let Some(loc) = soc.spaces.iter().find(|l| l.property == "mediatek,ethsys" && l.index == 0) {
            spaces[0] = Some(SpaceAt { space: loc.space, path: node.ethsys_path, reg: node.ethsys_reg });
        }
        spaces
    }

    /// Adds (or replaces) a syscon space the device tree locates.
    pub fn add_space(&mut self, at: SpaceAt<'a>) -> Result<(), ProbeError<'a>> {
        let slot = match self.spaces.iter().position(|s| s.is_some_and(|s| s.space == at.space)) {
            Some(i) => i,
            None => self.spaces.iter().position(Option::is_none).ok_or(ProbeError::at(
                at.path,
                None,
                K::BadValue("more syscon spaces than the driver keeps"),
            ))?,
        };
        self.spaces[slot] = Some(at);
        Ok(())
    }

    /// Where the device tree put syscon space `space`, if it names it.
    #[must_use]
    pub fn space(&self, space: Space) -> Option<&SpaceAt<'a>> {
        self.spaces.iter().flatten().find(|s| s.space == space)
    }

    /// The syscon spaces the device tree names.
    pub fn syscons(&self) -> impl Iterator<Item = &SpaceAt<'a>> {
        self.spaces.iter().flatten()
    }

    /// Why the board needs `space`, if it does: the first capability every board uses
    /// (`cold_reset`, `rx_checksum`, `shaper`) or enabled MAC's path setup that writes to it.
    #[must_use]
    pub fn needs(&self, space: Space) -> Option<Need> {
        let c = &self.soc.caps;
        for (name, s) in [
            ("cold_reset", c.cold_reset.reg.space),
            ("rx_checksum", c.rx_checksum.reg.space),
            ("shaper", c.shaper.reg.space),
        ] {
            if s == space {
                return Some(Need::Capability(name));
            }
        }
        self.enabled_macs().find_map(|m| {
            let modes = c.macs.get(usize::from(m.id))?.phy_modes;
            let mode = modes.iter().copied().find(|x| *x == m.phy_mode)?;
            let p = c.path_setup_for(m.id, mode)?;
            p.writes.iter().any(|w| w.space == space).then_some(Need::Path { mac: m.id, mode })
        })
    }

    /// Checks that every syscon space the board needs (a capability, or the path setup of an
    /// enabled MAC's phy mode) is located; the error names the Ethernet node and the property.
    pub fn check_spaces(&self) -> Result<(), ProbeError<'a>> {
        for loc in self.soc.spaces.iter().filter(|l| !l.is_own_reg()) {
            if self.space(loc.space).is_none()
                && let Some(needed_by) = self.needs(loc.space)
            {
                return Err(ProbeError::at(
                    self.path,
                    Some(loc.property),
                    K::MissingSpace { space: loc.space.name(), needed_by },
                ));
            }
        }
        Ok(())
    }

    /// Adds a MAC: its id must be one of the SoC's and not taken (an enabled MAC replaces a
    /// disabled one of the same id), an enabled MAC needs a phy mode, and a fixed link a real
    /// speed. An enabled MAC whose phy mode the SoC does not
    /// list is kept disabled, with a warning (Linux binds such a board; phylink only warns).
    pub fn add_mac(&mut self, mac: NewMac<'a>) -> Result<(), ProbeError<'a>> {
        self.add_mac_as(mac, "phy-mode")
    }

    /// [`Board::add_mac`], naming `mode_prop` (`phy-mode` or `phy-connection-type`) in messages.
    pub(crate) fn add_mac_as(&mut self, mac: NewMac<'a>, mode_prop: &'a str) -> Result<(), ProbeError<'a>> {
        let nmacs = self.soc.caps.macs.len().min(MAX_MACS);
        let Some(id) = usize::try_from(mac.id).ok().filter(|&i| i < nmacs) else {
            return Err(ProbeError::at(mac.path, Some("reg"), K::MacOutOfRange { reg: mac.id, macs: nmacs }));
        };
        // A disabled MAC does not hold its id against an enabled one (Linux never reads it).
        if self.macs[id].is_some_and(|m| m.enabled || !mac.enabled) {
            return Err(ProbeError::at(mac.path, Some("reg"), K::DuplicateMac(mac.id)));
        }
        if let Link::Fixed { speed, .. } = mac.link
            && !SPEEDS.contains(&speed)
        {
            return Err(ProbeError::at(mac.path, Some("fixed-link"), K::BadSpeed(speed)));
        }
        let allowed = self.soc.caps.macs[id].phy_modes;
        let mut enabled = mac.enabled;
        let mut unsupported_mode = false;
        let phy_mode = match mac.phy_mode {
            Some(m) if enabled && !allowed.contains(&m) => {
                // Kept, disabled, and reported by `warnings()`.
                unsupported_mode = true;
                enabled = false;
                m
            }
            Some(m) => m,
            None if enabled => return Err(ProbeError::at(mac.path, Some("phy-mode"), K::MissingProperty)),
            None => "",
        };
        let id = id as u8;
        self.macs[usize::from(id)] = Some(MacConfig {
            id,
            path: mac.path,
            enabled,
            phy_mode,
            link: mac.link,
            sfp: mac.sfp,
            in_band: mac.in_band,
            queue: id,
            unsupported_mode,
            legacy_mode_property: mode_prop == "phy-connection-type",
        });
        Ok(())
    }

    /// Adds a switch user port behind `conduit_mac`: the port number must be one of the
    /// switch's, the conduit an enabled MAC, a known speed a real one. Gives it queue
    /// port + 3 (the conduit's queue when that is past the SoC's queues) and decides its
    /// shaping: shaped only when its speed is known and slower than the conduit's fixed link.
    pub fn add_switch_port(&mut self, port: NewPort<'a>) -> Result<(), ProbeError<'a>> {
        let ports = port.switch_ports.min(u32::MAX - 3);
        let Some(number) = u32::try_from(port.port).ok().filter(|&n| n < ports) else {
            return Err(ProbeError::at(
                port.path,
                Some("reg"),
                K::PortOutOfRange { port: port.port, ports: port.switch_ports },
            ));
        };
        let Some(conduit) = self.enabled_macs().find(|m| m.id == port.conduit_mac).copied() else {
            return Err(ProbeError::at(port.path, None, K::ConduitNotEnabled(port.conduit_mac)));
        };
        if let Some(s) = port.speed
            && !SPEEDS.contains(&s)
        {
            return Err(ProbeError::at(port.path, Some("max-speed"), K::BadSpeed(s)));
        }
        let n = usize::from(self.nports);
        if n >= MAX_PORTS {
            return Err(ProbeError::at(port.path, None, K::TooManyPorts));
        }
        let queues = u32::from(self.soc.caps.tx_queues);
        let (queue, own_queue) = match number + 3 {
            q if q < queues => (q as u8, true),
            _ => (conduit.queue, false),
        };
        let shaping = match (own_queue, port.speed, conduit.link.fixed_speed()) {
            (false, _, _) => Shaping::Unshaped,
            (true, Some(s), Some(c)) if s < c => Shaping::Shaped { speed: s },
            (true, Some(_), Some(_)) => Shaping::Unshaped,
            _ => Shaping::AtLinkUp,
        };
        self.ports[n] = Some(SwitchPort {
            label: port.label,
            port: number,
            path: port.path,
            conduit_mac: conduit.id,
            speed: port.speed,
            queue,
            shaping,
        });
        self.nports += 1;
        Ok(())
    }

    /// The interrupts.
    #[must_use]
    pub fn irqs(&self) -> &[IrqSpec] {
        self.irqs.get(..usize::from(self.nirqs)).unwrap_or(&self.irqs)
    }
    /// The MACs described in the device tree, by id.
    pub fn macs(&self) -> impl Iterator<Item = &MacConfig<'a>> {
        self.macs.iter().flatten()
    }
    /// The enabled MACs.
    pub fn enabled_macs(&self) -> impl Iterator<Item = &MacConfig<'a>> {
        self.macs().filter(|m| m.enabled)
    }
    /// The switch user ports.
    pub fn switch_ports(&self) -> impl Iterator<Item = &SwitchPort<'a>> {
        self.ports.iter().flatten()
    }
    /// What the board was accepted despite: each a MAC the probe disabled because of the
    /// problem named (a phy mode its SoC does not list; Linux 6.12 binds such boards too).
    pub fn warnings(&self) -> impl Iterator<Item = ProbeError<'a>> + '_ {
        self.macs().filter(|m| m.unsupported_mode).map(|m| {
            let prop = if m.legacy_mode_property { "phy-connection-type" } else { "phy-mode" };
            let allowed = self.soc.caps.macs.get(usize::from(m.id)).map_or(&[][..], |c| c.phy_modes);
            ProbeError::at(m.path, Some(prop), K::UnsupportedPhyMode { mode: m.phy_mode, allowed })
        })
    }
}
