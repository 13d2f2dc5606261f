//! The hosted ("kernel-style") build of the driver core: the `fe` command and what it needs on a
//! Linux host (compiling device trees, printing reports, and `fe netdev`, the driver as a TAP
//! interface of the real Linux stack).

pub mod dtc;
pub mod guest_dt;
pub mod netdev;
pub mod report;
pub mod run;
