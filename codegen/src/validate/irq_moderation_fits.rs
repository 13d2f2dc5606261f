//! Rule: interrupt moderation (`irq.moderation`) can be written into the delay-interrupt
//! registers: each limit fits its field, the time is a whole number of register time units, and
//! each direction has at least one limit (with neither, the delayed interrupt never fires).

use crate::caps::{DELAY_IRQ_REGISTERS, sub};
use crate::model::{In, Map};
use crate::source::Diagnostic;

/// Reports moderation limits the delay-interrupt registers cannot hold.
pub fn check(map: &Map, diags: &mut Vec<Diagnostic>) {
    let Some(irq) = map.caps.irq.as_ref() else { return };
    let Some(m) = irq.value.value.moderation.as_ref() else { return };
    let m: In<_> = sub(irq, m);
    let md = &m.value.value;
    let unit = md.time_unit_us.value;
    let Some(unit) = core::num::NonZeroU64::new(unit).filter(|u| u.get() <= 1_000_000) else {
        diags.push(Diagnostic::error(
            sub(&m, &md.time_unit_us).span(),
            format!("`irq.moderation.time_unit_us` is {unit}; it must be 1..=1000000"),
        ));
        return;
    };
    for reg in DELAY_IRQ_REGISTERS {
        if map.find_register(reg).is_none() {
            diags.push(
                Diagnostic::error(
                    m.span(),
                    format!("interrupt moderation needs register `{reg}`, which `{}` does not have", map.name.value),
                )
                .label("the driver programs the moderation into this register")
                .note("remove `moderation:` for a SoC without delay-interrupt registers"),
            );
        }
    }
    for (dir, lim) in [("rx", &md.rx), ("tx", &md.tx)] {
        let l = &lim.value;
        let (packets, time) = (l.packets.value, l.time_us.value);
        if packets == 0 && time == 0 {
            diags.push(
                Diagnostic::error(
                    sub(&m, lim).span(),
                    format!("`irq.moderation.{dir}` sets neither limit: the delayed {dir} interrupt would never fire"),
                )
                .label("give `packets`, `time_us` or both a non-zero value"),
            );
            continue;
        }
        if time % unit != 0 {
            diags.push(Diagnostic::error(
                sub(&m, &l.time_us).span(),
                format!("`irq.moderation.{dir}.time_us` ({time}) is not a multiple of the time unit ({unit} us)"),
            ));
        }
        for reg in DELAY_IRQ_REGISTERS {
            let Some((_, _, r)) = map.find_register(reg) else { continue };
            for (field, value, what, span) in [
                (format!("{dir}_pint"), packets, "packets", sub(&m, &l.packets).span()),
                (format!("{dir}_ptime"), time / unit, "time units", sub(&m, &l.time_us).span()),
            ] {
                match r.fields.iter().find(|f| f.name.value == field) {
                    None => diags.push(Diagnostic::error(
                        span,
                        format!("interrupt moderation needs field `{field}` in register `{reg}`"),
                    )),
                    Some(f) => {
                        let w = f.bits.value.width;
                        if value > f.bits.value.max_value() {
                            diags.push(
                                Diagnostic::error(
                                    span,
                                    format!("{value} {what} do not fit field `{field}` of `{reg}` ({w} bits)"),
                                )
                                .with(f.name.span, format!("`{field}` is defined here")),
                            );
                        }
                    }
                }
            }
        }
    }
}
