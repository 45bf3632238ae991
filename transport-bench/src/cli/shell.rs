//! What a shell and `man` need, generated from the clap definitions so they never drift from
//! the options: `transport-bench completions <SHELL>` prints a completion script and
//! `transport-bench man` prints the man page (roff) of the command and its subcommands.

use std::io::Write;

use anyhow::{Context, Result};
use clap::CommandFactory;

use super::Cli;

/// The binary's name, as completions and the man page call it.
const BIN: &str = "transport-bench";

/// `transport-bench completions <SHELL>`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "Install, e.g.: transport-bench completions bash > \
    /etc/bash_completion.d/transport-bench; transport-bench completions zsh > \
    \"${fpath[1]}/_transport-bench\"; transport-bench completions fish > \
    ~/.config/fish/completions/transport-bench.fish")]
pub struct CompletionsArgs {
    /// The shell to complete in.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `transport-bench man`.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "Install, e.g.: transport-bench man > \
    /usr/local/share/man/man1/transport-bench.1")]
pub struct ManArgs {}

/// Prints the completion script for `a.shell` to `out`. The script is generated into memory
/// first: clap_complete panics on a failed write, and a closed pipe is not a panic.
pub fn completions(a: &CompletionsArgs, out: &mut dyn Write) -> Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut Cli::command(), BIN, &mut script);
    out.write_all(&script)
        .and_then(|()| out.flush())
        .context("writing the completion script")
}

/// Prints the man page to `out`: the command, then one section per subcommand with its
/// options.
pub fn man(_: &ManArgs, out: &mut dyn Write) -> Result<()> {
    let cmd = Cli::command();
    let man = clap_mangen::Man::new(cmd.clone());
    man.render(out).context("writing the man page")?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("{BIN}-{}", sub.get_name());
        let page = clap_mangen::Man::new(sub.clone().bin_name(name.clone()));
        writeln!(out, ".SH \"{}\"", name.to_uppercase())?;
        page.render_synopsis_section(out)?;
        page.render_description_section(out)?;
        page.render_options_section(out)?;
    }
    out.flush().context("writing the man page")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// clap's own consistency checks: no two options share a short or long flag anywhere.
    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn completions_name_the_commands_and_their_flags() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
        ] {
            let mut out = Vec::new();
            completions(&CompletionsArgs { shell }, &mut out).expect("renders");
            let script = String::from_utf8(out).expect("utf-8");
            for word in ["study", "watch", "collection", "transports"] {
                assert!(script.contains(word), "{shell}: {word} missing");
            }
        }
    }

    #[test]
    fn the_man_page_has_every_command_and_its_options() {
        let mut out = Vec::new();
        man(&ManArgs {}, &mut out).expect("renders");
        let page = String::from_utf8(out).expect("utf-8");
        assert!(
            page.starts_with(".ie") || page.contains(".TH transport-bench"),
            "{}",
            &page[..200]
        );
        for sub in Cli::command()
            .get_subcommands()
            .filter(|s| !s.is_hide_set())
        {
            let section = format!(".SH \"TRANSPORT-BENCH-{}\"", sub.get_name().to_uppercase());
            assert!(page.contains(&section), "{section} missing");
        }
    }
}
