//! `fe`: the hosted front end of the driver core.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

mod coalesce;

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

/// The bundled boards the main job runs.
const BOARDS: &[&str] = &["mt7621-router.dts", "mt7623n-bpi-r2.dts", "mt7986a-bpi-r3.dts"];

fn main_job() -> ExitCode {
    println!("{}", fe_linux::run::HEADER);
    let mut failed = false;
    for board in BOARDS {
        let path = fe_linux::dtc::dts_dir().join(board);
        let dtb = match fe_linux::dtc::compile(&path, &[]) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(1);
            }
        };
        let modes = fe_driver::dt::probe(&dtb).map(|p| fe_linux::run::lro_modes(p.soc)).unwrap_or_default();
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

fn main() -> ExitCode {
    let Some(command) = Cli::parse().command else { return main_job() };
    match command {
        Command::Run { dtb, rx_csum, lro, json } => {
            let bytes = match fe_linux::dtc::load(&dtb) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::from(1);
                }
            };
            let name = dtb.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            match fe_linux::run::run(&name, &bytes, rx_csum == OnOff::On, lro.into()) {
                Ok(r) => {
                    if json {
                        println!("{}", serde_json::to_string_pretty(&fe_linux::run::to_json(&r)).unwrap_or_default());
                    } else {
                        println!("{}", fe_linux::run::HEADER);
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
