//! MAC interface and path setup, as the SoC's data says (capability `path_setup`): for each
//! enabled MAC, the read-modify-writes its phy mode's class needs (GE_MODE, the SGMII select,
//! TRGMII pads and clocks, muxes in other syscons), applied at `open` and again at link-up.
//!
//! The core knows no register of it: each write names its space by the generated space id, and
//! the platform gives the bus of that space ([`Platform::syscon`]). Which syscons a board needs
//! follows from the same data ([`needs`]), so a missing optional syscon is an error only when a
//! capability the board uses writes to it.

use crate::dt::Board;
pub use crate::dt::error::Need;
use crate::error::EthError;
use crate::platform::Platform;
use crate::space_bus::CapBus;
use fe_regs::caps::{PathSetup, PathWrite};
use fe_regs::{SocInfo, Space};

/// The SoC's static copy of `mode` when MAC `mac` accepts it (`None` otherwise): the interface
/// the driver keeps for the MAC without borrowing the device tree.
#[must_use]
pub fn interface(soc: &'static SocInfo, mac: u8, mode: &str) -> Option<&'static str> {
    soc.caps.macs.get(usize::from(mac))?.phy_modes.iter().copied().find(|m| *m == mode)
}

/// The path setup of MAC `mac` in phy mode `mode`.
pub fn plan(soc: &'static SocInfo, mac: u8, mode: &str) -> Result<&'static PathSetup, EthError> {
    soc.caps
        .path_setup_for(mac, mode)
        .ok_or(EthError::Unsupported("the SoC's data has no path setup for a MAC's phy mode"))
}

/// Why the board needs `space`, if it does ([`Board::needs`]).
#[must_use]
pub fn needs(board: &Board<'_>, space: Space) -> Option<Need> {
    board.needs(space)
}

/// Checks that the platform has a bus for every space the board needs (`Eth::new`; out of
/// line, so that its temporaries stay out of that frame).
#[inline(never)]
pub fn check_buses<P: Platform>(board: &Board<'_>, p: &P) -> Result<(), EthError> {
    for loc in board.soc.spaces.iter().filter(|l| !l.is_own_reg()) {
        if needs(board, loc.space).is_some() && p.syscon(loc.space).is_none() {
            return Err(EthError::MissingSpace(loc.space));
        }
    }
    Ok(())
}

/// Makes the writes of MAC `mac`'s path setup for `mode`, in order.
pub fn apply<P: Platform>(p: &P, soc: &'static SocInfo, mac: u8, mode: &str) -> Result<&'static [PathWrite], EthError> {
    let setup = plan(soc, mac, mode)?;
    for w in setup.writes {
        p.cap(w.field()).ok_or(EthError::MissingSpace(w.space))?.put(w.value);
    }
    Ok(setup.writes)
}

/// The path setup of every `(MAC, interface)` given (the enabled MACs), at `open` after the
/// cold reset.
pub fn apply_all<P: Platform>(
    p: &P,
    soc: &'static SocInfo,
    macs: impl Iterator<Item = (u8, &'static str)>,
) -> Result<(), EthError> {
    for (mac, mode) in macs {
        apply(p, soc, mac, mode)?;
    }
    Ok(())
}
