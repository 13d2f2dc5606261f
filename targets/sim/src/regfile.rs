//! The register file: every register element of a SoC, with the access semantics of its YAML
//! (read-only and write-1-to-clear bits, write-only bits that read as 0, read-to-clear counters).

use crate::violation::Violation;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use fe_regs::meta::{AccessKind, RegMeta};
use fe_regs::{SocInfo, Space};

fn space_key(s: Space) -> u64 {
    // `Space` is generated; its discriminant order is stable per build.
    (s as u64) << 32
}

/// Register storage with per-bit semantics.
#[derive(Debug)]
pub struct RegFile {
    metas: &'static [RegMeta],
    /// (space, offset) -> slot.
    index: BTreeMap<u64, usize>,
    /// Per slot: meta index and current value.
    slots: Vec<(usize, u32)>,
}

impl RegFile {
    /// Every register of `soc` at its reset value.
    #[must_use]
    pub fn new(soc: &'static SocInfo) -> Self {
        let mut index = BTreeMap::new();
        let mut slots = Vec::new();
        for (mi, m) in soc.registers.iter().enumerate() {
            for e in 0..m.count.max(1) as u32 {
                let off = m.offset + m.stride * e;
                index.insert(space_key(m.space) | u64::from(off), slots.len());
                slots.push((mi, m.reset));
            }
        }
        RegFile { metas: soc.registers, index, slots }
    }

    /// Restores every register to its reset value.
    pub fn reset(&mut self) {
        for (mi, v) in &mut self.slots {
            *v = self.metas[*mi].reset;
        }
    }

    fn slot(&self, space: Space, offset: u32) -> Result<usize, Violation> {
        if !offset.is_multiple_of(4) {
            return Err(Violation::UnalignedRegister { space, offset });
        }
        self.index
            .get(&(space_key(space) | u64::from(offset)))
            .copied()
            .ok_or(Violation::UnknownRegister { space, offset })
    }

    /// The metadata of the register at `offset`.
    pub fn meta(&self, space: Space, offset: u32) -> Result<&'static RegMeta, Violation> {
        let s = self.slot(space, offset)?;
        Ok(&self.metas[self.slots[s].0])
    }

    /// A read by software: write-only bits read as 0, read-to-clear registers clear.
    pub fn cpu_read(&mut self, space: Space, offset: u32) -> Result<u32, Violation> {
        let s = self.slot(space, offset)?;
        let (mi, v) = self.slots[s];
        let m = &self.metas[mi];
        if m.access == AccessKind::Wo {
            return Err(Violation::WriteOnlyRead { register: m.name });
        }
        if m.access == AccessKind::Rc {
            self.slots[s].1 = 0;
        }
        Ok(v & !m.wo_mask)
    }

    /// A write by software. Read-only bits keep their value (setting one is a violation and the
    /// write still happens for the other bits); W1C bits clear where 1 is written.
    pub fn cpu_write(&mut self, space: Space, offset: u32, value: u32) -> Result<(), Violation> {
        let s = self.slot(space, offset)?;
        let (mi, cur) = self.slots[s];
        let m = &self.metas[mi];
        if matches!(m.access, AccessKind::Ro | AccessKind::Rc) {
            return Err(Violation::ReadOnlyWrite { register: m.name, bits: value });
        }
        let keep = m.ro_mask | m.w1c_mask;
        let mut new = (cur & keep) | (value & !keep);
        new &= !(value & m.w1c_mask);
        self.slots[s].1 = new;
        let illegal = value & m.ro_mask & !cur;
        if illegal != 0 {
            return Err(Violation::ReadOnlyWrite { register: m.name, bits: illegal });
        }
        Ok(())
    }

    /// The stored value, as the hardware sees it (no side effects).
    #[must_use]
    pub fn get(&self, space: Space, offset: u32) -> u32 {
        self.slot(space, offset).map(|s| self.slots[s].1).unwrap_or(0)
    }

    /// Sets the stored value from the hardware side (status bits, indexes, counters).
    pub fn set(&mut self, space: Space, offset: u32, value: u32) {
        if let Ok(s) = self.slot(space, offset) {
            self.slots[s].1 = value;
        }
    }

    /// Adds to a 64-bit counter split over two registers (low word, high word), carrying.
    pub fn add64(&mut self, space: Space, lo: u32, hi: u32, n: u32) {
        let (Ok(l), Ok(h)) = (self.slot(space, lo), self.slot(space, hi)) else { return };
        let (v, carry) = self.slots[l].1.overflowing_add(n);
        self.slots[l].1 = v;
        if carry {
            self.slots[h].1 = self.slots[h].1.wrapping_add(1);
        }
    }

    /// Adds to a counter register from the hardware side (wrapping like the hardware).
    pub fn add(&mut self, space: Space, offset: u32, n: u32) {
        if let Ok(s) = self.slot(space, offset) {
            self.slots[s].1 = self.slots[s].1.wrapping_add(n);
        }
    }
}
