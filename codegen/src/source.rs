//! Source files, spans and the diagnostics that point into them.

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use std::fmt;
use std::path::{Path, PathBuf};

/// Index of a loaded file in a [`Sources`] set.
pub type FileId = u32;

/// A byte range in one source file, with the 1-based line and column of its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// File the span points into.
    pub file: FileId,
    /// Byte offset of the first byte.
    pub start: usize,
    /// Byte offset one past the last byte.
    pub end: usize,
    /// 1-based line of `start` (0 when unknown).
    pub line: u32,
    /// 1-based column of `start` (0 when unknown).
    pub col: u32,
}

impl Span {
    /// A span that only names a file (for errors without a position).
    pub fn file_only(file: FileId) -> Self {
        Span { file, ..Span::default() }
    }

    /// Builds a span from a serde-saphyr location inside `file`.
    #[allow(clippy::arithmetic_side_effects, reason = "positions within a text, bounded by its length")]
    pub fn from_location(file: FileId, loc: &serde_saphyr::Location) -> Self {
        let s = loc.span();
        let start = s.byte_offset().unwrap_or(0) as usize;
        let len = s.byte_len().unwrap_or(0) as usize;
        Span { file, start, end: start + len, line: loc.line() as u32, col: loc.column() as u32 }
    }
}

/// A value together with the place in the YAML it came from.
#[derive(Clone, Debug)]
pub struct Sp<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

impl<T> Sp<T> {
    /// Wraps `value` with `span`.
    pub fn new(value: T, span: Span) -> Self {
        Sp { value, span }
    }
}

impl<T: PartialEq> PartialEq for Sp<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl<T> std::ops::Deref for Sp<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

/// One loaded source file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// Path as given by the user (used in diagnostics).
    pub path: PathBuf,
    /// Full text.
    pub text: String,
}

/// All files loaded in one run; spans index into it.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    /// Adds a file's text and returns its id.
    pub fn add(&mut self, path: impl Into<PathBuf>, text: String) -> FileId {
        self.files.push(SourceFile { path: path.into(), text });
        (self.files.len().saturating_sub(1)) as FileId
    }

    /// The file with id `id`.
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id as usize]
    }

    /// All files in load order.
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }

    /// Path of file `id` for messages.
    pub fn path(&self, id: FileId) -> &Path {
        &self.get(id).path
    }
}

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The input cannot be used.
    Error,
    /// Legal but suspicious.
    Warning,
}

/// A secondary place that explains a diagnostic ("first defined here").
#[derive(Clone, Debug)]
pub struct Label {
    /// Where.
    pub span: Span,
    /// What it shows.
    pub message: String,
}

/// A problem found in the input, pointing at the YAML that caused it.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// One-line summary.
    pub message: String,
    /// Primary location.
    pub span: Span,
    /// Text under the primary location.
    pub label: String,
    /// Other relevant locations.
    pub labels: Vec<Label>,
    /// Extra lines ("help: ...").
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// An error at `span`.
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            message: message.into(),
            span,
            label: String::new(),
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// A warning at `span`.
    pub fn warning(span: Span, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(span, message) }
    }

    /// Sets the label under the primary span.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Adds a secondary location.
    pub fn with(mut self, span: Span, message: impl Into<String>) -> Self {
        self.labels.push(Label { span, message: message.into() });
        self
    }

    /// Adds a note line.
    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Renders the diagnostic like rustc, without colour (stable for snapshots).
    pub fn render(&self, sources: &Sources) -> String {
        self.render_with(sources, &Renderer::plain())
    }

    /// Renders with a caller-chosen renderer (for example a coloured one on a terminal).
    pub fn render_with(&self, sources: &Sources, renderer: &Renderer) -> String {
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let file = sources.get(self.span.file);
        let path = file.path.display().to_string();
        let mut group = Group::with_title(level.primary_title(&self.message));
        if self.span.line == 0 {
            // No position known: name the file only.
            group = group.element(annotate_snippets::Origin::path(&path));
        } else {
            let mut snippet = Snippet::source(&file.text).path(&path).fold(true);
            snippet = snippet.annotation(AnnotationKind::Primary.span(clamp(self.span, &file.text)).label(&self.label));
            let mut others = Vec::new();
            for l in &self.labels {
                if l.span.file == self.span.file && l.span.line != 0 {
                    snippet =
                        snippet.annotation(AnnotationKind::Context.span(clamp(l.span, &file.text)).label(&l.message));
                } else {
                    others.push(l);
                }
            }
            group = group.element(snippet);
            for l in others {
                let f = sources.get(l.span.file);
                let p = f.path.display().to_string();
                if l.span.line == 0 {
                    group = group.element(Level::NOTE.message(format!("{}: {}", p, l.message)));
                } else {
                    group = group.element(
                        Snippet::source(&f.text)
                            .path(p)
                            .fold(true)
                            .annotation(AnnotationKind::Context.span(clamp(l.span, &f.text)).label(&l.message)),
                    );
                }
            }
        }
        for n in &self.notes {
            group = group.element(match n.strip_prefix("help: ") {
                Some(h) => Level::HELP.message(h),
                None => Level::NOTE.message(n),
            });
        }
        renderer.render(&[group]).to_string()
    }
}

#[allow(clippy::arithmetic_side_effects, reason = "positions within a text, bounded by its length")]
fn clamp(span: Span, text: &str) -> std::ops::Range<usize> {
    let mut start = span.start.min(text.len());
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = span.end.max(start).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    start..end
}

/// The outcome of a run that failed: every diagnostic found, with the sources they point into.
#[derive(Debug, Clone)]
pub struct Report {
    /// The files the diagnostics refer to.
    pub sources: Sources,
    /// Errors and warnings in the order found.
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// Number of errors (not warnings).
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.severity == Severity::Error).count()
    }

    /// All diagnostics rendered without colour, separated by blank lines.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for d in &self.diagnostics {
            out.push_str(&d.render(&self.sources));
            out.push('\n');
        }
        out
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for Report {}
