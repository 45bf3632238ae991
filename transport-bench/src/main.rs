//! `transport-bench` entry point: parse, run, print the whole error chain
//! ([`transport_bench::cli::exit_code`]).

use clap::Parser;

#[tokio::main]
async fn main() {
    let cli = transport_bench::cli::Cli::parse();
    std::process::exit(transport_bench::cli::exit_code(cli).await);
}
