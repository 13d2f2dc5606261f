//! Field arrays (`array: {count, stride}` on a field): `name(n)` reads element `n`,
//! `set_name(n, v)` writes it; an index out of range reads `None` and writes nothing (`false`),
//! never panics. Which fields are arrays comes from the generated table, not from names here.

use fe_regs::values::{FIELD_ACCESSORS, FeGloCfg};

/// Element entries of the accessor table: (value type, field, element, lsb, width).
fn elements() -> Vec<(&'static str, String, usize, u8, u8)> {
    FIELD_ACCESSORS
        .iter()
        .filter_map(|a| {
            let (name, rest) = a.field.split_once('[')?;
            let n = rest.strip_suffix(']')?.parse().ok()?;
            Some((a.value_type, name.to_string(), n, a.lsb, a.width))
        })
        .collect()
}

#[test]
fn the_bundled_maps_have_field_arrays_with_consecutive_elements() {
    let e = elements();
    assert!(!e.is_empty(), "no field array in the bundled maps");
    for (ty, name, n, lsb, width) in &e {
        // Element n-1 exists and sits one stride lower (strides are equal: element 1 - element 0).
        if *n > 0 {
            assert!(
                e.iter().any(|x| x.0 == *ty && x.1 == *name && x.2 == n - 1),
                "{ty}.{name}[{n}] without [{}]",
                n - 1
            );
        }
        let first = e.iter().find(|x| x.0 == *ty && x.1 == *name && x.2 == 0).expect("element 0");
        let second = e.iter().find(|x| x.0 == *ty && x.1 == *name && x.2 == 1).expect("an array has two elements");
        let stride = second.3 - first.3;
        assert_eq!(*lsb, first.3 + stride * *n as u8, "{ty}.{name}[{n}]");
        assert_eq!(*width, first.4, "{ty}.{name}[{n}]: every element is as wide as the first");
    }
}

#[test]
fn out_of_range_reads_none_and_writes_nothing() {
    // `fe.glo_cfg.link_down` is read-write, so both directions are exercised; its element
    // count is the generated constant.
    let n = FeGloCfg::LINK_DOWN_COUNT;
    let mut v = FeGloCfg(0);
    for i in 0..n {
        assert_eq!(v.link_down(i), Some(false));
        assert!(v.set_link_down(i, true), "element {i} is in range");
        assert_eq!(v.link_down(i), Some(true));
    }
    let all = v.0;
    for i in [n, n + 1, usize::MAX] {
        assert_eq!(v.link_down(i), None, "element {i}");
        assert!(!v.set_link_down(i, false), "element {i}");
        assert_eq!(v.0, all, "an out-of-range write changed nothing");
    }
    let bits: Vec<u8> =
        elements().into_iter().filter(|e| e.0 == "FeGloCfg" && e.1 == "link_down").map(|e| e.3).collect();
    assert_eq!(bits.len(), n);
    assert_eq!(all, bits.iter().fold(0, |m, b| m | 1 << b), "exactly the elements' bits are set");
}
