// A read-only register reached through a bound view has no write either.
fn main() {
    let bus = fe_regs::bus::MemBus::new();
    let fe = fe_regs::mt7621::FE.bind(&bus);
    fe.mac().at(0).unwrap().msr().write_value(fe_regs::values::MacMsr(0));
}
