//! `transport-bench` entry point: parse, run, print the whole error chain.

use clap::Parser;

#[tokio::main]
async fn main() {
    let cli = transport_bench::Cli::parse();
    if let Err(e) = transport_bench::run(cli).await {
        // A closed stdout (`transport-bench ... | head`) is not an error.
        if e.chain().any(|c| {
            c.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
        }) {
            std::process::exit(0);
        }
        eprintln!("transport-bench: error: {e:#}");
        std::process::exit(1);
    }
}
