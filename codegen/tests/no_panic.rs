//! Robustness: mutated register maps never make ddgen panic; whatever passes validation generates
//! Rust that parses (the generated crate itself is compiled by the regs build).

use proptest::prelude::*;

const MINI: &str = include_str!("fixtures/mini/mt9999.yaml");
const BASE: &str = include_str!("../../regs/netsys-v1.yaml");
const MT7623: &str = include_str!("../../regs/mt7623.yaml");

#[derive(Debug, Clone)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    ReplaceNumber(usize, u64),
    ReplaceByte(usize, u8),
    Truncate(usize),
    SwapLines(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::DeleteLine),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (
            any::<usize>(),
            prop_oneof![Just(0u64), Just(31), Just(32), Just(u32::MAX as u64 + 1), Just(u64::MAX), any::<u64>()]
        )
            .prop_map(|(i, v)| Mutation::ReplaceNumber(i, v)),
        (
            any::<usize>(),
            prop_oneof![Just(b':'), Just(b'"'), Just(b'['), Just(b'{'), Just(b' '), Just(b'\n'), 0x20u8..0x7f]
        )
            .prop_map(|(i, b)| Mutation::ReplaceByte(i, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
    ]
}

fn apply(text: &str, muts: &[Mutation]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for m in muts {
        let n = lines.len().max(1);
        match *m {
            Mutation::DeleteLine(i) if !lines.is_empty() => {
                lines.remove(i % n);
            }
            Mutation::DuplicateLine(i) if !lines.is_empty() => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Mutation::ReplaceNumber(i, v) => {
                let joined = lines.join("\n");
                let starts: Vec<usize> = joined
                    .char_indices()
                    .filter(|&(k, c)| {
                        c.is_ascii_digit() && (k == 0 || !joined.as_bytes()[k - 1].is_ascii_alphanumeric())
                    })
                    .map(|(k, _)| k)
                    .collect();
                if let Some(&k) = starts.get(i % starts.len().max(1)) {
                    let end = joined[k..].find(|c: char| !c.is_ascii_alphanumeric()).map_or(joined.len(), |e| k + e);
                    let s = format!("{}{}{}", &joined[..k], v, &joined[end..]);
                    lines = s.lines().map(str::to_string).collect();
                }
            }
            Mutation::ReplaceByte(i, b) => {
                let mut joined = lines.join("\n").into_bytes();
                if !joined.is_empty() {
                    let k = i % joined.len();
                    joined[k] = b;
                }
                lines = String::from_utf8_lossy(&joined).lines().map(str::to_string).collect();
            }
            Mutation::Truncate(i) => {
                let joined = lines.join("\n");
                let mut k = i % (joined.len() + 1);
                while !joined.is_char_boundary(k) {
                    k -= 1;
                }
                lines = joined[..k].lines().map(str::to_string).collect();
            }
            Mutation::SwapLines(a, b) if !lines.is_empty() => lines.swap(a % n, b % n),
            _ => {}
        }
    }
    lines.join("\n")
}

fn run(files: &[(&str, &str)]) -> Result<(), TestCaseError> {
    match ddgen::load_texts(files) {
        Ok(p) => {
            let code = match ddgen::generate(&p) {
                Ok(g) => g.file(),
                Err(e) => return Err(TestCaseError::fail(format!("accepted input: {e}"))),
            };
            prop_assert!(syn::parse_file(&code).is_ok(), "accepted input generated Rust that does not parse");
            for (m, c) in p.maps.iter().zip(&p.caps) {
                let _ = ddgen::dump::to_json(m, c.as_ref());
            }
        }
        Err(r) => {
            prop_assert!(r.error_count() > 0);
            let text = r.render();
            prop_assert!(text.contains("error"), "a failed load rendered no error");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn mutated_small_map_never_panics(muts in prop::collection::vec(mutation(), 1..5)) {
        run(&[("mt9999.yaml", &apply(MINI, &muts))])?;
    }

    #[test]
    fn mutated_derived_map_never_panics(muts in prop::collection::vec(mutation(), 1..4), which in 0..2usize) {
        let (base, derived) = if which == 0 { (apply(BASE, &muts), MT7623.to_string()) } else { (BASE.to_string(), apply(MT7623, &muts)) };
        run(&[("netsys-v1.yaml", &base), ("mt7623.yaml", &derived)])?;
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,200}") {
        run(&[("any.yaml", &text)])?;
    }
}
