//! Syscon spaces and interrupt names on every bundled board (found in `dts/` by compatible),
//! with the expectations taken from the SoC's data (`dt:` locations, `path_setup`, `irq.names`)
//! and the board itself: each variant is the bundled board plus a small overlay compiled with it.
//!
//! * Every syscon a board needs is located (node path and `reg`), and the platform-facing list
//!   holds exactly the spaces the node names.
//! * Deleting the property of a needed syscon fails the probe naming the Ethernet node and the
//!   property; deleting one the board does not need is accepted.
//! * `interrupt-names` decide the TX/RX lines on SoCs that name them; a name missing is an error
//!   naming the node; without the property the indices hold.

mod support_sim;

use fe_driver::dt::{Board, IrqLines, ProbeErrorKind as K, probe};
use std::path::PathBuf;
use support_sim::support_boards::{self, Bundled};

/// `b` compiled with `overlay` (dts text applied to the Ethernet node at `eth_path`).
fn variant(b: &Bundled, eth_path: &str, overlay: &str) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("fe-probe-spaces-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{}-{:x}.dts", b.file, fxhash(overlay)));
    let text = format!("#include \"{}\"\n\n&{{{eth_path}}} {{\n{overlay}\n}};\n", b.path.display());
    std::fs::write(&file, text).unwrap();
    let dts_dir: PathBuf = b.path.parent().unwrap().to_path_buf();
    fe_linux::dtc::compile(&file, &[dts_dir]).unwrap_or_else(|e| panic!("{}: {e}", b.file))
}

fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, c| (h ^ u64::from(c)).wrapping_mul(0x100_0000_01b3))
}

/// The board's syscon locations: (space, property, index).
fn syscons(board: &Board<'_>) -> Vec<(fe_regs::Space, &'static str, u8)> {
    board.soc.spaces.iter().filter(|l| !l.is_own_reg()).map(|l| (l.space, l.property, l.index)).collect()
}

#[test]
fn every_needed_syscon_is_located() {
    for b in support_boards::all() {
        let board = probe(&b.dtb).unwrap_or_else(|e| panic!("{}: {e}", b.file));
        for (space, prop, _) in syscons(&board) {
            let at = board.space(space);
            if let Some(need) = board.needs(space) {
                let at = at
                    .unwrap_or_else(|| panic!("{}: {} ({prop}) needed by {need} but not found", b.file, space.name()));
                assert!(at.reg.size > 0 && !at.path.to_string().is_empty(), "{}: {at:?}", b.file);
            }
        }
        assert!(board.syscons().all(|s| board.soc.space(s.space).is_some()), "{}", b.file);
    }
}

#[test]
fn a_missing_needed_syscon_names_the_node_and_property_and_an_unneeded_one_is_fine() {
    let mut needed_cases = 0;
    for b in support_boards::all() {
        let board = probe(&b.dtb).unwrap();
        let eth = board.path.to_string();
        let mut props: Vec<&'static str> = syscons(&board).into_iter().map(|(_, p, _)| p).collect();
        props.dedup();
        for prop in props {
            let needed: Vec<String> = syscons(&board)
                .into_iter()
                .filter(|(s, p, _)| *p == prop && board.needs(*s).is_some())
                .map(|(s, _, _)| s.name().to_string())
                .collect();
            let dtb = variant(&b, &eth, &format!("\t/delete-property/ {prop};"));
            match probe(&dtb) {
                Ok(_) => assert!(
                    needed.is_empty(),
                    "{}: without {prop} the probe accepted the board, yet {needed:?} are needed",
                    b.file
                ),
                Err(e) => {
                    assert!(!needed.is_empty(), "{}: {prop} is not needed, yet: {e}", b.file);
                    assert_eq!((e.path.to_string(), e.property), (eth.clone(), Some(prop)), "{}: {e}", b.file);
                    assert!(matches!(e.kind, K::MissingProperty | K::MissingSpace { .. }), "{}: {e}", b.file);
                    needed_cases += 1;
                }
            }
        }
    }
    assert!(needed_cases > 0, "no bundled board needs a syscon");
}

#[test]
fn interrupt_names_choose_the_lines_and_a_missing_name_is_an_error() {
    for b in support_boards::all() {
        let board = probe(&b.dtb).unwrap();
        let eth = board.path.to_string();
        let by_index = IrqLines::by_index(board.soc);
        assert_eq!(board.irq_lines, by_index, "{}: without interrupt-names the indices hold", b.file);
        let n = board.irqs().len();
        let Some(names) = board.soc.caps.irq.names else {
            // A SoC that names no line keeps its indices even when the node has names.
            let list: Vec<String> = (0..n).map(|i| format!("\"irq{i}\"")).collect();
            let dtb = variant(&b, &eth, &format!("\tinterrupt-names = {};", list.join(", ")));
            assert_eq!(probe(&dtb).unwrap().irq_lines, by_index, "{}", b.file);
            continue;
        };
        // Names in reverse line order: TX and RX come from the names, not the indices.
        let mut list: Vec<String> = (0..n).map(|i| format!("other{i}")).collect();
        let (tx, rx) = (n - 1, n - 2);
        list[tx] = names.tx.to_string();
        list[rx] = names.rx.to_string();
        let quoted = |l: &[String]| l.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", ");
        let dtb = variant(&b, &eth, &format!("\tinterrupt-names = {};", quoted(&list)));
        let lines = probe(&dtb).unwrap_or_else(|e| panic!("{}: {e}", b.file)).irq_lines;
        assert_eq!(lines, IrqLines { tx: tx as u8, rx: rx as u8, by_name: true }, "{}", b.file);
        // The RX name missing: an error naming the node, the property and the name.
        list[rx] = "not-it".into();
        let dtb = variant(&b, &eth, &format!("\tinterrupt-names = {};", quoted(&list)));
        let e = probe(&dtb).expect_err("a missing interrupt name");
        assert_eq!((e.path.to_string(), e.property), (eth.clone(), Some("interrupt-names")), "{}", b.file);
        assert_eq!(e.kind, K::IrqNameMissing { name: names.rx, role: "rx" }, "{}", b.file);
        assert!(e.to_string().contains(names.rx), "{}: {e}", b.file);
    }
}
