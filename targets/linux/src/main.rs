//! `fe`: the hosted front end of the driver core.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

mod coalesce;

// Everything this file prints goes through `write_stdout`: these shadow std's `print!` and
// `println!`, which panic when the reader has gone (`fe | head -1`) and whose errors at exit are
// lost (`fe probe x.dts > /dev/full` would exit 0).
macro_rules! print {
    ($($arg:tt)*) => { write_stdout(format_args!($($arg)*)) };
}
macro_rules! println {
    () => { write_stdout(format_args!("\n")) };
    ($($arg:tt)*) => { write_stdout(format_args!("{}\n", format_args!($($arg)*))) };
}

/// Writes to standard output and flushes. A reader that closed the pipe ends the program
/// quietly with success (it chose to stop reading); any other write error ends it with an error.
fn write_stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

#[derive(Parser)]
#[command(name = "fe", version, about = "MediaTek frame-engine driver core, hosted on Linux")]
#[command(
    after_help = "Without a command: bring the driver up on the simulator for each bundled board, run bulk TCP both ways with RX checksum on and off and coalescing off, soft and hw (where the SoC has it), and print a table."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the driver on the simulator for one board: bulk TCP both ways, one feature set.
    Run {
        /// The board's device tree (.dtb or .dts).
        #[arg(long)]
        dtb: PathBuf,
        /// RX checksum offload.
        #[arg(long, value_enum, default_value = "on")]
        rx_csum: OnOff,
        /// Receive coalescing: off, SoftLRO, or hardware LRO (SoCs that have it).
        #[arg(long, value_enum, default_value = "off")]
        lro: Lro,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Drive RX and TX only from the model's interrupts, NAPI style (mask, poll to budget,
        /// unmask when drained; TX reclaimed on its interrupt); the report adds interrupt counts.
        #[arg(long)]
        irq: bool,
        /// With --irq: interrupt moderation as the SoC's YAML gives it (on), or every completion
        /// interrupting (off).
        #[arg(long, value_enum, default_value = "on", requires = "irq")]
        irq_moderation: OnOff,
    },
    /// Probe a board's device tree (.dtb, or .dts compiled with cpp + dtc) and report what is there.
    Probe {
        /// The device tree.
        file: PathBuf,
        /// Print the platform as JSON (format: dts/README.md).
        #[arg(long)]
        json: bool,
    },
    /// Run the driver core's SoftLRO over a pcap capture (Ethernet) and write the coalesced frames.
    Coalesce {
        /// The capture to read.
        input: PathBuf,
        /// The capture to write.
        output: PathBuf,
        /// Frames per poll: held aggregates are flushed after every N frames (a NAPI budget).
        #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        poll: u64,
        /// Print frames in/out, segments merged and why aggregates were flushed.
        #[arg(long)]
        stats: bool,
        /// Flow-table size (aggregates held at once).
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=fe_driver::softlro::MAX_FLOWS as u64))]
        flows: u64,
    },
    /// The driver on the simulated chip as Linux interfaces: a TAP with IFF_VNET_HDR per enabled
    /// MAC in namespace PREFIX-dut, its wire connected to a peer TAP in PREFIX-peer (root only;
    /// runs until SIGINT/SIGTERM, then removes what it created). Each MAC's wire goes straight to
    /// its peer (a DSA switch behind a MAC is not modelled here).
    Netdev {
        /// The board's device tree (.dtb or .dts).
        #[arg(long)]
        dtb: PathBuf,
        /// Simulated time: locked to the wall clock (real link speed) or as fast as the host goes.
        #[arg(long, value_enum, default_value = "wire")]
        pace: PaceArg,
        /// Namespaces PREFIX-dut and PREFIX-peer, control socket /run/fe/PREFIX.sock.
        #[arg(long, default_value = "fe")]
        netns_prefix: String,
        /// Give MAC N's interfaces 10.77.N.1/24 and fd77:0:0:N::1/64 (peer: .2 and ::2).
        #[arg(long)]
        addr: bool,
        /// RX poll interval in simulated microseconds (interrupt moderation).
        #[arg(long, default_value_t = fe_linux::run::POLL_NS / 1000, value_parser = clap::value_parser!(u64).range(1..=100_000))]
        poll_us: u64,
    },
    /// Change a feature of a running `fe netdev` (through its control socket).
    Ctl {
        /// The run's namespace prefix (its socket is /run/fe/PREFIX.sock).
        #[arg(long, default_value = "fe")]
        netns_prefix: String,
        /// The control socket (instead of the one the prefix names).
        #[arg(long)]
        socket: Option<PathBuf>,
        #[command(subcommand)]
        what: CtlWhat,
    },
    /// A board's Ethernet node for QEMU's `virt` machine and the `mtk-frame-engine` device: DTS
    /// text to append to virt's decompiled tree (scripts/guest-dt does the merge).
    GuestDts {
        /// The board's device tree (.dtb or .dts).
        file: PathBuf,
        /// Guest physical address of the frame-engine window (syscons follow 1 MiB apart).
        #[arg(long, default_value = "0x0b000000", value_parser = parse_addr)]
        base: u64,
        /// First GIC SPI of the interrupt lines.
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=987))]
        spi: u32,
    },
    /// Counters of a running `fe netdev`: the driver's ethtool -S per MAC, the TAP bridge's, SoftLRO's.
    Stats {
        /// The run's namespace prefix (its socket is /run/fe/PREFIX.sock).
        #[arg(long, default_value = "fe")]
        netns_prefix: String,
        /// The control socket (instead of the one the prefix names).
        #[arg(long)]
        socket: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// What `fe ctl` changes.
#[derive(Subcommand)]
enum CtlWhat {
    /// RX checksum offload (reaches the GDMA's checksum bits).
    RxCsum {
        /// on or off.
        #[arg(value_enum)]
        state: OnOff,
    },
    /// Receive coalescing: off, SoftLRO, or hardware LRO (SoCs that have it).
    Lro {
        /// off, soft or hw.
        #[arg(value_enum)]
        mode: Lro,
    },
    /// Hardware LRO's destination rule of a MAC (`none` clears it); `--addr` sets 10.77.MAC.1.
    LroDst {
        /// MAC id.
        mac: u8,
        /// IPv4 destination address, or none.
        dst: String,
    },
}

/// How `fe netdev` moves simulated time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum PaceArg {
    /// Locked to the wall clock: links run at their real speed.
    Wire,
    /// As fast as the host moves frames.
    None,
}

/// `on` or `off`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum OnOff {
    /// Enabled.
    On,
    /// Disabled.
    Off,
}

/// Receive coalescing mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Lro {
    /// Every frame goes up as received.
    Off,
    /// SoftLRO in the driver core.
    Soft,
    /// Hardware LRO (and SoftLRO for what it does not merge).
    Hw,
}

impl From<Lro> for fe_driver::LroMode {
    fn from(l: Lro) -> Self {
        match l {
            Lro::Off => fe_driver::LroMode::Off,
            Lro::Soft => fe_driver::LroMode::Soft,
            Lro::Hw => fe_driver::LroMode::Hw,
        }
    }
}

/// The bundled boards the main job runs: every `dts/*.dts`, sorted by name (a file that does
/// not compile or probe fails the job, naming it).
fn bundled_boards() -> Result<Vec<String>, String> {
    let dir = fe_linux::dtc::dts_dir();
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut v: Vec<String> =
        entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).filter(|n| n.ends_with(".dts")).collect();
    v.sort();
    if v.is_empty() {
        return Err(format!("no board (.dts) in {}", dir.display()));
    }
    Ok(v)
}

fn main_job() -> ExitCode {
    println!("{}", fe_linux::run::HEADER);
    let boards = match bundled_boards() {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let mut failed = false;
    for board in &boards {
        let path = fe_linux::dtc::dts_dir().join(board);
        let dtb = match fe_linux::dtc::compile(&path, &[]) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        };
        let modes = match fe_driver::dt::probe(&dtb) {
            Ok(p) => fe_linux::run::lro_modes(p.soc),
            Err(e) => {
                eprintln!("error: {board}: {e}");
                failed = true;
                continue;
            }
        };
        for (rx_csum, lro) in [true, false].into_iter().flat_map(|c| modes.iter().map(move |m| (c, *m))) {
            match fe_linux::run::run(board, &dtb, rx_csum, lro) {
                Ok(r) => {
                    for line in fe_linux::run::rows(&r) {
                        println!("{line}");
                    }
                    if r.violations > 0 {
                        eprintln!("error: {board}: the model saw {} illegal accesses", r.violations);
                        failed = true;
                    }
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    failed = true;
                }
            }
        }
    }
    println!(
        "(goodput in simulated time at each MAC's link speed; host cost includes the simulator; 1 in {} received frames has a bad TCP checksum; seg/frame = TCP segments per delivered frame)",
        fe_linux::run::BAD_EVERY
    );
    if failed { ExitCode::from(1) } else { ExitCode::SUCCESS }
}

/// Prints a control-socket answer or the error; the exit code.
fn ctl_answer(r: Result<String, String>) -> ExitCode {
    match r {
        Ok(body) => {
            print!("{body}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// The control socket `--socket` or the prefix names.
fn ctl_socket(prefix: &str, socket: Option<PathBuf>) -> PathBuf {
    socket.unwrap_or_else(|| fe_linux::netdev::ctl::socket_path(prefix))
}

fn main() -> ExitCode {
    let Some(command) = Cli::parse().command else { return main_job() };
    match command {
        Command::Netdev { dtb, pace, netns_prefix, addr, poll_us } => {
            use fe_linux::netdev::pace::Pace;
            let pace = match pace {
                PaceArg::Wire => Pace::Wire,
                PaceArg::None => Pace::None,
            };
            let opts = fe_linux::netdev::Options { dtb, pace, prefix: netns_prefix, addr, poll_ns: poll_us * 1000 };
            match fe_linux::netdev::run(&opts) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Command::Ctl { netns_prefix, socket, what } => {
            use fe_linux::netdev::ctl::{self, Request};
            let req = match what {
                CtlWhat::RxCsum { state } => Ok(Request::RxCsum(state == OnOff::On)),
                CtlWhat::Lro { mode } => Ok(Request::Lro(mode.into())),
                CtlWhat::LroDst { mac, dst } => ctl::parse_request(&format!("lro-dst {mac} {dst}")),
            };
            let path = ctl_socket(&netns_prefix, socket);
            ctl_answer(req.and_then(|r| ctl::request(&path, &r)))
        }
        Command::Stats { netns_prefix, socket, json } => {
            use fe_linux::netdev::ctl::{self, Request};
            let path = ctl_socket(&netns_prefix, socket);
            ctl_answer(ctl::request(&path, &Request::Stats { json }))
        }
        Command::Run { dtb, rx_csum, lro, json, irq, irq_moderation } => {
            let bytes = match fe_linux::dtc::load(&dtb) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(1);
                }
            };
            let name = dtb.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let drive = if irq {
                fe_linux::run::Drive::Irq { moderation: irq_moderation == OnOff::On }
            } else {
                fe_linux::run::Drive::Poll
            };
            match fe_linux::run::run_with(&name, &bytes, rx_csum == OnOff::On, lro.into(), drive) {
                Ok(r) => {
                    if json {
                        println!("{}", serde_json::to_string_pretty(&fe_linux::run::to_json(&r)).unwrap_or_default());
                    } else {
                        println!("{}", fe_linux::run::header(&r));
                        for line in fe_linux::run::rows(&r) {
                            println!("{line}");
                        }
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Command::Coalesce { input, output, poll, stats, flows } => {
            let opts = coalesce::Options { input, output, poll: poll as usize, flows: flows as usize };
            match coalesce::run(&opts) {
                Ok(s) => {
                    if stats {
                        print!("{}", coalesce::stats_text(&s));
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(1)
                }
            }
        }
        Command::GuestDts { file, base, spi } => {
            let dtb = match fe_linux::dtc::load(&file) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(1);
                }
            };
            let at = fe_linux::guest_dt::Placement { base, first_spi: spi, ..Default::default() };
            match fe_driver::dt::probe(&dtb)
                .map_err(|e| e.to_string())
                .and_then(|b| fe_linux::guest_dt::fragment(&dtb, &b, at))
            {
                Ok(text) => {
                    print!("{text}");
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {}: {e}", file.display());
                    ExitCode::from(1)
                }
            }
        }
        Command::Probe { file, json } => {
            let dtb = match fe_linux::dtc::load(&file) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(1);
                }
            };
            match fe_driver::dt::probe(&dtb) {
                Ok(p) => {
                    if json {
                        println!(
                            "{}",
                            serde_json::to_string_pretty(&fe_linux::report::to_json(&p)).unwrap_or_default()
                        );
                    } else {
                        print!("{}", fe_linux::report::text(&p));
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {}: {e}", file.display());
                    ExitCode::from(1)
                }
            }
        }
    }
}

/// A guest physical address: decimal or 0x-prefixed hex, 4 KiB aligned.
fn parse_addr(s: &str) -> Result<u64, String> {
    let v = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    }
    .map_err(|_| format!("`{s}` is not an address (decimal or 0x hex)"))?;
    if !v.is_multiple_of(0x1000) {
        return Err(format!("{v:#x} is not 4 KiB aligned"));
    }
    Ok(v)
}
