//! Where the core puts the descriptor rings a SoC keeps in the frame engine's SRAM (capability
//! `rings: {sram: OFFSET}`): the free queue, the TX ring and RX ring 0, one after the other from
//! `OFFSET` ([`SramLayout`]), and the check that the board's register window holds them
//! ([`places`], applied by the probe and by `Eth::new`). How a ring reads and writes descriptor
//! words there is [`crate::ring::mem`].

use crate::error::SramError;
use crate::ring::mem::Place;
use fe_regs::SocInfo;
use fe_regs::caps::RingPlacement;

/// One ring's span of the SRAM: where it starts (bytes after the SRAM offset) and how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Bytes from the SRAM's start.
    pub start: u32,
    /// Length in bytes.
    pub len: u32,
}

/// The rings the core puts in SRAM on a SoC whose capability `rings` is `{sram: OFFSET}`, one
/// after the other from `OFFSET`: the QDMA free queue, the QDMA TX ring, PDMA RX ring 0 (each
/// aligned to its descriptor size, and to 16 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SramLayout {
    /// Byte offset of the SRAM in the frame-engine window (the capability's `OFFSET`).
    pub offset: u32,
    /// The QDMA free queue's descriptors.
    pub fq: Span,
    /// The QDMA TX ring's descriptors.
    pub tx: Span,
    /// PDMA RX ring 0's descriptors.
    pub rx: Span,
}

impl SramLayout {
    /// The layout on `soc`, or `None` when its rings are in DRAM. Counts are the core's ring
    /// sizes; descriptor sizes are the SoC's layouts.
    #[must_use]
    pub fn of(soc: &SocInfo) -> Option<Self> {
        let RingPlacement::Sram { offset } = soc.caps.rings else { return None };
        let tx_desc = soc.caps.tx_descriptor.size();
        let rx_desc = soc.caps.rx_descriptor.size();
        let mut at = 0u32;
        let mut next = |count: usize, desc: usize| {
            let align = desc.max(16) as u32;
            let start = at.next_multiple_of(align);
            let len = (count * desc) as u32;
            at = start + len;
            Span { start, len }
        };
        let fq = next(crate::ring::fq::FQ_SIZE, tx_desc);
        let tx = next(crate::ring::tx::TX_RING, tx_desc);
        let rx = next(crate::ring::rx::RX_RING, rx_desc);
        Some(SramLayout { offset, fq, tx, rx })
    }

    /// Bytes of the frame-engine window the layout needs: one past the last ring's end.
    #[must_use]
    pub fn end(&self) -> u64 {
        u64::from(self.offset) + u64::from(self.rx.start) + u64::from(self.rx.len)
    }

    /// Where `span` is for a frame-engine window at physical address `fe_base`.
    #[must_use]
    pub fn place(&self, span: Span, fe_base: u64) -> Place {
        let offset = self.offset as usize + span.start as usize;
        Place::Sram { phys: fe_base + offset as u64, offset }
    }
}

/// Where each ring of `soc` goes on a board whose frame-engine window is `base`, `size` bytes:
/// `(free queue, TX ring, RX ring 0)`. A window that ends before the SRAM layout does, or an
/// SRAM whose physical addresses do not fit in 32 bits (what descriptors and ring registers
/// hold), is refused.
pub fn places(soc: &SocInfo, base: u64, size: u64) -> Result<(Place, Place, Place), SramError> {
    let Some(l) = SramLayout::of(soc) else { return Ok((Place::Dram, Place::Dram, Place::Dram)) };
    if size < l.end() {
        return Err(SramError::OutsideWindow { offset: l.offset, end: l.end(), size });
    }
    if base.checked_add(l.end()).is_none_or(|e| e > 1 << 32) {
        return Err(SramError::Above4G { phys: base.saturating_add(u64::from(l.offset)) });
    }
    Ok((l.place(l.fq, base), l.place(l.tx, base), l.place(l.rx, base)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_follow_each_other_inside_the_window_and_dram_socs_have_none() {
        for soc in fe_regs::SOCS {
            match (soc.caps.rings, SramLayout::of(soc)) {
                (RingPlacement::Dram, None) => {
                    assert_eq!(places(soc, 0x1000_0000, 0), Ok((Place::Dram, Place::Dram, Place::Dram)));
                }
                (RingPlacement::Sram { offset }, Some(l)) => {
                    assert_eq!(l.offset, offset);
                    assert_eq!(l.fq.start, 0);
                    assert!(l.fq.start + l.fq.len <= l.tx.start && l.tx.start + l.tx.len <= l.rx.start);
                    assert_eq!(l.tx.len as usize, crate::ring::tx::TX_RING * soc.caps.tx_descriptor.size());
                    let (fq, tx, rx) = places(soc, 0x1000_0000, l.end()).unwrap();
                    assert_eq!(fq, Place::Sram { phys: 0x1000_0000 + u64::from(offset), offset: offset as usize });
                    let Place::Sram { phys, .. } = rx else { panic!("{}", soc.name) };
                    assert_eq!(phys + u64::from(l.rx.len), 0x1000_0000 + l.end());
                    assert!(matches!(tx, Place::Sram { .. }));
                    assert!(matches!(places(soc, 0x1000_0000, l.end() - 4), Err(SramError::OutsideWindow { .. })));
                    assert!(matches!(places(soc, 0xffff_0000, l.end()), Err(SramError::Above4G { .. })));
                }
                (r, l) => panic!("{}: {r:?} gave {l:?}", soc.name),
            }
        }
    }
}
