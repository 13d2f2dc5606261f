//! Device-tree probe: from a flattened device tree (DTB) to a [`Board`].
//!
//! Without the `fdt` feature (on by default) only the board, its checked builder
//! ([`Board::new`]) and the error types are here: a kernel builds its board from the device
//! tree it already has (the OF API) and needs no blob parser.
//!
//! The blob is first checked structurally ([`blob`]), so malformed input becomes an error that
//! names the offset or node instead of reaching the `fdt` crate's assertions; then the tree is
//! walked with node paths ([`walk`]), and the Ethernet node, its MACs and the DSA switch ports
//! behind them are read into a [`Board`] ([`mod@probe`]).

// Errors carry their node path inline (no allocation on an error path), so they are larger than
// clippy's default; they are returned only on the cold failure path.
#![allow(clippy::result_large_err)]

pub mod blob;
pub mod board;
pub mod error;
pub mod path;
#[cfg(feature = "fdt")]
pub mod probe;
#[cfg(feature = "fdt")]
pub mod props;
pub mod text;
#[cfg(feature = "fdt")]
pub mod walk;

pub use board::{
    Board, Duplex, EthNode, IrqLines, IrqSpec, Link, MacConfig, NewMac, NewPort, Region, Shaping, SpaceAt, SwitchPort,
};
pub use error::{ProbeError, ProbeErrorKind};
pub use path::NodePath;
#[cfg(feature = "fdt")]
pub use probe::{probe, probe_into};
pub use text::Escaped;
