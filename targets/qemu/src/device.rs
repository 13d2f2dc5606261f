//! One frame engine on the bus: the model, the windows and interrupt lines the guest tree gives
//! it, its clock against QEMU's, and what it hands back to the host (frames, line levels, log).

use crate::options::Options;
use crate::trace::Trace;
use fe_driver::dt::{Board, Link};
use fe_regs::Space;
use fe_regs::bus::Bus;
use fe_sim::Sim;

/// What the model calls back into (the QEMU device, or a test).
pub trait Host {
    /// Interrupt line `line` (device-tree order) goes to `level`.
    fn set_irq(&mut self, line: u32, level: bool);
    /// MAC `mac` finished sending `frame` (no FCS).
    fn transmit(&mut self, mac: u32, frame: &[u8]);
    /// One line of diagnostics.
    fn log(&mut self, line: &str);
}

/// A register window on the guest's physical address map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// The space it holds (`fe`, `ethsys`, ...).
    pub space: Space,
    /// Guest physical base.
    pub base: u64,
    /// Size in bytes.
    pub size: u64,
}

/// Frames a MAC may hold from its link partner before the backend is told to wait.
const RX_BACKLOG: usize = 256;

/// The model of one frame engine and its place on the guest's bus.
#[derive(Debug)]
pub struct Device {
    sim: Sim,
    windows: Vec<Window>,
    spis: Vec<u32>,
    levels: Vec<bool>,
    macs: u32,
    /// QEMU virtual time at the model's time 0 (set by the first call).
    origin: Option<u64>,
    violations_seen: usize,
    trace: Option<Trace>,
}

impl Device {
    /// The frame engine `dtb` (a guest device tree) describes, its DMA going to `ram`, which the
    /// guest sees at physical address `ram_base`.
    pub fn new(dtb: &[u8], options: &Options, ram: &'static mut [u8], ram_base: u64) -> Result<Self, String> {
        let board = fe_driver::dt::probe(dtb).map_err(|e| e.to_string())?;
        let soc = board.soc;
        let spis = spis(&board)?;
        let sim = Sim::with_guest_ram(soc, ram, ram_base);
        sim.place_fe(board.reg.base, board.reg.size);
        for m in board.enabled_macs() {
            sim.wire_interface(usize::from(m.id), Some(m.phy_mode));
            match m.link {
                Link::Fixed { speed, .. } => sim.set_link_speed(usize::from(m.id), speed),
                // The MAC's PHY answers on the MDIO bus at its node's address.
                Link::Phy { phy } => sim.attach_phy(mdio_address(dtb, &phy.to_string())?),
                _ => {}
            }
        }
        let mut windows = vec![Window { space: Space::Fe, base: board.reg.base, size: board.reg.size }];
        windows.extend(board.syscons().map(|s| Window { space: s.space, base: s.reg.base, size: s.reg.size }));
        check_disjoint(&windows)?;
        let trace = options.trace.as_deref().map(|p| Trace::create(p, soc)).transpose()?;
        Ok(Device {
            sim,
            levels: vec![false; spis.len()],
            spis,
            windows,
            macs: soc.caps.macs.len() as u32,
            origin: None,
            violations_seen: 0,
            trace,
        })
    }

    /// The register windows, frame engine first.
    pub fn windows(&self) -> &[Window] {
        &self.windows
    }

    /// The GIC SPI of each interrupt line, in device-tree order.
    pub fn spis(&self) -> &[u32] {
        &self.spis
    }

    /// The SoC's MACs (wired or not).
    pub fn mac_count(&self) -> u32 {
        self.macs
    }

    /// The model itself (tests look at its statistics and violations).
    pub fn sim(&self) -> &Sim {
        &self.sim
    }

    /// Runs the model up to virtual time `now_ns` and hands `host` what happened; gives the
    /// virtual time it wants to run next (`u64::MAX`: nothing pending).
    pub fn run(&mut self, now_ns: u64, host: &mut dyn Host) -> u64 {
        let origin = *self.origin.get_or_insert(now_ns);
        let target = now_ns.saturating_sub(origin);
        let now = self.sim.now();
        if target > now {
            self.sim.advance(target - now);
        }
        self.publish(host);
        self.sim.next_event().map_or(u64::MAX, |t| origin.saturating_add(t.max(self.sim.now() + 1)))
    }

    /// Reads `size` bytes (1, 2, 4 or 8) at `offset` of window `window`.
    pub fn read(&mut self, window: u32, offset: u64, size: u32, host: &mut dyn Host) -> u64 {
        let Some(w) = self.windows.get(window as usize) else { return 0 };
        let space = w.space;
        let v = match size {
            8 => u64::from(self.read32(space, offset)) | (u64::from(self.read32(space, offset + 4)) << 32),
            4 => u64::from(self.read32(space, offset)),
            1 | 2 => {
                let word = self.read32(space, offset & !3);
                u64::from(word >> ((offset & 3) * 8)) & ((1u64 << (size * 8)) - 1)
            }
            _ => 0,
        };
        self.publish(host);
        v
    }

    /// Writes `size` bytes (1, 2, 4 or 8) of `value` at `offset` of window `window`.
    pub fn write(&mut self, window: u32, offset: u64, value: u64, size: u32, host: &mut dyn Host) {
        let Some(w) = self.windows.get(window as usize) else { return };
        let space = w.space;
        if let Some(t) = self.trace.as_mut() {
            t.write(self.sim.now(), space, offset, size, value);
        }
        match size {
            8 => {
                self.write32(space, offset, value as u32);
                self.write32(space, offset + 4, (value >> 32) as u32);
            }
            4 => self.write32(space, offset, value as u32),
            1 | 2 => {
                // A narrow store merges into its word (the engine's registers are 32-bit).
                let shift = (offset & 3) * 8;
                let mask = (((1u64 << (size * 8)) - 1) << shift) as u32;
                let old = self.read32(space, offset & !3);
                self.write32(space, offset & !3, (old & !mask) | (((value << shift) as u32) & mask));
            }
            _ => {}
        }
        self.publish(host);
    }

    /// A frame (no FCS) from MAC `mac`'s link partner.
    pub fn receive(&mut self, mac: u32, frame: &[u8], host: &mut dyn Host) {
        if mac < self.macs {
            self.sim.send_to_mac(mac as usize, frame.to_vec());
        }
        self.publish(host);
    }

    /// Whether MAC `mac` takes another frame now (its queue from the link partner has room).
    pub fn can_receive(&self, mac: u32) -> bool {
        mac < self.macs && self.sim.pending_from_link(mac as usize) < RX_BACKLOG
    }

    fn read32(&self, space: Space, offset: u64) -> u32 {
        match (usize::try_from(offset), self.sim.space(space)) {
            (Ok(o), Some(bus)) => bus.read32(o),
            _ => 0,
        }
    }

    fn write32(&self, space: Space, offset: u64, value: u32) {
        if let (Ok(o), Some(bus)) = (usize::try_from(offset), self.sim.space(space)) {
            bus.write32(o, value);
        }
    }

    /// Hands the host the frames that left, the lines that changed and new violations.
    fn publish(&mut self, host: &mut dyn Host) {
        for mac in 0..self.macs {
            for (_, frame) in self.sim.take_sent(mac as usize) {
                host.transmit(mac, &frame);
            }
        }
        for (line, level) in self.levels.iter_mut().enumerate() {
            let now = self.sim.irq(line as u8);
            if now != *level {
                *level = now;
                host.set_irq(line as u32, now);
            }
        }
        for (t, v) in self.sim.violations_since(self.violations_seen) {
            host.log(&format!("at {t} ns: {v}"));
            self.violations_seen += 1;
        }
    }
}

/// The MDIO address (`reg`) of the PHY node at `path`.
fn mdio_address(dtb: &[u8], path: &str) -> Result<u8, String> {
    let fdt = fdt::Fdt::new(dtb).map_err(|e| format!("device tree: {e:?}"))?;
    let node = fdt.find_node(path).ok_or_else(|| format!("{path}: PHY node not found"))?;
    let reg = node.property("reg").map(|p| p.value).unwrap_or_default();
    match reg.get(..4).map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]])) {
        Some(a) if a < 32 => Ok(a as u8),
        _ => Err(format!("{path}: `reg` is not an MDIO address 0..=31")),
    }
}

/// The GIC SPI of each of the node's interrupts (`<GIC_SPI n flags>` specifiers).
fn spis(board: &Board<'_>) -> Result<Vec<u32>, String> {
    board.irqs[..usize::from(board.nirqs)]
        .iter()
        .enumerate()
        .map(|(i, irq)| match (irq.ncells, irq.cells[0]) {
            (3, 0) => Ok(irq.cells[1]),
            _ => Err(format!(
                "{}: interrupt {i} is not a GIC SPI specifier <0 n flags> (the device's lines go to the GIC)",
                board.path
            )),
        })
        .collect()
}

/// Refuses windows that overlap (the guest tree would map one address twice).
fn check_disjoint(windows: &[Window]) -> Result<(), String> {
    for (i, a) in windows.iter().enumerate() {
        for b in &windows[i + 1..] {
            if a.base < b.base.saturating_add(b.size) && b.base < a.base.saturating_add(a.size) {
                return Err(format!(
                    "register windows `{}` ({:#x}+{:#x}) and `{}` ({:#x}+{:#x}) overlap",
                    a.space.name(),
                    a.base,
                    a.size,
                    b.space.name(),
                    b.base,
                    b.size
                ));
            }
        }
    }
    Ok(())
}
