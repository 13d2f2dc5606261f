//! The MDIO master behind `mdio.phy_iac` and the PHYs on its bus.
//!
//! A write with the access bit set runs one MDIO frame at once and clears the bit (drivers poll
//! it: Linux's `mtk_mdio_busy_wait`): Clause 22 read and write, Clause 45 address, read and write
//! (the device in the register field, the address latched per device). An address where no PHY
//! is attached answers reads with all ones, as an MDIO bus with nothing driving the line does.
//! The attached PHY answers both ways, link up: as a Clause-22 gigabit PHY (autonegotiation
//! complete, 1000 full duplex with pause), and as a Clause-45 PHY with a PMA/PMD and a PCS
//! (devices 1 and 3), 2.5GBASE-T capable and running at 2.5 Gbit/s without autonegotiation, as
//! a `phy-handle` PHY of a 2500base-x MAC is (IEEE 802.3 clause 45 registers).

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use fe_regs::values::{MdioPhyIac, MdioPhyIacCmd as Cmd, MdioPhyIacStart as Start};

/// A PHY on the bus.
#[derive(Debug, Clone)]
struct Phy {
    addr: u8,
    c22: [u16; 32],
    /// Clause-45 registers by (device, register); the latched address per device.
    c45: BTreeMap<(u8, u16), u16>,
    latched: [u16; 32],
}

impl Phy {
    fn gigabit(addr: u8) -> Self {
        let mut c22 = [0u16; 32];
        c22[0] = 0x1140; // BMCR: AN enabled, full duplex, 1000 Mbit/s select
        c22[1] = 0x796d; // BMSR: 10/100 abilities, extended status, AN complete, link up
        c22[2] = 0x0000; // PHYSID1/2: no vendor (Linux's generic PHY driver binds)
        c22[3] = 0x0000;
        c22[4] = 0x0de1; // ADVERTISE: 10/100 full and half, pause
        c22[5] = 0xcde1; // LPA: the partner advertises the same, ack
        c22[9] = 0x0200; // CTRL1000: 1000 full
        c22[10] = 0x3800; // STAT1000: partner 1000 full, local and remote receivers OK
        c22[15] = 0x2000; // ESTATUS: 1000BASE-T full duplex capable
        let mut c45 = BTreeMap::new();
        for (dev, reg, v) in [
            (1, 0, 0x2058),  // PMA/PMD control 1: speed selection 2.5 Gbit/s
            (1, 1, 0x0004),  // PMA/PMD status 1: receive link up
            (1, 5, 0x000a),  // devices in package: PMA/PMD and PCS
            (1, 8, 0x8200),  // status 2: device present, extended abilities
            (1, 11, 0x4020), // extended abilities: 2.5G/5G (NBASE-T) and 1000BASE-T
            (1, 21, 0x0001), // 2.5G/5G extended abilities: 2.5GBASE-T
            (3, 1, 0x0004),  // PCS status 1: receive link up
            (3, 5, 0x000a),
            (3, 8, 0x8000),
        ] {
            c45.insert((dev, reg), v);
        }
        Phy { addr, c22, c45, latched: [0; 32] }
    }
}

/// The bus and the PHYs attached to it.
#[derive(Debug, Default, Clone)]
pub(crate) struct Mdio {
    phys: Vec<Phy>,
}

impl Mdio {
    /// Attaches a PHY at `addr` (0..=31), replacing one there.
    pub(crate) fn attach(&mut self, addr: u8) {
        self.phys.retain(|p| p.addr != addr);
        self.phys.push(Phy::gigabit(addr & 31));
    }

    /// Runs the frame a PHY_IAC write asks for; gives the register's new value (access bit clear,
    /// read data in the data field).
    pub(crate) fn access(&mut self, value: u32) -> u32 {
        let v = MdioPhyIac::from_bits(value);
        if !v.access() {
            return value;
        }
        let (data, reg) = (v.data(), usize::from(v.reg() & 31));
        let phy = self.phys.iter_mut().find(|p| p.addr == v.addr());
        let read = match (v.start(), v.cmd(), phy) {
            (Start::C22, Cmd::Write, Some(p)) => {
                p.c22[reg] = data;
                None
            }
            (Start::C22, Cmd::C22Read, Some(p)) => Some(p.c22[reg]),
            // Clause 45: the register field names the device; the address is latched per device.
            (Start::C45, Cmd::C45Addr, Some(p)) => {
                p.latched[reg] = data;
                None
            }
            (Start::C45, Cmd::Write, Some(p)) => {
                p.c45.insert((reg as u8, p.latched[reg]), data);
                None
            }
            (Start::C45, Cmd::C45Read, Some(p)) => Some(p.c45.get(&(reg as u8, p.latched[reg])).copied().unwrap_or(0)),
            // Nothing drives the line: reads give all ones, writes go nowhere.
            (_, Cmd::C22Read | Cmd::C45Read, None) => Some(0xffff),
            _ => None,
        };
        let done = v.with_access(false);
        read.map_or(done, |d| done.with_data(d)).to_bits()
    }
}

#[cfg(test)]
mod tests {
    use super::Mdio;

    /// A PHY_IAC value with the access bit set, from the raw field values (the test's own
    /// encoding of the IEEE frame: start 1 = Clause 22, 0 = Clause 45; cmd 0 address, 1 write,
    /// 2 read (22), 3 read (45)).
    fn frame(start: u32, cmd: u32, addr: u32, reg: u32, data: u32) -> u32 {
        1 << 31 | reg << 25 | addr << 20 | cmd << 18 | start << 16 | data
    }

    #[test]
    fn clause_22_and_45_frames_complete_and_read_back() {
        let mut m = Mdio::default();
        m.attach(5);
        // Clause 22: BMSR reads link up; a write reads back; the access bit clears.
        let v = m.access(frame(1, 2, 5, 1, 0));
        assert_eq!(v >> 31, 0);
        assert_eq!(v & 0xffff, 0x796d);
        m.access(frame(1, 1, 5, 4, 0x01e1));
        assert_eq!(m.access(frame(1, 2, 5, 4, 0)) & 0xffff, 0x01e1);
        // Clause 45: address then write then read, per device.
        m.access(frame(0, 0, 5, 1, 0x1234));
        m.access(frame(0, 1, 5, 1, 0xbeef));
        assert_eq!(m.access(frame(0, 3, 5, 1, 0)) & 0xffff, 0xbeef);
        // No PHY at 7: all ones.
        assert_eq!(m.access(frame(1, 2, 7, 2, 0)) & 0xffff, 0xffff);
        // Without the access bit nothing happens.
        assert_eq!(m.access(0x1234), 0x1234);
    }
}
