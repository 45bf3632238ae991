//! The command pages: `docs/commands/<name>.md` exists for every scenario of the registry
//! ([`super::registry::SCENARIOS`]) and every other subcommand of [`super::Cli`], and for
//! nothing else.

use std::collections::BTreeSet;
use std::path::Path;

use clap::CommandFactory;

/// The scenarios' names from the registry, and the names of the other subcommands clap
/// knows (the generated `help` apart).
fn subcommands() -> BTreeSet<String> {
    let scenarios = super::registry::SCENARIOS
        .iter()
        .map(|e| e.name.to_string());
    super::Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .filter(|name| name != "help")
        .chain(scenarios)
        .collect()
}

/// The `<name>` of every `<name>.md` in `dir`.
fn pages(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| {
            p.file_stem()
                .expect("a file name")
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

#[test]
fn every_subcommand_has_its_page_and_every_page_its_subcommand() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/commands");
    let commands = subcommands();
    let pages = pages(&dir);
    let missing: Vec<_> = commands.difference(&pages).collect();
    let orphans: Vec<_> = pages.difference(&commands).collect();
    assert!(
        missing.is_empty() && orphans.is_empty(),
        "docs/commands/ out of step with the CLI: no page for {missing:?}; no command for {orphans:?}"
    );
    // Not vacuous: clap's list holds the commands this file's readers know by name.
    for known in ["study", "audit", "watch", "routing"] {
        assert!(
            commands.contains(known),
            "{known} missing from {commands:?}"
        );
    }
}
