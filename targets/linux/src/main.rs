//! `fe`: the hosted front end of the driver core.

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "fe", version, about = "MediaTek frame-engine driver core, hosted on Linux")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Probe a board's device tree (.dtb, or .dts compiled with cpp + dtc) and report what is there.
    Probe {
        /// The device tree.
        file: PathBuf,
        /// Print the platform as JSON (format: dts/README.md).
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    match Cli::parse().command {
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
