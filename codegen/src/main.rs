//! The `ddgen` command line: check, generate and dump register maps.

use clap::{Parser, Subcommand};
use ddgen::caps::{IrqLayout, RingPlacement};
use ddgen::{Project, Report};
use std::io::{ErrorKind, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where this build of ddgen was compiled from: the checkout's `regs/`, if it still exists.
const BUILT_FROM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../regs");

/// Environment variable naming the directory of the bundled maps.
const MAPS_ENV: &str = "DDGEN_MAPS";

#[derive(Parser)]
#[command(name = "ddgen", version, about = "Generate typed Rust register crates from YAML frame-engine maps")]
#[command(after_help = "Without a command: check and generate the bundled SoCs (regs/*.yaml) and print a summary.\n\
The bundled maps are $DDGEN_MAPS, else the regs/ directory of the working directory or the nearest one above it.")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Validate register maps (default: the bundled regs/*.yaml).
    Check {
        /// YAML files; every map named in `extends` must be among them.
        files: Vec<PathBuf>,
        /// Treat warnings as errors.
        #[arg(long)]
        deny_warnings: bool,
    },
    /// Generate Rust for the given maps (default: the bundled ones).
    Gen {
        /// YAML files.
        files: Vec<PathBuf>,
        /// Write here instead of standard output.
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
    /// Print the resolved model of one map.
    Dump {
        /// Print JSON (the only format; required so the format is explicit).
        #[arg(long, required = true)]
        json: bool,
        /// A SoC name from the bundled maps (`mt7621`), or a YAML file (its directory is loaded for `extends`).
        soc_or_file: String,
    },
    /// Write a static HTML register reference (index, one page per map, SoC diff page).
    Doc {
        /// YAML files (default: the bundled ones).
        files: Vec<PathBuf>,
        /// Output directory (created if missing).
        #[arg(short, long, required = true)]
        out: PathBuf,
        /// Link sources to `URL/<path>#L<line>` instead of relative to the output directory.
        #[arg(long, value_name = "URL")]
        source_url: Option<String>,
        /// Also write one register's diagram as a stand-alone SVG: `MAP:space.block.register=FILE`.
        #[arg(long, value_name = "MAP:REGISTER=FILE")]
        diagram: Vec<String>,
    },
    /// Write one map as CMSIS-SVD.
    Svd {
        /// A SoC name from the bundled maps (`mt7621`), or a YAML file (its directory is loaded for `extends`).
        soc_or_file: String,
        /// Output file (default: standard output).
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// Base address of an address space (`fe=0x1e100000`); spaces not given start at 0.
        #[arg(long, value_name = "SPACE=ADDR")]
        base: Vec<String>,
    },
    /// Check and generate, then print a table of the SoCs (the default command).
    Summary {
        /// YAML files.
        files: Vec<PathBuf>,
    },
}

/// The directory of the bundled maps: `$DDGEN_MAPS`, else the `regs/` of the working directory
/// or of the nearest directory above it that has one (a checkout of this project), else the
/// checkout this ddgen was built from. A ddgen built elsewhere (`cargo install`, or
/// `cargo publish`'s verification build under `target/package`) finds the maps of the checkout it
/// runs in.
fn bundled_dir() -> Result<PathBuf, String> {
    let has_maps = |d: &Path| ddgen::yaml_files(d).is_ok_and(|f| !f.is_empty());
    if let Some(dir) = std::env::var_os(MAPS_ENV) {
        let dir = PathBuf::from(dir);
        return if has_maps(&dir) {
            Ok(dir)
        } else {
            Err(format!("{MAPS_ENV}={}: no readable *.yaml register maps there", dir.display()))
        };
    }
    let cwd = std::env::current_dir().ok();
    let found = cwd
        .iter()
        .flat_map(|c| c.ancestors())
        .map(|d| d.join("regs"))
        .find(|d| has_maps(d))
        .or_else(|| Some(PathBuf::from(BUILT_FROM)).filter(|d| has_maps(d)))
        .ok_or_else(|| {
            format!(
                "no bundled register maps: no regs/*.yaml in the working directory or above it, and {BUILT_FROM} \
                 is gone; run ddgen in a checkout of the project, set {MAPS_ENV}=DIR, or name YAML files"
            )
        })?;
    // Show paths relative to the working directory when they are below it (`regs/mt7621.yaml`).
    let dir = std::fs::canonicalize(&found).unwrap_or(found);
    Ok(match &cwd {
        Some(c) => dir.strip_prefix(c).map(Path::to_path_buf).unwrap_or(dir),
        None => dir,
    })
}

fn bundled_files() -> Result<Vec<PathBuf>, String> {
    ddgen::yaml_files(&bundled_dir()?)
}

fn files_or_bundled(files: Vec<PathBuf>) -> Result<Vec<PathBuf>, String> {
    if files.is_empty() { bundled_files() } else { Ok(files) }
}

fn print_report(r: &Report) {
    let color = std::io::stderr().is_terminal();
    let renderer = if color { annotate_snippets::Renderer::styled() } else { annotate_snippets::Renderer::plain() };
    for d in &r.diagnostics {
        eprintln!("{}\n", d.render_with(&r.sources, &renderer));
    }
    eprintln!("error: {} error(s); nothing was generated", r.error_count());
}

fn load(files: &[PathBuf]) -> Result<Project, ExitCode> {
    ddgen::load(files).map_err(|r| {
        print_report(&r);
        ExitCode::from(1)
    })
}

fn print_warnings(p: &Project) {
    for w in &p.warnings {
        eprintln!("{}\n", w.render(&p.sources));
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command.unwrap_or(Command::Summary { files: Vec::new() })) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// Writes `text` to standard output and flushes it. A reader that closed the pipe
/// (`ddgen dump --json mt7986 | head`) ends the run quietly with success; any other write error
/// (a full disk behind `> file`) ends it with an error, so a truncated output never exits 0.
fn print_out(text: &str) -> Result<(), ExitCode> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Err(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("error: cannot write to standard output: {e}");
            Err(ExitCode::from(1))
        }
    }
}

/// Writes `text` to `path` through a temporary file in the same directory, renamed over `path`
/// only once everything is written and synced: a failed run leaves `path` as it was.
///
/// A `path` that is a symbolic link is followed (the link stays, its target is replaced, keeping
/// its permissions). A `path` that exists and is not a regular file (`/dev/null`, a FIFO) is
/// written in place: renaming over it would replace the device, and it keeps nothing to lose.
fn write_file(path: &Path, text: &str) -> Result<(), String> {
    let failed = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let existing = std::fs::metadata(path).ok();
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        let mut f = std::fs::OpenOptions::new().write(true).open(path).map_err(failed)?;
        return f.write_all(text.as_bytes()).and_then(|()| f.flush()).map_err(failed);
    }
    let target = if existing.is_some() { std::fs::canonicalize(path).map_err(failed)? } else { path.to_path_buf() };
    let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = target.file_name().ok_or_else(|| format!("{} is not a file name", path.display()))?;
    let tmp = dir.join(format!(".{}.ddgen-{}.tmp", name.to_string_lossy(), std::process::id()));
    let written = std::fs::File::create_new(&tmp)
        .and_then(|mut f| {
            if let Some(m) = &existing {
                f.set_permissions(m.permissions())?;
            }
            f.write_all(text.as_bytes())?;
            f.sync_all()
        })
        .and_then(|()| std::fs::rename(&tmp, &target));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        format!("{} (left unchanged)", failed(e))
    })
}

fn usage(msg: String) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

fn run(cmd: Command) -> Result<(), ExitCode> {
    match cmd {
        Command::Check { files, deny_warnings } => {
            let files = files_or_bundled(files).map_err(usage)?;
            let p = load(&files)?;
            print_warnings(&p);
            if deny_warnings && !p.warnings.is_empty() {
                eprintln!("error: {} warning(s) denied by --deny-warnings", p.warnings.len());
                return Err(ExitCode::from(1));
            }
            print_out(&format!(
                "ok: {} map(s), {} SoC(s), {} warning(s)\n",
                p.maps.len(),
                p.socs().count(),
                p.warnings.len()
            ))
        }
        Command::Gen { files, out } => {
            let files = files_or_bundled(files).map_err(usage)?;
            let p = load(&files)?;
            print_warnings(&p);
            let code = generated(&p)?.file();
            match out {
                Some(path) => write_file(&path, &code).map_err(|e| {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }),
                None => print_out(&code),
            }
        }
        Command::Dump { json: _, soc_or_file } => {
            let (p, i) = load_one(&soc_or_file)?;
            let (m, c) = (&p.maps[i], &p.caps[i]);
            let v = ddgen::dump::to_json(m, c.as_ref());
            let json = serde_json::to_string_pretty(&v).map_err(|e| {
                eprintln!("error: cannot print the map as JSON: {e}");
                ExitCode::from(1)
            })?;
            print_out(&format!("{json}\n"))
        }
        Command::Doc { files, out, source_url, diagram } => {
            let files = files_or_bundled(files).map_err(usage)?;
            let p = load(&files)?;
            print_warnings(&p);
            let fail = |e: String| {
                eprintln!("error: {e}");
                ExitCode::from(1)
            };
            let written = ddgen::doc::write(&p, &out, source_url.as_deref()).map_err(fail)?;
            for d in &diagram {
                let (what, file) =
                    d.split_once('=').ok_or_else(|| usage(format!("--diagram `{d}`: expected MAP:REGISTER=FILE")))?;
                let (map, reg) = what
                    .split_once(':')
                    .ok_or_else(|| usage(format!("--diagram `{d}`: expected MAP:REGISTER=FILE")))?;
                let m = p.map(map).ok_or_else(|| usage(format!("--diagram `{d}`: no map named `{map}`")))?;
                let svg = ddgen::doc::register_svg(m, reg).ok_or_else(|| {
                    usage(format!("--diagram `{d}`: `{map}` has no register `{reg}` (space.block.register)"))
                })?;
                write_file(Path::new(file), &svg).map_err(fail)?;
            }
            print_out(&format!("wrote {} page(s) to {}\n", written.len(), out.display()))
        }
        Command::Svd { soc_or_file, out, base } => {
            let mut bases = std::collections::HashMap::new();
            for b in &base {
                let parsed = b.split_once('=').and_then(|(s, a)| {
                    let a = a.trim();
                    let v = match a.strip_prefix("0x").or_else(|| a.strip_prefix("0X")) {
                        Some(h) => u64::from_str_radix(h, 16).ok(),
                        None => a.parse().ok(),
                    };
                    v.map(|v| (s.to_string(), v))
                });
                let (s, v) =
                    parsed.ok_or_else(|| usage(format!("--base `{b}`: expected SPACE=ADDR (0x... or decimal)")))?;
                bases.insert(s, v);
            }
            let (p, i) = load_one(&soc_or_file)?;
            let m = &p.maps[i];
            if let Some(unknown) = bases.keys().find(|s| !m.spaces.iter().any(|x| x.name.value == **s)) {
                let names: Vec<&str> = m.spaces.iter().map(|s| s.name.value.as_str()).collect();
                return Err(usage(format!(
                    "--base: `{}` has no space `{unknown}`; its spaces: {}",
                    m.name.value,
                    names.join(", ")
                )));
            }
            let text = ddgen::svd::to_svd(m, &bases);
            match out {
                Some(path) => write_file(&path, &text).map_err(|e| {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }),
                None => print_out(&text),
            }
        }
        Command::Summary { files } => {
            let files = files_or_bundled(files).map_err(usage)?;
            let p = load(&files)?;
            print_warnings(&p);
            let g = generated(&p)?;
            print_out(&summary(&p, &g))
        }
    }
}

/// Loads the map `soc_or_file` names: a bundled SoC, or a YAML file loaded with the other maps
/// of its directory (for `extends`). Returns the project and the map's index in it.
fn load_one(soc_or_file: &str) -> Result<(Project, usize), ExitCode> {
    let path = Path::new(soc_or_file);
    let (files, wanted) = if path.is_file() {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let mut files = ddgen::yaml_files(dir).map_err(usage)?;
        if !files.iter().any(|f| f.file_name() == path.file_name()) {
            files.push(path.to_path_buf());
        }
        (files, None)
    } else {
        (bundled_files().map_err(usage)?, Some(soc_or_file))
    };
    let p = load(&files)?;
    let found = p.maps.iter().position(|m| match wanted {
        Some(name) => m.name.value == name,
        None => p.sources.path(m.file).file_name() == path.file_name(),
    });
    let Some(i) = found else {
        let names: Vec<&str> = p.maps.iter().map(|m| m.name.value.as_str()).collect();
        return Err(usage(format!("no map named `{soc_or_file}`; known maps: {}", names.join(", "))));
    };
    Ok((p, i))
}

/// Generates the project's Rust; output that does not parse is an error, never written.
fn generated(p: &Project) -> Result<ddgen::Generated, ExitCode> {
    ddgen::generate(p).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(1)
    })
}

/// The summary table the default command prints.
fn summary(p: &Project, g: &ddgen::Generated) -> String {
    let mut out = format!(
        "ddgen: {} register map(s) checked, {} SoC(s) generated ({} lines of Rust)\n\n",
        p.maps.len(),
        p.socs().count(),
        g.lines()
    );
    out += &format!(
        "{:<8} {:<22} {:>5} {:>6} {:<7} {:<7} {:<16} {:>3} {:<24} {:<12} {:<14}\n",
        "SoC", "compatible", "regs", "fields", "tx desc", "rx desc", "rx csum mask", "txq", "hw lro", "irq", "rings"
    );
    for (m, c) in p.socs() {
        let regs: usize = m.spaces.iter().flat_map(|s| &s.blocks).map(|b| b.registers.len()).sum();
        let fields: usize =
            m.spaces.iter().flat_map(|s| &s.blocks).flat_map(|b| &b.registers).map(|r| r.fields.len()).sum();
        let lro = match &c.hw_lro {
            None => "none".to_string(),
            Some(l) => format!("{} rings x{} segs {}B", l.rings, l.max_segments, l.buffer_size),
        };
        let irq = match c.irq {
            IrqLayout::Shared { line } => format!("shared[{line}]/{}", c.irq_lines),
            IrqLayout::Split { tx, rx } => format!("tx[{tx}] rx[{rx}]/{}", c.irq_lines),
        };
        let rings = match c.rings {
            RingPlacement::Dram => "dram".to_string(),
            RingPlacement::Sram { offset } => format!("sram@{offset:#x}"),
        };
        let compat = m.compatible.first().map(|c| c.value.as_str()).unwrap_or("");
        out += &format!(
            "{:<8} {:<22} {:>5} {:>6} {:<7} {:<7} {:<16} {:>3} {:<24} {:<12} {:<14}\n",
            m.name.value,
            compat,
            regs,
            fields,
            c.tx_descriptor,
            c.rx_descriptor,
            format!("{}@{:#x}", format_args!("{:#x}", c.rx_checksum.2), c.rx_checksum.0.offset),
            c.tx_queues,
            lro,
            irq,
            rings
        );
    }
    for (name, code) in &g.socs {
        out += &format!("  module fe_regs::{name}: {} lines\n", code.lines().count());
    }
    out += &format!("  shared types and maps: {} lines\n", g.shared.lines().count());
    out
}
