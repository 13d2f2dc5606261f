//! The MMIO write log (`trace=PATH`): one line per write with the simulated time, the window,
//! the offset, the register's name from the SoC's map and the value, so that two drivers' probe
//! and open can be diffed register by register.

use fe_regs::{SocInfo, Space};
use std::fs::File;
use std::io::{BufWriter, Write};

/// An open trace file.
#[derive(Debug)]
pub struct Trace {
    out: BufWriter<File>,
    soc: &'static SocInfo,
}

impl Trace {
    /// Creates (truncates) `path`.
    pub fn create(path: &str, soc: &'static SocInfo) -> Result<Self, String> {
        let f = File::create(path).map_err(|e| format!("trace file {path}: {e}"))?;
        Ok(Trace { out: BufWriter::new(f), soc })
    }

    /// Records a write of `value` (`size` bytes) at `offset` of `space` at `now_ns`.
    pub fn write(&mut self, now_ns: u64, space: Space, offset: u64, size: u32, value: u64) {
        let name = register_name(self.soc, space, offset);
        let _ = writeln!(self.out, "{now_ns:>12} {:<10} {offset:#07x} {name:<28} {value:#010x} /{size}", space.name());
        let _ = self.out.flush();
    }
}

/// `block.register[index]` of the register at `offset` of `space`, or `?` for an offset the map
/// does not name.
pub fn register_name(soc: &SocInfo, space: Space, offset: u64) -> String {
    let Ok(offset) = u32::try_from(offset) else { return "?".to_string() };
    for r in soc.registers.iter().filter(|r| r.space == space) {
        if r.count <= 1 || r.stride == 0 {
            if r.offset == offset {
                return r.name.to_string();
            }
            continue;
        }
        let Some(delta) = offset.checked_sub(r.offset) else { continue };
        if delta % r.stride == 0 && delta / r.stride < u32::from(r.count) {
            return format!("{}[{}]", r.name, delta / r.stride);
        }
    }
    "?".to_string()
}

#[cfg(test)]
mod tests {
    use super::register_name;
    use fe_regs::Space;

    #[test]
    fn every_register_of_every_soc_is_named_at_its_offset() {
        for soc in fe_regs::SOCS {
            for r in soc.registers {
                assert_eq!(register_name(soc, r.space, u64::from(r.offset)).split('[').next(), Some(r.name));
            }
            assert_eq!(register_name(soc, Space::Fe, u64::MAX), "?");
        }
    }
}
