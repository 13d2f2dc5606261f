//! The MAC path muxes, modelled strictly from the SoC's path-setup data (capability
//! `path_setup`): a MAC wired to an interface (the board's `phy-mode`) carries frames only
//! while every register its path setup writes holds what that setup leaves there, and has been
//! written by the CPU since it last came out of reset (a mux at its reset value was not set up).
//! Otherwise the MAC drops what it would send or receive, and the model records a
//! [`Violation::PathNotSetUp`] naming the register (once per MAC until the cause changes).

use crate::engine::Inner;
use crate::violation::Violation;
use alloc::collections::BTreeSet;
use alloc::vec::Vec;
use fe_regs::{SocInfo, Space};

/// Interfaces the board wires to each MAC and the registers the CPU has written.
#[derive(Debug)]
pub(crate) struct Muxes {
    /// Interface (`phy-mode`) wired to each MAC; `None`: not modelled (no board given).
    wired: Vec<Option<&'static str>>,
    /// `(space index, offset)` of every register some path setup of the SoC writes, sorted:
    /// writes to any other register cannot open or close a path.
    watched: Vec<(usize, u32)>,
    /// Those of them written since they last reset.
    written: BTreeSet<(usize, u32)>,
    /// Per MAC, the verdict of [`Inner::path_fault`] while nothing it depends on changed
    /// (`None`: not known). A frame asks for it; a register write rarely changes it.
    verdicts: Vec<Option<Option<Violation>>>,
    /// The last fault reported per MAC (reported again only when it changes).
    reported: Vec<Option<Violation>>,
}

impl Muxes {
    /// No interface wired yet; watches the registers of `soc`'s path setups.
    #[inline(never)] // cold, and kept out of the caller's stack frame (a kernel's probe).
    pub(crate) fn new(soc: &SocInfo) -> Self {
        let mut watched: Vec<(usize, u32)> =
            soc.caps.path_setup.iter().flat_map(|p| p.writes.iter()).map(|w| (w.space.index(), w.offset)).collect();
        watched.sort_unstable();
        watched.dedup();
        Muxes { wired: Vec::new(), watched, written: BTreeSet::new(), verdicts: Vec::new(), reported: Vec::new() }
    }

    /// The board wires interface `interface` to MAC `mac` (`None`: not modelled).
    pub(crate) fn wire(&mut self, mac: usize, interface: Option<&'static str>) {
        if self.wired.len() <= mac {
            self.wired.resize(mac + 1, None);
        }
        self.wired[mac] = interface;
        self.verdicts.clear();
    }

    /// The CPU wrote `offset` of `space`.
    pub(crate) fn write(&mut self, space: Space, offset: u32) {
        let key = (space.index(), offset);
        if self.watched.binary_search(&key).is_ok() {
            self.written.insert(key);
            self.verdicts.clear();
        }
    }

    /// Space `space` went back to its reset values (a cold reset of the frame engine).
    pub(crate) fn reset(&mut self, space: Space) {
        self.written.retain(|(s, _)| *s != space.index());
        self.verdicts.clear();
    }
}

impl Inner {
    /// Why MAC `mac` carries no frames, if its path is not set up for the interface wired to it.
    pub(crate) fn path_fault(&self, mac: usize) -> Option<Violation> {
        let interface = (*self.muxes.wired.get(mac)?)?;
        let Some(setup) = self.soc.caps.path_setup_for(mac as u8, interface) else {
            return Some(Violation::PathNotSetUp {
                mac: mac as u8,
                interface,
                register: "(no path setup for this mode)",
                expected: 0,
                found: 0,
                mask: 0,
            });
        };
        // What the writes leave in each register, the last write of a bit winning.
        let mut want: Vec<(Space, u32, &'static str, u32, u32)> = Vec::new();
        for w in setup.writes {
            match want.iter_mut().find(|x| x.0 == w.space && x.1 == w.offset) {
                Some(x) => {
                    x.3 |= w.mask;
                    x.4 = (x.4 & !w.mask) | (w.value & w.mask);
                }
                None => want.push((w.space, w.offset, w.register, w.mask, w.value & w.mask)),
            }
        }
        for (space, offset, register, mask, value) in want {
            let found = self.regs.get(space, offset);
            if !self.muxes.written.contains(&(space.index(), offset)) || found & mask != value {
                return Some(Violation::PathNotSetUp {
                    mac: mac as u8,
                    interface,
                    register,
                    expected: value,
                    found: found & mask,
                    mask,
                });
            }
        }
        None
    }

    /// Whether MAC `mac` may carry a frame now; records the reason once when it may not.
    pub(crate) fn path_open(&mut self, mac: usize) -> bool {
        // Asked for every frame: a path known open, with nothing reported, is all most calls see.
        if let (Some(Some(None)), Some(None)) = (self.muxes.verdicts.get(mac), self.muxes.reported.get(mac)) {
            debug_assert_eq!(self.path_fault(mac), None, "stale path verdict of mac {mac}");
            return true;
        }
        let fault = match self.muxes.verdicts.get(mac) {
            Some(&Some(known)) => {
                // Every test build checks that nothing the verdict depends on changed unseen.
                debug_assert_eq!(known, self.path_fault(mac), "stale path verdict of mac {mac}");
                known
            }
            _ => {
                let fault = self.path_fault(mac);
                if self.muxes.verdicts.len() <= mac {
                    self.muxes.verdicts.resize(mac + 1, None);
                }
                self.muxes.verdicts[mac] = Some(fault);
                fault
            }
        };
        if self.muxes.reported.len() <= mac {
            self.muxes.reported.resize(mac + 1, None);
        }
        if let Some(v) = fault
            && self.muxes.reported[mac] != fault
        {
            self.violate(v);
        }
        self.muxes.reported[mac] = fault;
        fault.is_none()
    }
}
