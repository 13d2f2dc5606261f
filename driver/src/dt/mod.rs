//! Device-tree probe: from a flattened device tree (DTB) to a [`Board`].
//!
//! The blob is first checked structurally ([`blob`]), so malformed input becomes an error that
//! names the offset or node instead of reaching the `fdt` crate's assertions; then the tree is
//! walked with node paths ([`walk`]), and the Ethernet node, its MACs and the DSA switch ports
//! behind them are read into a [`Board`] ([`mod@probe`]).

// Errors carry their node path inline (no allocation in the core), so they are larger than
// clippy's default; they are returned only on the cold failure path.
#![allow(clippy::result_large_err)]

pub mod blob;
pub mod board;
pub mod error;
pub mod path;
pub mod probe;
pub mod props;
pub mod walk;

pub use board::{Board, Duplex, Link, MacConfig, Region, Shaping, SwitchPort};
pub use error::{ProbeError, ProbeErrorKind};
pub use path::NodePath;
pub use probe::probe;
