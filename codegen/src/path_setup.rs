//! Path setup and space locations lowered for the generator and `dump`: per MAC and phy-mode
//! class, the read-modify-writes to make (absolute offset, mask, value), and where the device
//! tree puts each space. The `path_setup_*` and `spaces_located` passes have checked the input;
//! what they reject is skipped here.

use crate::ast::FieldValue;
pub use crate::caps_schema::{PathSetup, PathWrite};
use crate::model::Map;

/// Where the device tree locates a space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpaceLoc {
    /// Space name (`ethsys`).
    pub name: String,
    /// `reg` (the Ethernet node's own window) or the phandle property (`mediatek,ethsys`).
    pub property: String,
    /// Which phandle of the property.
    pub index: u64,
}

/// Where the device tree puts each space of `map`, in the map's space order.
pub fn spaces(map: &Map) -> Vec<SpaceLoc> {
    map.spaces
        .iter()
        .filter_map(|s| {
            let dt = s.dt.as_ref()?;
            Some(SpaceLoc {
                name: s.name.value.clone(),
                property: dt.value.value.property.value.clone(),
                index: dt.value.value.index.as_ref().map_or(0, |i| i.value),
            })
        })
        .collect()
}

/// The path setup of `map`, one entry per MAC and source entry (MACs in ascending order).
pub fn lower(map: &Map) -> Vec<PathSetup> {
    let Some(ps) = map.caps.path_setup.as_ref() else { return Vec::new() };
    let mut out = Vec::new();
    for e in &ps.value.value {
        let mut writes = Vec::new();
        for w in &e.value.set {
            writes.extend(lower_write(map, &w.value));
        }
        for m in &e.value.macs {
            out.push(PathSetup {
                mac: m.value,
                modes: e.value.modes.iter().map(|x| x.value.clone()).collect(),
                writes: writes.clone(),
            });
        }
    }
    out.sort_by_key(|p| p.mac);
    out
}

fn lower_write(map: &Map, w: &crate::ast::PathWrite) -> Vec<PathWrite> {
    let path = w.register.value.as_str();
    let Some((space, block, reg)) = map.find_register(path) else { return Vec::new() };
    let (stride, count) = match (&block.array, &reg.array) {
        (Some(a), _) | (None, Some(a)) => (a.stride.value, a.count.value),
        (None, None) => (0, 1),
    };
    let (mut mask, mut value, mut fields) = (0u64, 0u64, Vec::new());
    for (name, v) in w.fields.iter() {
        let Some(f) = reg.fields.iter().find(|f| f.name.value == name.value) else { continue };
        let n = match &v.value {
            FieldValue::Num(n) => *n,
            FieldValue::Name(x) => match f.values.iter().find(|(k, _)| k.value == *x) {
                Some((_, val)) => val.value,
                None => continue,
            },
        };
        mask |= f.mask();
        value |= (n << f.bits.value.lsb.min(63)) & f.mask();
        fields.push((name.value.clone(), n));
    }
    let base = block.base.value.saturating_add(reg.offset.value);
    // Counts beyond any real array are `arrays_valid`'s to report; nothing is lowered then.
    let elements: Vec<u64> = match &w.index {
        Some(i) => vec![i.value],
        None if count > 4096 => Vec::new(),
        None => (0..count).collect(),
    };
    elements
        .into_iter()
        .map(|i| PathWrite {
            space: space.name.value.clone(),
            register: if count > 1 { format!("{path}[{i}]") } else { path.to_string() },
            offset: base.saturating_add(stride.saturating_mul(i)),
            mask: mask & 0xffff_ffff,
            value: value & 0xffff_ffff,
            fields: fields.clone(),
        })
        .collect()
}
