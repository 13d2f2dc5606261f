//! The register file: every register element of a SoC, with the access semantics of its YAML
//! (read-only and write-1-to-clear bits, write-only bits that read as 0, read-to-clear counters).

use crate::violation::Violation;
use alloc::vec;
use alloc::vec::Vec;
use fe_regs::meta::{AccessKind, RegMeta};
use fe_regs::{SocInfo, Space};

/// Register storage with per-bit semantics.
#[derive(Debug)]
pub struct RegFile {
    metas: &'static [RegMeta],
    /// Per space (by [`Space::index`]), per word offset (`offset / 4`): the slot plus one, or 0
    /// where no register is. A dense table: every access of the model looks a register up, and
    /// a tree search per access was most of the model's time per frame (the largest space, the
    /// frame engine's, spans tens of KiB: a table of that many words is cheap).
    index: Vec<Vec<u32>>,
    /// Per slot: meta index and current value.
    slots: Vec<(usize, u32)>,
}

impl RegFile {
    /// Every register of `soc` at its reset value.
    #[must_use]
    #[inline(never)] // cold, and kept out of the caller's stack frame (a kernel's probe).
    pub fn new(soc: &'static SocInfo) -> Self {
        let mut index: Vec<Vec<u32>> = vec![Vec::new(); Space::ALL.len()];
        let mut slots = Vec::new();
        for (mi, m) in soc.registers.iter().enumerate() {
            for e in 0..m.count.max(1) as u32 {
                let word = ((m.offset + m.stride * e) / 4) as usize;
                let table = &mut index[m.space.index()];
                if table.len() <= word {
                    table.resize(word + 1, 0);
                }
                slots.push((mi, m.reset));
                table[word] = u32::try_from(slots.len()).unwrap_or(u32::MAX);
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
        match self.index.get(space.index()).and_then(|t| t.get((offset / 4) as usize)) {
            Some(&n) if n != 0 => Ok(n as usize - 1),
            _ => Err(Violation::UnknownRegister { space, offset }),
        }
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
