//! Access kinds are enforced by the types: these must not compile (see `ui/*.rs` and their
//! expected errors), while the allowed uses in `allowed_uses` do.

use fe_regs::bus::MemBus;
use fe_regs::mt7621;

#[test]
fn misuse_does_not_compile() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}

#[test]
fn allowed_uses() {
    let bus = MemBus::new();
    let fe = &mt7621::FE;
    // Read-only register: read is allowed.
    let _ = fe.mac.at(0).unwrap().msr.on(&bus).read().link();
    // W1C: modify never writes back pending status bits; clear_* clears one explicitly.
    bus.poke(fe.pdma.irq_status.offset() as usize, u32::MAX);
    fe.pdma.irq_status.on(&bus).modify(|v| v.clear_rx_done());
    assert_eq!(bus.peek(fe.pdma.irq_status.offset() as usize), 1 << 30, "only rx_done is written as 1");
}
