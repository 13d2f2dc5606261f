//! Probe errors: what is wrong, at which node, in which property.

use super::path::NodePath;
use super::text::Escaped;
use core::fmt;

/// What went wrong while probing a device tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeErrorKind<'a> {
    /// The blob is shorter than its header or its `totalsize` says.
    Truncated {
        /// Bytes needed.
        need: usize,
        /// Bytes present.
        have: usize,
    },
    /// The first word is not the DTB magic `0xd00dfeed`.
    BadMagic(u32),
    /// A DTB version this reader does not understand.
    UnsupportedVersion {
        /// `version` from the header.
        version: u32,
        /// `last_comp_version` from the header.
        last_comp: u32,
    },
    /// A header offset or size points outside the blob or is misaligned.
    BadLayout(&'static str),
    /// The structure block is malformed at a byte offset.
    BadStructure {
        /// What is wrong.
        what: &'static str,
        /// Offset in the structure block.
        offset: usize,
    },
    /// No node has a compatible string of a supported SoC.
    NoEthernetNode,
    /// An Ethernet node whose compatible string no SoC map claims.
    UnknownCompatible(&'a str),
    /// The Ethernet node has `status = "disabled"`.
    Disabled,
    /// A required property is absent.
    MissingProperty,
    /// A property's value has the wrong size or shape.
    BadValue(&'static str),
    /// A string property is not NUL-terminated UTF-8.
    BadString,
    /// `#address-cells`/`#size-cells` outside what this reader supports (1 or 2).
    BadCells {
        /// The property's value.
        value: u32,
    },
    /// `interrupts` has the wrong number of entries for the SoC.
    WrongIrqCount {
        /// Lines the SoC's IRQ layout needs.
        expected: u8,
        /// Entries found.
        found: usize,
    },
    /// `interrupt-names` does not match `interrupts`.
    IrqNamesMismatch {
        /// Entries in `interrupts`.
        irqs: usize,
        /// Names given.
        names: usize,
    },
    /// `interrupt-names` is given but lacks a name the SoC looks its line up by.
    IrqNameMissing {
        /// The name looked for.
        name: &'static str,
        /// What the line is for (`tx`, `rx`).
        role: &'static str,
    },
    /// A syscon the board needs is not named by the Ethernet node's property.
    MissingSpace {
        /// The space (`sgmiisys1`).
        space: &'static str,
        /// What needs it.
        needed_by: Need,
    },
    /// No `interrupt-parent` on the node or its ancestors, or it has no `#interrupt-cells`.
    NoInterruptParent,
    /// A clock the SoC needs is missing from `clock-names`.
    MissingClock(&'static str),
    /// A phandle that no node has.
    DanglingPhandle(u32),
    /// A `mac@N` whose `reg` is not a MAC of this SoC.
    MacOutOfRange {
        /// The `reg` value.
        reg: u32,
        /// MACs the SoC has.
        macs: usize,
    },
    /// Two `mac@N` nodes with the same `reg`.
    DuplicateMac(u32),
    /// A PHY mode the MAC cannot do.
    UnsupportedPhyMode {
        /// The mode given.
        mode: &'a str,
        /// Modes the MAC accepts (from the SoC's YAML).
        allowed: &'static [&'static str],
    },
    /// A link speed that no MAC or switch port can run at.
    BadSpeed(u32),
    /// A `managed` value other than `auto` or `in-band-status`.
    BadManaged(&'a str),
    /// The tree nests deeper than this reader follows.
    TooDeep,
    /// More switch ports than the board table holds.
    TooManyPorts,
    /// A register window smaller than the SoC's register map (a zero size, or `#size-cells = 0`).
    RegTooSmall {
        /// The window's size in bytes.
        size: u64,
        /// The bytes the driver uses ([`crate::dt::board::fe_extent`], or an accepted narrower window).
        need: u64,
    },
    /// The register window cannot hold the SoC's SRAM rings (too small, or above 4 GiB).
    SramRings(crate::error::SramError),
    /// A switch CPU port whose `ethernet` points at a node that is not a MAC of the Ethernet node.
    NotAMac {
        /// The node it points at.
        node: NodePath<'a>,
    },
    /// A switch port number the switch does not have.
    PortOutOfRange {
        /// The `reg` value.
        port: u64,
        /// Ports the switch has.
        ports: u32,
    },
    /// A switch port whose conduit is not an enabled MAC of the board (building by hand).
    ConduitNotEnabled(u8),
}

/// A probe failure: the problem, the node path and, where it applies, the property.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeError<'a> {
    /// What is wrong.
    pub kind: ProbeErrorKind<'a>,
    /// The node it is about (`/` for blob-level errors).
    pub path: NodePath<'a>,
    /// The property it is about, if any.
    pub property: Option<&'a str>,
}

impl<'a> ProbeError<'a> {
    /// An error about `property` of the node at `path`.
    #[must_use]
    pub fn at(path: NodePath<'a>, property: Option<&'a str>, kind: ProbeErrorKind<'a>) -> Self {
        ProbeError { kind, path, property }
    }

    /// A blob-level error (no node).
    #[must_use]
    pub fn blob(kind: ProbeErrorKind<'a>) -> Self {
        ProbeError { kind, path: NodePath::root(), property: None }
    }
}

struct Supported;

impl fmt::Display for Supported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for soc in fe_regs::SOCS.iter() {
            for c in soc.compatible {
                if !first {
                    f.write_str(", ")?;
                }
                first = false;
                write!(f, "\"{c}\"")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for ProbeErrorKind<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ProbeErrorKind::*;
        match *self {
            Truncated { need, have } => write!(f, "device tree is truncated: needs {need} bytes, has {have}"),
            BadMagic(m) => write!(f, "not a device tree blob: magic is {m:#010x}, expected 0xd00dfeed"),
            UnsupportedVersion { version, last_comp } => {
                write!(
                    f,
                    "unsupported DTB version {version} (compatible with {last_comp}); versions 16 and 17 are read"
                )
            }
            BadLayout(what) => write!(f, "malformed device tree header: {what}"),
            BadStructure { what, offset } => write!(f, "malformed device tree structure at offset {offset:#x}: {what}"),
            NoEthernetNode => write!(f, "no Ethernet node with a supported compatible string; supported: {Supported}"),
            UnknownCompatible(c) => {
                write!(f, "unknown Ethernet compatible \"{}\"; supported: {Supported}", Escaped(c))
            }
            Disabled => write!(f, "the Ethernet node is disabled (status = \"disabled\")"),
            MissingProperty => write!(f, "required property is missing"),
            BadValue(what) => write!(f, "bad value: {what}"),
            BadString => write!(f, "not a NUL-terminated UTF-8 string"),
            BadCells { value } => write!(f, "{value} cells are not supported (1 or 2)"),
            WrongIrqCount { expected, found } => {
                write!(f, "expected {expected} interrupt(s) for this SoC's IRQ layout, found {found}")
            }
            IrqNamesMismatch { irqs, names } => write!(f, "{names} name(s) for {irqs} interrupt(s)"),
            IrqNameMissing { name, role } => {
                write!(f, "no interrupt named \"{name}\" (the {role} line of this SoC) in interrupt-names")
            }
            MissingSpace { space, needed_by } => {
                write!(f, "syscon space `{space}` is needed by {needed_by} but the property does not name it")
            }
            NoInterruptParent => write!(f, "no interrupt parent with #interrupt-cells on the node or its ancestors"),
            MissingClock(c) => write!(f, "clock \"{c}\" required by this SoC is missing"),
            DanglingPhandle(p) => write!(f, "phandle {p:#x} does not refer to any node"),
            MacOutOfRange { reg, macs } => write!(f, "MAC {reg} does not exist: this SoC has MACs 0..{macs}"),
            DuplicateMac(reg) => write!(f, "MAC {reg} is described twice"),
            UnsupportedPhyMode { mode, allowed } => {
                write!(f, "phy mode \"{}\" is not supported by this MAC; it accepts: ", Escaped(mode))?;
                for (i, m) in allowed.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "\"{m}\"")?;
                }
                Ok(())
            }
            BadSpeed(s) => write!(f, "impossible link speed {s} Mbit/s (10, 100, 1000, 2500, 5000 or 10000)"),
            BadManaged(m) => write!(f, "managed = \"{}\" is not \"auto\" or \"in-band-status\"", Escaped(m)),
            TooDeep => write!(f, "device tree nests deeper than 32 levels"),
            TooManyPorts => write!(f, "more switch ports than the board table holds"),
            RegTooSmall { size, need } => write!(
                f,
                "register window of {size:#x} bytes is smaller than the {need:#x} bytes the driver uses (this SoC's register map, and its SRAM rings where it has them)"
            ),
            SramRings(e) => write!(f, "{e}"),
            NotAMac { node } => write!(
                f,
                "points at {node}, which is not a MAC of the Ethernet node (a mac@N with compatible \"mediatek,eth-mac\")"
            ),
            PortOutOfRange { port, ports } => {
                write!(f, "switch port {port} does not exist: this switch has ports 0..{ports}")
            }
            ConduitNotEnabled(m) => write!(f, "conduit MAC {m} is not an enabled MAC of this board"),
        }
    }
}

impl fmt::Display for ProbeError<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path)?;
        if let Some(p) = self.property {
            write!(f, ": property `{}`", Escaped(p))?;
        }
        write!(f, ": {}", self.kind)
    }
}

/// What needs a space: a capability of the SoC, or the path setup of one MAC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// A capability every board uses (`cold_reset`, `rx_checksum`, `shaper`).
    Capability(&'static str),
    /// The path setup of this MAC in this phy mode.
    Path {
        /// MAC id.
        mac: u8,
        /// Its phy mode.
        mode: &'static str,
    },
}

impl fmt::Display for Need {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Need::Capability(c) => write!(f, "capability `{c}`"),
            Need::Path { mac, mode } => write!(f, "the path setup of MAC {mac} ({mode})"),
        }
    }
}
