//! SVG bitfield diagrams: a 32-bit word drawn as two rows of 16 bits, each field a box at its bit
//! positions with its name and access kind; bits no field covers are shaded (reserved).
#![allow(
    clippy::arithmetic_side_effects,
    reason = "pixel layout of bits 0..=31; field bounds from YAML are clamped where they are read"
)]

use super::html::esc;
use std::fmt::Write;

/// One field to draw.
#[derive(Debug, Clone)]
pub struct Seg<'a> {
    /// Field name.
    pub name: &'a str,
    /// Lowest bit.
    pub lsb: u32,
    /// Number of bits.
    pub width: u32,
    /// Access keyword (`rw`), or `None` for descriptor fields.
    pub access: Option<&'a str>,
}

/// Fill colour of a field by access kind (the legend in the page's CSS matches).
pub fn fill(access: Option<&str>) -> &'static str {
    match access {
        Some("rw") => "#cfe3ff",
        Some("ro") => "#d6f0cc",
        Some("wo") => "#ffe0bd",
        Some("w1c") => "#f7cccc",
        Some("rc") => "#e6d8f7",
        _ => "#fff1a8",
    }
}

/// Fill of reserved bits.
pub const RESERVED_FILL: &str = "#bdbdbd";

const CELL: u32 = 40;
const NUM_H: u32 = 14;
const BOX_H: u32 = 44;
const ROW_H: u32 = NUM_H + BOX_H + 8;

/// The diagram of one 32-bit word; `title` is the accessible name of the image.
pub fn word(title: &str, segs: &[Seg]) -> String {
    let w = 16 * CELL + 4;
    let h = 2 * ROW_H;
    let mut s = format!(
        "<svg class=\"bits\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"{}\">",
        esc(title)
    );
    let _ = write!(s, "<title>{}</title>", esc(title));
    let mut covered = [false; 32];
    for sg in segs {
        for b in sg.lsb..sg.lsb.saturating_add(sg.width).min(32) {
            covered[b as usize] = true;
        }
    }
    for row in 0..2u32 {
        let hi = 31 - 16 * row;
        let lo = hi - 15;
        let y0 = row * ROW_H;
        // Bit numbers and reserved cells.
        for b in lo..=hi {
            let x = (hi - b) * CELL + 2;
            let _ = write!(
                s,
                "<text x=\"{}\" y=\"{}\" class=\"n\" text-anchor=\"middle\">{b}</text>",
                x + CELL / 2,
                y0 + NUM_H - 3
            );
            if !covered[b as usize] {
                let _ = write!(
                    s,
                    "<rect x=\"{x}\" y=\"{}\" width=\"{CELL}\" height=\"{BOX_H}\" fill=\"{RESERVED_FILL}\" stroke=\"#555\" stroke-width=\"0.5\"><title>bit {b}: reserved</title></rect>",
                    y0 + NUM_H
                );
            }
        }
        for sg in segs {
            let f_lo = sg.lsb.max(lo);
            let f_hi = sg.lsb.saturating_add(sg.width).saturating_sub(1).min(hi).min(31);
            if sg.width == 0 || f_lo > f_hi {
                continue;
            }
            let x = (hi - f_hi) * CELL + 2;
            let cw = (f_hi - f_lo + 1) * CELL;
            let msb = sg.lsb.saturating_add(sg.width).saturating_sub(1);
            let bits = if sg.width == 1 { format!("{}", sg.lsb) } else { format!("{msb}:{}", sg.lsb) };
            let tip = match sg.access {
                Some(a) => format!("{} [{bits}] {a}", sg.name),
                None => format!("{} [{bits}]", sg.name),
            };
            let _ = write!(
                s,
                "<g><title>{}</title><rect x=\"{x}\" y=\"{}\" width=\"{cw}\" height=\"{BOX_H}\" fill=\"{}\" stroke=\"#222\" stroke-width=\"1\"/>",
                esc(&tip),
                y0 + NUM_H,
                fill(sg.access)
            );
            // About 6.4 units per character at font-size 11, 4.6 at the small size.
            let fit = ((cw as f32 - 4.0) / 6.4) as usize;
            let (class, fit) =
                if sg.name.chars().count() <= fit { ("f", fit) } else { ("s", ((cw as f32 - 3.0) / 4.6) as usize) };
            let label = shorten(sg.name, fit.max(1));
            let cx = x + cw / 2;
            let _ = write!(
                s,
                "<text x=\"{cx}\" y=\"{}\" class=\"{class}\" text-anchor=\"middle\">{}</text>",
                y0 + NUM_H + 20,
                esc(&label)
            );
            if let Some(a) = sg.access {
                let _ = write!(
                    s,
                    "<text x=\"{cx}\" y=\"{}\" class=\"a\" text-anchor=\"middle\">{a}</text>",
                    y0 + NUM_H + 36
                );
            }
            s.push_str("</g>");
        }
    }
    s.push_str("</svg>");
    s
}

/// `name` cut to `max` characters, ending in `~` when cut.
fn shorten(name: &str, max: usize) -> String {
    let n = name.chars().count();
    if n <= max {
        name.to_string()
    } else if max <= 1 {
        "~".to_string()
    } else {
        let mut t: String = name.chars().take(max - 1).collect();
        t.push('~');
        t
    }
}

/// A stand-alone SVG file of one diagram (with its own font styles), for embedding in Markdown.
pub fn standalone(title: &str, segs: &[Seg]) -> String {
    let inner = word(title, segs);
    let style = format!("<style>{}</style>", STYLE);
    let inner = inner.replacen("<title>", &format!("{style}<title>"), 1);
    format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{inner}\n")
}

/// Text styles of the diagrams (also included in the HTML pages' CSS).
pub const STYLE: &str = "svg.bits text{font-family:sans-serif;fill:#111}svg.bits .n{font-size:9px;fill:#555}svg.bits .f{font-size:11px}svg.bits .s{font-size:8px}svg.bits .a{font-size:9px;font-style:italic;fill:#333}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_bits_are_shaded_and_fields_drawn() {
        let segs = [
            Seg { name: "en", lsb: 0, width: 1, access: Some("rw") },
            Seg { name: "count", lsb: 8, width: 16, access: Some("ro") },
        ];
        let s = word("r", &segs);
        // 32 - 17 covered bits = 15 reserved cells.
        assert_eq!(s.matches(RESERVED_FILL).count(), 15);
        // The 16-bit field crosses the row boundary: drawn twice.
        assert_eq!(s.matches(fill(Some("ro"))).count(), 2);
        assert!(s.contains(">en<") && s.contains(">count<"));
    }

    #[test]
    fn long_names_are_shortened_to_fit() {
        assert_eq!(shorten("abcdef", 4), "abc~");
        assert_eq!(shorten("abc", 4), "abc");
    }
}
