// Moving a writable register onto another offset is the generated maps' alone.
use fe_regs::bus::Relocate;

fn main() {
    let glo = fe_regs::mt7621::FE.pdma.glo_cfg;
    let _ = glo.relocate(4, fe_regs::bus::Inside(()));
}
