//! Every bundled board's guest tree (the board's Ethernet node moved onto `virt` by
//! `fe guest-dts`) gives the device what the guest's driver will look for: one window per space
//! the SoC locates, at the placement's addresses, one GIC SPI per interrupt, registers that read
//! their reset values through the window, and MMIO writes that the trace names by register.

#[path = "../../../driver/tests/support_boards/mod.rs"]
mod support_boards;

use fe_linux::guest_dt::{Placement, fragment};
use fe_qemu_model::options::Options;
use fe_qemu_model::{Device, Host};
use fe_regs::meta::AccessKind;

/// A root node shaped like `virt`'s (2 address and size cells, a GIC as interrupt parent).
const ROOT: &str = "/dts-v1/;\n/ {\n\t#address-cells = <2>;\n\t#size-cells = <2>;\n\tinterrupt-parent = <&gic>;\n\tgic: intc@8000000 {\n\t\tcompatible = \"arm,cortex-a15-gic\";\n\t\treg = <0 0x8000000 0 0x10000>;\n\t\tinterrupt-controller;\n\t\t#interrupt-cells = <3>;\n\t};\n};\n";

#[derive(Default)]
struct Recorder {
    lines: Vec<(u32, bool)>,
    log: Vec<String>,
}

impl Host for Recorder {
    fn set_irq(&mut self, line: u32, level: bool) {
        self.lines.push((line, level));
    }
    fn transmit(&mut self, _mac: u32, _frame: &[u8]) {}
    fn log(&mut self, line: &str) {
        self.log.push(line.to_string());
    }
}

fn guest_dtb(b: &support_boards::Bundled, at: Placement) -> Vec<u8> {
    edited_guest_dtb(b, at, |t| t)
}

/// [`guest_dtb`] with the generated fragment's text passed through `edit` first.
fn edited_guest_dtb(b: &support_boards::Bundled, at: Placement, edit: impl FnOnce(String) -> String) -> Vec<u8> {
    let board = fe_driver::dt::probe(&b.dtb).unwrap();
    let text = format!("{ROOT}{}", edit(fragment(&b.dtb, &board, at).unwrap()));
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("fe-guest-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{}.dts", b.file));
    std::fs::write(&path, &text).unwrap();
    let dtb = fe_linux::dtc::compile(&path, &[]).unwrap_or_else(|e| panic!("{}: {e}\n{text}", b.file));
    let _ = std::fs::remove_dir_all(&dir);
    dtb
}

fn ram() -> &'static mut [u8] {
    Box::leak(vec![0u8; 1 << 20].into_boxed_slice())
}

#[test]
fn every_board_moves_onto_virt_with_its_windows_lines_and_registers() {
    let at = Placement::default();
    for b in support_boards::all() {
        let dtb = guest_dtb(&b, at);
        let original = fe_driver::dt::probe(&b.dtb).unwrap();
        let trace = std::env::temp_dir().join(format!("fe-trace-{}-{}", std::process::id(), b.file));
        let opts = Options { trace: Some(trace.to_string_lossy().into_owned()) };
        let mut dev = Device::new(&dtb, &opts, ram(), 0x4000_0000).unwrap_or_else(|e| panic!("{}: {e}", b.file));
        // One window per space the board locates, frame engine first at the placement's base.
        assert_eq!(dev.windows().len(), 1 + original.syscons().count(), "{}", b.file);
        assert_eq!(dev.windows()[0].base, at.base, "{}", b.file);
        assert_eq!(dev.windows()[0].size, fe_linux::guest_dt::fe_window(&original), "{}", b.file);
        assert!(dev.windows()[0].size >= original.reg.size, "{}", b.file);
        let spis: Vec<u32> = (0..u32::from(original.nirqs)).map(|i| at.first_spi + i).collect();
        assert_eq!(dev.spis(), &spis[..], "{}", b.file);
        // Registers read their reset values through the windows (read-write ones, not counters).
        let mut host = Recorder::default();
        let mut checked = 0;
        for (i, w) in dev.windows().to_vec().iter().enumerate() {
            for r in b.soc.registers.iter().filter(|r| r.space == w.space && matches!(r.access, AccessKind::Rw)) {
                let v = dev.read(i as u32, u64::from(r.offset), 4, &mut host);
                assert_eq!(v, u64::from(r.reset), "{}: {} through window {}", b.file, r.name, w.space.name());
                checked += 1;
            }
        }
        assert!(checked > 0, "{}: no read-write register read", b.file);
        // A write is traced by name, and nothing was illegal.
        let glo = b.soc.registers.iter().find(|r| r.name.ends_with("glo_cfg")).unwrap();
        dev.write(0, u64::from(glo.offset), 0, 4, &mut host);
        assert!(host.log.is_empty(), "{}: {:?}", b.file, host.log);
        drop(dev);
        let t = std::fs::read_to_string(&trace).unwrap();
        let _ = std::fs::remove_file(&trace);
        assert!(t.contains(glo.name), "{}: trace {t:?}", b.file);
    }
}

#[test]
fn a_broken_tree_and_overlapping_windows_are_refused_by_name() {
    for b in support_boards::all() {
        let dtb = guest_dtb(&b, Placement::default());
        let e = Device::new(&dtb[..64], &Options::default(), ram(), 0x4000_0000).unwrap_err();
        assert!(!e.is_empty(), "{}", b.file);
        // A tree (written by hand, say) whose first syscon sits inside the frame engine's
        // window: the device would map an address twice. (`fe guest-dts` itself places syscons
        // after the window.)
        let at = Placement::default();
        let board = fe_driver::dt::probe(&b.dtb).unwrap();
        if board.syscons().count() > 0 {
            let first = at.base + at.stride.max(fe_linux::guest_dt::fe_window(&board));
            let moved = edited_guest_dtb(&b, at, |t| {
                t.replacen(&format!("reg = <0x0 {first:#x} "), &format!("reg = <0x0 {:#x} ", at.base + 0x1000), 1)
            });
            let e = Device::new(&moved, &Options::default(), ram(), 0x4000_0000).unwrap_err();
            assert!(e.contains("overlap") && e.contains("`fe`"), "{}: {e}", b.file);
        }
    }
}
