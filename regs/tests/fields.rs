//! Property tests of the generated value types: every field of every register round-trips
//! through its setter and getter, and never disturbs a bit outside its own range.

use fe_regs::values::FIELD_ACCESSORS;
use proptest::prelude::*;

fn mask(lsb: u8, width: u8) -> u32 {
    (((1u64 << width) - 1) << lsb) as u32
}

#[test]
fn every_field_is_listed_once_and_fits() {
    assert!(FIELD_ACCESSORS.len() > 100, "expected the bundled maps' fields, got {}", FIELD_ACCESSORS.len());
    for f in FIELD_ACCESSORS {
        assert!(f.width >= 1 && f.lsb as u32 + f.width as u32 <= 32, "{}.{}", f.value_type, f.field);
        let dup = FIELD_ACCESSORS.iter().filter(|g| g.value_type == f.value_type && g.field == f.field).count();
        assert_eq!(dup, 1, "{}.{} listed {dup} times", f.value_type, f.field);
        match f.access {
            "rw" => assert!(f.get.is_some() && f.set.is_some() && f.clear.is_none()),
            "wo" => assert!(f.get.is_none() && f.set.is_some()),
            "ro" | "rc" => assert!(f.get.is_some() && f.set.is_none() && f.clear.is_none()),
            "w1c" => assert!(f.get.is_some() && f.set.is_none() && f.clear.is_some()),
            other => panic!("unknown access {other}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn setters_round_trip_and_keep_neighbours(bits in any::<u32>(), value in any::<u32>()) {
        for f in FIELD_ACCESSORS {
            let m = mask(f.lsb, f.width);
            let v = value & (m >> f.lsb);
            if let Some(set) = f.set {
                let after = set(bits, v);
                prop_assert_eq!(after & !m, bits & !m, "{}.{} disturbed other bits", f.value_type, f.field);
                prop_assert_eq!((after & m) >> f.lsb, v, "{}.{} stored the wrong bits", f.value_type, f.field);
                if let Some(get) = f.get {
                    prop_assert_eq!(get(after), v, "{}.{} does not round-trip", f.value_type, f.field);
                }
            }
            if let Some(get) = f.get {
                prop_assert_eq!(get(bits), (bits & m) >> f.lsb, "{}.{} reads the wrong bits", f.value_type, f.field);
            }
            if let Some(clear) = f.clear {
                let after = clear(bits);
                prop_assert_eq!(after, bits | m, "{}.{} clear_* must set exactly its bits", f.value_type, f.field);
            }
        }
    }
}
