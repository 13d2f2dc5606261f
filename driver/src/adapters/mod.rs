//! Adapters from the driver core to embedded network stacks (behind cargo features).
//!
//! [`smoltcp`](mod@self::smoltcp) (feature `smoltcp`): one MAC of an [`crate::Eth`] as a
//! `smoltcp::phy::Device`. The software checksums they share are in [`checksum`].

pub mod checksum;
pub mod smoltcp;
