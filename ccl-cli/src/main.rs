//! `ccl`: label, analyze, generate, verify and benchmark binary images (and
//! volumes) with every registered connected-component algorithm, plot the
//! benchmarks, and count the atomic feature updates of the FLSL analyses.

mod analyze;
mod args;
mod classes;
mod generate;
mod input;
mod label;
mod list;
mod output;
mod plot;
mod strips;
mod sweep;
mod updates;
mod verify;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// The error every command returns; `main` prints it as one `error:` line.
type Error = Box<dyn std::error::Error>;

/// Connected component labeling and analysis on NVIDIA GPUs and the CPU.
#[derive(Parser)]
#[command(name = "ccl", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every registered variant and whether it can run here.
    List,
    /// Label an image's or a volume's components; print their count.
    Label(label::Args),
    /// Print every component's features, in canonical order.
    Analyze(analyze::Args),
    /// Write a benchmark image or volume (MT19937 density / granularity) or
    /// a pattern.
    Gen(generate::Args),
    /// Check variants against the cpu-uf reference on random, pattern and
    /// real images, and on random, pattern and edge-shaped volumes.
    Verify(verify::Args),
    /// Time variants over the benchmark's densities and granularities.
    Sweep(sweep::Args),
    /// Print a saved sweep's summary and draw its plots.
    Plot(plot::Args),
    /// Count the atomic feature updates and their conflicts per variant
    /// against density (Fig. 5 of the FLSL paper).
    Updates(updates::Args),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    let outcome = match cli.command {
        Command::List => list::run(),
        Command::Label(args) => label::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Gen(args) => generate::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Sweep(args) => sweep::run(args),
        Command::Plot(args) => plot::run(args),
        Command::Updates(args) => updates::run(args),
    };
    // What is still buffered fails here, if it fails, not silently at exit.
    let outcome = outcome.and_then(|code| {
        output::Stdout::lock().flush()?;
        Ok(code)
    });
    match outcome {
        Ok(code) => code,
        // A reader that stops early (`ccl analyze … | head`) is not an error.
        Err(e) if is_broken_pipe(e.as_ref()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Prints help and version as clap does; any other command-line error as
/// one `error:` line (clap's own spans several, with a usage block).
fn usage_error(error: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = error.print();
        return ExitCode::from(error.exit_code() as u8);
    }
    let rendered = error.render().to_string();
    let message: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .take_while(|line| !line.starts_with("Usage:") && !line.starts_with("For more information"))
        .filter(|line| !line.is_empty())
        .collect();
    // The help of the subcommand that was given, if one was.
    let subcommand = std::env::args().nth(1).filter(|name| {
        Cli::command()
            .get_subcommands()
            .any(|c| c.get_name() == name)
    });
    let help = match subcommand {
        Some(name) => format!("ccl {name} --help"),
        None => "ccl --help".into(),
    };
    eprintln!("{}; see `{help}`", message.join(" "));
    ExitCode::from(2)
}

fn is_broken_pipe(error: &(dyn std::error::Error + 'static)) -> bool {
    error
        .downcast_ref::<output::StdoutError>()
        .is_some_and(output::StdoutError::is_broken_pipe)
}
