//! The hosted ("kernel-style") build of the driver core: the `fe` command and what it needs on a
//! Linux host (compiling device trees, printing reports).

pub mod dtc;
pub mod report;
pub mod run;
