//! Reading YAML files into the syntax tree, with parse errors as diagnostics.

use crate::ast;
use crate::source::{Diagnostic, FileId, Sources, Span};
use std::path::Path;

/// Largest file accepted; register maps are a few tens of KiB.
const MAX_FILE_BYTES: usize = 4 << 20;

/// Reads `path` into `sources`; a missing, unreadable or oversized file becomes a diagnostic.
///
/// At most `MAX_FILE_BYTES` + 1 bytes are read, so an endless input (`/dev/zero`, a pipe that
/// never closes its write end early) or a huge file is refused without filling memory.
pub fn read_file(sources: &mut Sources, path: &Path) -> Result<FileId, Diagnostic> {
    match read_bounded(path, MAX_FILE_BYTES) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => Ok(sources.add(path, text)),
            Err(e) => {
                let id = sources.add(path, String::new());
                Err(Diagnostic::error(
                    Span::file_only(id),
                    format!(
                        "{} is not UTF-8 text (invalid byte at offset {})",
                        path.display(),
                        e.utf8_error().valid_up_to()
                    ),
                ))
            }
        },
        Err(Unread::TooLarge) => {
            let id = sources.add(path, String::new());
            Err(Diagnostic::error(
                Span::file_only(id),
                format!(
                    "{} holds more than {MAX_FILE_BYTES} bytes (4 MiB), the limit for a register map; reading stopped there",
                    path.display()
                ),
            ))
        }
        Err(Unread::Io(e)) => {
            let id = sources.add(path, String::new());
            Err(Diagnostic::error(Span::file_only(id), format!("cannot read {}: {e}", path.display())))
        }
    }
}

/// Why a file was not read.
enum Unread {
    /// It holds more than the limit.
    TooLarge,
    /// The system said no.
    Io(std::io::Error),
}

/// Reads at most `limit` bytes of `path`; one byte more is an error.
fn read_bounded(path: &Path, limit: usize) -> Result<Vec<u8>, Unread> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(Unread::Io)?;
    let mut bytes = Vec::new();
    file.take((limit as u64).saturating_add(1)).read_to_end(&mut bytes).map_err(Unread::Io)?;
    if bytes.len() > limit { Err(Unread::TooLarge) } else { Ok(bytes) }
}

/// Parses the text of file `id` as one register-language document.
pub fn parse(sources: &Sources, id: FileId) -> Result<ast::File, Diagnostic> {
    let text = &sources.get(id).text;
    if text.len() > MAX_FILE_BYTES {
        return Err(Diagnostic::error(
            Span::file_only(id),
            format!("file is {} bytes; register maps are limited to {MAX_FILE_BYTES}", text.len()),
        ));
    }
    serde_saphyr::from_str::<ast::File>(text).map_err(|e| to_diagnostic(id, text, &e))
}

fn to_diagnostic(id: FileId, text: &str, e: &serde_saphyr::Error) -> Diagnostic {
    if let serde_saphyr::Error::Budget { breach, .. } = e.without_snippet() {
        // The parser's own text for this is its Debug output (`Nodes { nodes: 250001 }`).
        let span = match e.location() {
            Some(loc) if loc.line() > 0 => Span::from_location(id, &loc),
            _ => Span::file_only(id),
        };
        return Diagnostic::error(
            span,
            format!(
                "register map too large or too complex: {}, more than the YAML parser allows",
                budget_words(breach)
            ),
        )
        .note("the YAML parser stops at limits that keep runaway input from exhausting memory");
    }
    let message = e.without_snippet().to_string();
    // The parser's message ends with its own "at line X column Y"; our span carries that.
    let message = match message.find(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    let message = message.lines().next().unwrap_or("malformed YAML").trim().to_string();
    // The parser suggests an API option to its own callers; a map author cannot set it.
    let message = match message.find(", set DuplicateKeyPolicy") {
        Some(i) => format!("{} (each name may appear once in a mapping)", &message[..i]),
        None => message,
    };
    let span = match e.location() {
        Some(loc) if loc.line() > 0 => {
            let mut s = Span::from_location(id, &loc);
            if s.start == 0 && s.end == 0 {
                s.start = line_col_to_offset(text, s.line, s.col);
                s.end = s.start;
            }
            s
        }
        _ => Span::file_only(id),
    };
    let mut d = Diagnostic::error(span, format!("malformed register map: {message}"));
    if let Some(hint) = unknown_key_hint(&message) {
        d = d.note(hint);
    }
    d
}

/// What tripped one of the YAML parser's limits, in words.
fn budget_words(breach: &serde_saphyr::budget::BudgetBreach) -> String {
    use serde_saphyr::budget::BudgetBreach as B;
    match breach {
        B::Events { events } => format!("{events} parser events (values, keys and brackets)"),
        B::Aliases { aliases } => format!("{aliases} uses of aliases (`*name`)"),
        B::Anchors { anchors } => format!("{anchors} anchors (`&name`)"),
        B::Depth { depth } => format!("lists and mappings nested {depth} deep"),
        B::InclusionDepth { depth } => format!("includes nested {depth} deep"),
        B::Documents { documents } => format!("{documents} YAML documents in one file (a map is one)"),
        B::Nodes { nodes } => format!("{nodes} values, lists and mappings"),
        B::ScalarBytes { total_scalar_bytes } => format!("{total_scalar_bytes} bytes of text in values"),
        B::MergeKeys { merge_keys } => format!("{merge_keys} merge keys (`<<`)"),
        B::AliasAnchorRatio { aliases, anchors } => {
            format!("{aliases} uses of aliases for {anchors} anchors (aliases would multiply the document)")
        }
        B::SequenceUnbalanced => "a list or mapping is closed that was never opened".to_string(),
        B::InputBytes { input_bytes } => format!("{input_bytes} bytes of input"),
        B::RecordedAnchorEvents { recorded_anchor_events } => {
            format!("aliases that would copy {recorded_anchor_events} parser events")
        }
        B::RecordedAnchorBytes { recorded_anchor_bytes } => {
            format!("aliases that would copy {recorded_anchor_bytes} bytes")
        }
        B::PropertyExpansionDepth { depth, max_depth } => {
            format!("properties expanded {depth} deep (at most {max_depth})")
        }
        B::PropertyInterpolationWork { work, max_work } => {
            format!("property interpolation work of {work} (at most {max_work})")
        }
        _ => "a limit of the YAML parser was reached".to_string(),
    }
}

/// The capabilities a map may have (keys under `capabilities:`, and what
/// `remove: [capabilities.NAME]` accepts).
pub(crate) const CAPABILITY_NAMES: [&str; 13] = [
    "rx_checksum",
    "tx_queues",
    "rx_rings",
    "hw_lro",
    "irq",
    "tx_descriptor",
    "rx_descriptor",
    "rings",
    "cold_reset",
    "shaper",
    "macs",
    "clocks",
    "path_setup",
];

/// Keys known anywhere in the language besides [`CAPABILITY_NAMES`], for "did you mean" on
/// unknown keys.
const KNOWN_KEYS: &[&str] = &[
    "name",
    "abstract",
    "extends",
    "remove",
    "description",
    "spaces",
    "descriptors",
    "soc",
    "blocks",
    "base",
    "array",
    "registers",
    "offset",
    "access",
    "reset",
    "fields",
    "bits",
    "enum",
    "count",
    "stride",
    "size",
    "word",
    "compatible",
    "capabilities",
    "register",
    "mask",
    "rates",
    "speed",
    "man",
    "exp",
    "weight",
    "phy_modes",
    "lines",
    "shared",
    "tx",
    "rx",
    "sram",
    "dram",
    "ring_size",
    "buffer_size",
    "max_segments",
    "timer_unit_us",
    "age_time_us",
    "max_agg_time_us",
    "min_room",
    "dip_rules_per_mac",
    "dt",
    "property",
    "index",
    "macs",
    "modes",
    "set",
    "names",
];

#[allow(clippy::arithmetic_side_effects, reason = "positions within a text, bounded by its length")]
fn unknown_key_hint(message: &str) -> Option<String> {
    let start = message.find("unknown field `")? + "unknown field `".len();
    let rest = &message[start..];
    let key = &rest[..rest.find('`')?];
    let best = KNOWN_KEYS.iter().chain(&CAPABILITY_NAMES).map(|k| (edit_distance(key, k), *k)).min()?;
    (best.0 <= 2 && best.0 < key.len()).then(|| format!("help: did you mean `{}`?", best.1))
}

/// Levenshtein distance, for suggestions.
#[allow(clippy::arithmetic_side_effects, reason = "positions within a text, bounded by its length")]
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[allow(clippy::arithmetic_side_effects, reason = "positions within a text, bounded by its length")]
fn line_col_to_offset(text: &str, line: u32, col: u32) -> usize {
    let mut off = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line as usize {
            return (off + col.saturating_sub(1) as usize).min(off + l.len());
        }
        off += l.len();
    }
    text.len()
}
