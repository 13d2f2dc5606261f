// A read-only field has no setter.
fn main() {
    let mut v = fe_regs::values::MacMsr(0);
    v.set_link(true);
}
