//! What the probe found: the `Board` the driver core is brought up with.

use super::path::NodePath;
use fe_regs::SocInfo;

/// Most MACs a frame engine has (`mac@N` with N < 3).
pub const MAX_MACS: usize = 3;
/// Most switch user ports the platform records.
pub const MAX_PORTS: usize = 16;
/// Most interrupt lines recorded.
pub const MAX_IRQS: usize = 8;

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
pub enum Link {
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
        phy: NodePath,
    },
    /// An SFP cage or in-band status; speed is known at link-up.
    InBand,
    /// Nothing says; speed is known at link-up.
    Unknown,
}

impl Link {
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
    pub path: NodePath,
    /// `status` is okay.
    pub enabled: bool,
    /// `phy-mode` (or `phy-connection-type`).
    pub phy_mode: &'a str,
    /// The link.
    pub link: Link,
    /// Path of the SFP cage, if any.
    pub sfp: Option<NodePath>,
    /// `managed = "in-band-status"`.
    pub in_band: bool,
    /// TX queue of traffic sent directly on this MAC (= id; never shaped).
    pub queue: u8,
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
    pub path: NodePath,
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

/// Everything the probe learned about the board's frame engine.
#[derive(Clone, Copy, Debug)]
pub struct Board<'a> {
    /// The SoC, from the generated table.
    pub soc: &'static SocInfo,
    /// The compatible string that matched.
    pub compatible: &'a str,
    /// Path of the Ethernet node.
    pub path: NodePath,
    /// Frame-engine registers.
    pub reg: Region,
    /// Interrupts in device-tree order.
    pub irqs: [IrqSpec; MAX_IRQS],
    /// Number of interrupts.
    pub nirqs: u8,
    /// Path of the ETHSYS syscon.
    pub ethsys_path: NodePath,
    /// ETHSYS registers.
    pub ethsys_reg: Region,
    /// MACs by id.
    pub macs: [Option<MacConfig<'a>>; MAX_MACS],
    /// Switch user ports (first `nports` entries).
    pub ports: [Option<SwitchPort<'a>>; MAX_PORTS],
    /// Number of switch user ports.
    pub nports: u8,
}

impl<'a> Board<'a> {
    /// The interrupts.
    #[must_use]
    pub fn irqs(&self) -> &[IrqSpec] {
        &self.irqs[..self.nirqs as usize]
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
}
