// Only the generated maps make register specs: a spec of one's own could give a read-only
// register's offset a writable access kind.
fn main() {
    let _ = fe_regs::bus::RegSpec::<fe_regs::values::MacMsr, fe_regs::bus::Rw>::new(0x108, fe_regs::values::MacMsr(0));
}
