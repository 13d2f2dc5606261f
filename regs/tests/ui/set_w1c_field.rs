// A write-1-to-clear field is cleared explicitly, never set.
fn main() {
    let mut v = fe_regs::values::PdmaIrqStatus(0);
    v.set_rx_done(false);
}
