// Access kinds are sealed: no crate can declare a marker of its own `Writable`.
#[derive(Clone, Copy)]
struct Mine;
impl fe_regs::bus::Access for Mine {}
impl fe_regs::bus::Writable for Mine {}

fn main() {}
