// A read-only register has no write.
fn main() {
    let bus = fe_regs::bus::MemBus::new();
    let msr = fe_regs::mt7621::FE.mac.at(0).unwrap().msr;
    msr.on(&bus).write_value(fe_regs::values::MacMsr(0));
}
