//! ddgen: generates typed Rust register crates from YAML descriptions of MediaTek frame engines.
//!
//! The pipeline is `load` (YAML to syntax tree, with spans) -> `resolve` (apply `extends`) ->
//! `validate` (one rule per pass) -> `caps` (check capabilities) -> `emit` (Rust via `quote`,
//! printed with `prettyplease`). The runtime capability types and each SoC's capability literal
//! come from one definition, [`caps_schema`]. Every error is a [`Diagnostic`] that names file, line and column.
//! The language is documented in `regs/README.md`.
//!
//! ```
//! // A map from memory (files go through `ddgen::load`); `abstract` skips the SoC checks.
//! let yaml = "
//! name: demo
//! abstract: true
//! spaces:
//!   fe:
//!     blocks:
//!       pdma:
//!         base: 0x800
//!         registers:
//!           glo_cfg:
//!             offset: 0x204
//!             access: rw
//!             fields:
//!               tx_dma_en: {bits: 0, description: TX DMA on}
//!               burst: {bits: '5:4', enum: {b4: 0, b8: 1, b16: 2}}
//! ";
//! let project = ddgen::load_texts(&[("demo.yaml", yaml)]).map_err(|r| r.render()).unwrap();
//! let map = project.map("demo").unwrap();
//! let (_, block, reg) = map.find_register("fe.pdma.glo_cfg").unwrap();
//! assert_eq!(block.base.value + reg.offset.value, 0xa04);
//! // The same model as CMSIS-SVD and as a bitfield diagram.
//! let svd = ddgen::svd::to_svd(map, &Default::default());
//! assert!(svd.contains("<name>burst</name>") && svd.contains("<name>b16</name>"));
//! let svg = ddgen::doc::register_svg(map, "fe.pdma.glo_cfg").unwrap();
//! assert!(svg.contains("tx_dma_en"));
//! ```
#![deny(clippy::arithmetic_side_effects)]
// Diagnostics are returned by value on the (cold) error path; boxing them buys nothing.
#![allow(clippy::result_large_err)]

pub mod ast;
pub mod caps;
pub mod caps_schema;
pub mod codegen_model;
pub mod doc;
pub mod dump;
pub mod emit;
pub mod load;
pub mod model;
pub mod path_setup;
pub mod resolve;
pub mod source;
pub mod svd;
pub mod validate;

pub use emit::{Generated, InvalidRust, generate};
pub use source::{Diagnostic, Report, Severity, Sources, Span};

use model::Map;
use std::path::{Path, PathBuf};

/// A loaded, resolved and validated set of register maps.
#[derive(Debug, Clone)]
pub struct Project {
    /// The files read.
    pub sources: Sources,
    /// Every resolved map (abstract bases included), sorted by name.
    pub maps: Vec<Map>,
    /// Checked capabilities, parallel to `maps` (`None` for abstract bases).
    pub caps: Vec<Option<caps::SocCaps>>,
    /// Warnings (legal but suspicious input).
    pub warnings: Vec<Diagnostic>,
}

impl Project {
    /// The concrete SoCs with their capabilities, sorted by name.
    pub fn socs(&self) -> impl Iterator<Item = (&Map, &caps::SocCaps)> {
        self.maps.iter().zip(&self.caps).filter_map(|(m, c)| c.as_ref().map(|c| (m, c)))
    }

    /// Finds a map by name.
    pub fn map(&self, name: &str) -> Option<&Map> {
        self.maps.iter().find(|m| m.name.value == name)
    }
}

/// Loads, resolves and validates the given files; on any error returns every diagnostic found.
pub fn load(paths: &[PathBuf]) -> Result<Project, Report> {
    let mut sources = Sources::default();
    let mut diags = Vec::new();
    let mut ids = Vec::new();
    for p in paths {
        match load::read_file(&mut sources, p) {
            Ok(id) => ids.push(id),
            Err(d) => diags.push(d),
        }
    }
    finish(sources, ids, diags)
}

/// Like [`load()`], from in-memory texts `(path, text)` (for tests and fuzzing).
pub fn load_texts(texts: &[(&str, &str)]) -> Result<Project, Report> {
    let mut sources = Sources::default();
    let ids = texts.iter().map(|(p, t)| sources.add(*p, t.to_string())).collect();
    finish(sources, ids, Vec::new())
}

/// Every `*.yaml` file directly in `dir`, sorted.
pub fn yaml_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let rd = std::fs::read_dir(dir).map_err(|e| format!("cannot read directory {}: {e}", dir.display()))?;
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    v.sort();
    if v.is_empty() {
        return Err(format!("no *.yaml register maps in {}", dir.display()));
    }
    Ok(v)
}

fn finish(sources: Sources, ids: Vec<source::FileId>, mut diags: Vec<Diagnostic>) -> Result<Project, Report> {
    let mut files = Vec::new();
    for id in ids {
        match load::parse(&sources, id) {
            Ok(f) => files.push((id, f)),
            Err(d) => diags.push(d),
        }
    }
    let parse_failed = !diags.is_empty() || files.len() < sources.files().len();
    let (mut maps, rdiags) = resolve::resolve_all(&files, parse_failed);
    diags.extend(rdiags);
    maps.sort_by(|a, b| a.name.value.cmp(&b.name.value));
    diags.extend(validate::validate(&maps));
    let mut caps = Vec::new();
    for m in &maps {
        if m.is_abstract {
            caps.push(None);
        } else {
            caps.push(caps::lower(m, &mut diags));
        }
    }
    let (errors, warnings): (Vec<_>, Vec<_>) = diags.into_iter().partition(|d| d.severity == Severity::Error);
    if !errors.is_empty() {
        let mut all = errors;
        all.extend(warnings);
        return Err(Report { sources, diagnostics: all });
    }
    Ok(Project { sources, maps, caps, warnings })
}
