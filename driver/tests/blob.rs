//! Malformed blobs: each structural problem gets its own error, and no mutation of a valid blob
//! makes the probe panic.

mod support;

use fe_driver::dt::{ProbeErrorKind as K, probe};
use proptest::prelude::*;
use support::{dtb, mt7621_board};

/// The outcome's kind; on the way, renders everything a caller may print (node paths are
/// rebuilt from the blob when printed, so they are exercised on every mutated blob too).
fn kind(bytes: &[u8]) -> String {
    match probe(bytes) {
        Ok(b) => {
            let mut all = format!("{} {} {}", b.path, b.ethsys_path, b.compatible);
            for m in b.macs() {
                all += &format!("{} {:?} {:?}", m.path, m.link, m.sfp);
            }
            for p in b.switch_ports() {
                all += &format!("{} {}", p.path, p.path == b.path);
            }
            for w in b.warnings() {
                all += &w.to_string();
            }
            assert!(!all.is_empty());
            "ok".into()
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            format!("{:?}", e.kind)
        }
    }
}

fn good() -> Vec<u8> {
    dtb(&mt7621_board())
}

fn set_word(b: &mut [u8], index: usize, v: u32) {
    b[index * 4..index * 4 + 4].copy_from_slice(&v.to_be_bytes());
}

#[test]
fn empty_and_short() {
    assert_eq!(probe(&[]).unwrap_err().kind, K::Truncated { need: 40, have: 0 });
    assert!(matches!(probe(&good()[..39]).unwrap_err().kind, K::Truncated { .. }));
}

#[test]
fn truncated_body() {
    let g = good();
    let e = probe(&g[..g.len() - 10]).unwrap_err();
    assert_eq!(e.kind, K::Truncated { need: g.len(), have: g.len() - 10 });
    assert!(e.to_string().contains("truncated"));
}

#[test]
fn wrong_magic() {
    let mut g = good();
    set_word(&mut g, 0, 0x1234_5678);
    let e = probe(&g).unwrap_err();
    assert_eq!(e.kind, K::BadMagic(0x1234_5678));
    assert!(e.to_string().contains("0xd00dfeed"));
}

#[test]
fn wrong_version() {
    let mut g = good();
    set_word(&mut g, 5, 15);
    assert_eq!(probe(&g).unwrap_err().kind, K::UnsupportedVersion { version: 15, last_comp: 16 });
    let mut g = good();
    set_word(&mut g, 6, 18);
    assert!(matches!(probe(&g).unwrap_err().kind, K::UnsupportedVersion { .. }));
}

#[test]
fn blocks_outside_the_blob() {
    let mut g = good();
    set_word(&mut g, 9, 0x10_0000); // size_dt_struct
    assert!(matches!(probe(&g).unwrap_err().kind, K::BadLayout(_)));
    let mut g = good();
    set_word(&mut g, 3, u32::MAX); // off_dt_strings
    assert!(matches!(probe(&g).unwrap_err().kind, K::BadLayout(_)));
}

#[test]
fn garbled_structure() {
    let mut g = good();
    let off_struct = u32::from_be_bytes(g[8..12].try_into().unwrap()) as usize;
    g[off_struct..off_struct + 4].copy_from_slice(&7u32.to_be_bytes());
    let e = probe(&g).unwrap_err();
    assert!(matches!(e.kind, K::BadStructure { what: "unknown token", offset: 0 }), "{e}");
}

#[test]
fn property_name_offset_outside_strings() {
    let mut g = good();
    let off_struct = u32::from_be_bytes(g[8..12].try_into().unwrap()) as usize;
    // Root node: BEGIN_NODE, empty name padded to 4, then the first PROP: tag, len, nameoff.
    g[off_struct + 16..off_struct + 20].copy_from_slice(&0xffffu32.to_be_bytes());
    assert!(matches!(probe(&g).unwrap_err().kind, K::BadStructure { .. }));
}

#[test]
fn deep_nesting_is_refused() {
    let mut n = support::Node::new("leaf");
    for i in 0..40 {
        n = support::Node::new(&format!("n{i}")).child(n);
    }
    let root = support::Node::new("").child(n);
    assert_eq!(probe(&dtb(&root)).unwrap_err().kind, K::TooDeep);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// Flipping, overwriting or truncating bytes of a valid blob never panics: the probe either
    /// succeeds or returns an error.
    #[test]
    fn mutated_blob_never_panics(edits in prop::collection::vec((any::<usize>(), any::<u8>()), 1..8), cut in any::<usize>(), do_cut in any::<bool>()) {
        let mut g = good();
        for (i, b) in edits {
            let k = i % g.len();
            g[k] = b;
        }
        if do_cut {
            g.truncate(cut % (g.len() + 1));
        }
        let _ = kind(&g);
    }

    /// Words set to interesting values (offsets, lengths, tokens) never panic either.
    #[test]
    fn mutated_words_never_panic(edits in prop::collection::vec((any::<usize>(), prop_oneof![Just(0u32), Just(1), Just(2), Just(3), Just(9), Just(u32::MAX), Just(0x8000_0000), any::<u32>()]), 1..5)) {
        let mut g = good();
        let words = g.len() / 4;
        for (i, v) in edits {
            set_word(&mut g, i % words, v);
        }
        let _ = kind(&g);
    }
}

/// The struct block's word range `[begin, end)` of the first node named `name` (its FDT_BEGIN_NODE
/// through its FDT_END_NODE), walking the tokens of a well-formed blob.
fn node_words(b: &[u8], name: &str) -> (usize, usize) {
    let word = |i: usize| u32::from_be_bytes(b[i * 4..i * 4 + 4].try_into().unwrap());
    let off_struct = u32::from_be_bytes(b[8..12].try_into().unwrap()) as usize / 4;
    let (mut i, mut depth, mut start) = (off_struct, 0usize, None);
    loop {
        match word(i) {
            1 => {
                let n = &b[(i + 1) * 4..];
                let len = n.iter().position(|c| *c == 0).unwrap();
                if start.is_none() && &n[..len] == name.as_bytes() {
                    start = Some((i, depth));
                }
                depth += 1;
                i += 1 + (len + 4) / 4;
            }
            2 => {
                depth -= 1;
                i += 1;
                if let Some((s, d)) = start.filter(|(_, d)| *d == depth) {
                    let _ = d;
                    return (s, i);
                }
            }
            3 => i += 3 + (word(i + 1) as usize).div_ceil(4),
            4 => i += 1,
            _ => panic!("no node {name}"),
        }
    }
}

/// Overwrites words `[from, to)` of `b` with FDT_NOP.
fn nop(b: &mut [u8], from: usize, to: usize) {
    for w in from..to {
        set_word(b, w, 4);
    }
}

/// Word index of the property after the one at word `at` (FDT_PROP, len, nameoff, value).
fn next_prop(b: &[u8], at: usize) -> usize {
    let len = u32::from_be_bytes(b[(at + 1) * 4..(at + 2) * 4].try_into().unwrap()) as usize;
    at + 3 + len.div_ceil(4)
}

#[test]
fn nodes_deleted_with_fdt_nop_are_skipped_as_boot_loaders_and_qemu_leave_them() {
    // QEMU's `virt` (for -dtb) and U-Boot delete nodes by overwriting them with FDT_NOP: the probe
    // reads the rest of the tree as if the node were not there.
    let with_memory = mt7621_board()
        .child(support::Node::new("memory@0").str("device_type", "memory").cells("reg", &[0, 0x1000_0000]));
    let g = dtb(&with_memory);
    let before = format!("{:?}", probe(&g).unwrap());
    let mut n = g.clone();
    let (s, e) = node_words(&n, "memory@0");
    nop(&mut n, s, e);
    assert_eq!(format!("{:?}", probe(&n).unwrap()), before);

    // Elsewhere (a deleted property, a deleted node below the root) the `fdt` reader would assert
    // or stop early: refused by name instead.
    let refused = "FDT_NOP other than among the root's children or before a node's end";
    let (s, _) = node_words(&g, "mac@0");
    let first = s + 1 + (b"mac@0\0".len()).div_ceil(4);
    let second = next_prop(&g, first);
    let mut m = g.clone();
    nop(&mut m, second, next_prop(&g, second));
    let e = probe(&m).unwrap_err();
    assert!(matches!(e.kind, K::BadStructure { what, .. } if what == refused), "{e}");
    let mut d = g.clone();
    let (s, e) = node_words(&g, "mac@0"); // a sibling (mac@1) follows it
    nop(&mut d, s, e);
    let e = probe(&d).unwrap_err();
    assert!(matches!(e.kind, K::BadStructure { what, .. } if what == refused), "{e}");
    // Before a node's end the reader skips them: the MAC's fixed link deleted leaves a MAC whose
    // link is not known, as if the board had none.
    let mut l = g.clone();
    let (s, e) = node_words(&g, "fixed-link");
    nop(&mut l, s, e);
    assert!(probe(&l).unwrap().macs().next().is_some_and(|m| m.link.fixed_speed().is_none()));
}
