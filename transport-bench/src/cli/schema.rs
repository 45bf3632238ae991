//! `transport-bench schema`: prints the JSON Schema of a command's JSON output.

use std::io::Write;

use anyhow::{Context, Result};

use super::registry::SCENARIOS;

/// The schema printed when none is named.
const DEFAULT: &str = "summary";

/// Options of `schema`.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// Whose (the help names them: [`which_help`]).
    #[arg(default_value = DEFAULT, help = which_help())]
    pub which: String,
}

/// `schema`'s about line, naming the schemas from [`SCENARIOS`] (so a new scenario shows
/// there by itself): the report file the scenarios that share a schema write (study and
/// audit: `summary.json`), then `watch` and every scenario that publishes its schema under
/// its own name, in the list's order.
pub fn about() -> String {
    let files: Vec<String> = shared()
        .iter()
        .map(|(schema, file, names)| format!("`{file}` of {}{}", names.join("/"), default(schema)))
        .collect();
    let mut whose = vec!["watch"];
    whose.extend(own());
    let last = whose.pop().unwrap_or_default();
    format!(
        "Prints the JSON Schema of a command's JSON output: {}, or that of {} or {last}",
        files.join(", "),
        whose.join(", ")
    )
}

/// The help of `schema`'s argument, naming the schemas from [`SCENARIOS`]: each shared schema
/// with the scenarios that share it (`summary`: study, audit), `watch`, and every scenario
/// that publishes its schema under its own name, in the list's order.
pub fn which_help() -> String {
    let aliases: Vec<String> = shared()
        .iter()
        .map(|(schema, _, names)| format!("{schema} (also: {})", names.join(", ")))
        .collect();
    format!(
        "Whose: {}, watch, or any scenario's name ({})",
        aliases.join(", "),
        own().join(", ")
    )
}

/// ` (default)` after the default schema's name.
fn default(schema: &str) -> &'static str {
    if schema == DEFAULT {
        " (default)"
    } else {
        ""
    }
}

/// Each schema that scenarios publish under another name than their own: its name, its
/// report file and those scenarios' names.
fn shared() -> Vec<(&'static str, &'static str, Vec<&'static str>)> {
    let mut out: Vec<(&'static str, &'static str, Vec<&'static str>)> = Vec::new();
    for e in SCENARIOS.iter().filter(|e| e.name != e.schema_name) {
        match out
            .iter_mut()
            .find(|(schema, _, _)| *schema == e.schema_name)
        {
            Some((_, _, names)) => names.push(e.name),
            None => out.push((e.schema_name, e.file, vec![e.name])),
        }
    }
    out
}

/// The scenarios that publish their schema under their own name.
fn own() -> Vec<&'static str> {
    SCENARIOS
        .iter()
        .filter(|e| e.name == e.schema_name)
        .map(|e| e.name)
        .collect()
}

/// The names [`named`] knows, as the error of an unknown one lists them: every scenario's
/// schema name, then `watch`.
pub fn names() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for e in SCENARIOS {
        if !names.contains(&e.schema_name) {
            names.push(e.schema_name);
        }
    }
    names.push("watch");
    names
}

/// Runs `schema`.
pub fn run(a: SchemaArgs) -> Result<()> {
    let which = a.which;
    let s = named(&which)
        .with_context(|| format!("schema {which:?}: expected one of {}", names().join(", ")))?;
    // Not println!: a closed stdout (`schema | head`) is an error, not a panic.
    writeln!(std::io::stdout().lock(), "{s}")?;
    Ok(())
}

/// The JSON Schema published as `transport-bench/schema/{name}.schema.json` (a scenario's
/// name is an alias of its schema's: `study` and `audit` of `summary`), or None for an
/// unknown name.
pub fn named(name: &str) -> Option<String> {
    if name == "watch" {
        return Some(solr_watch::watch_schema());
    }
    super::registry::schema(name)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::Path;

    use clap::CommandFactory;

    use super::SCENARIOS;

    /// The words of `text` (names such as `large-responses` are one word).
    fn words(text: &str) -> BTreeSet<&str> {
        text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .collect()
    }

    /// `schema --help` names every scenario of the list, `watch` and every published schema
    /// in the argument's help, and every scenario and `watch` in the about line.
    #[test]
    fn help_names_every_scenario_and_schema_from_the_list() {
        let mut cli = crate::cli::Cli::command();
        let cmd = cli.find_subcommand_mut("schema").expect("schema");
        let about = cmd.get_about().expect("about").to_string();
        let which = cmd
            .get_arguments()
            .find(|a| a.get_id() == "which")
            .and_then(|a| a.get_help())
            .expect("the argument's help")
            .to_string();
        let scenarios = SCENARIOS.iter().map(|e| e.name);
        for name in scenarios.clone().chain(super::names()) {
            assert!(
                words(&which).contains(name),
                "{name} missing from {which:?}"
            );
        }
        for name in scenarios.chain(["watch"]) {
            assert!(
                words(&about).contains(name),
                "{name} missing from {about:?}"
            );
        }
        assert!(
            about.contains("`summary.json` of study/audit (default)"),
            "{about}"
        );
    }

    /// Every name of the list has its published file `schema/<name>.schema.json`, equal to
    /// what `schema <name>` prints, and every published file has its name.
    #[test]
    fn published_schemas_are_current() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema");
        let names = super::names();
        for name in &names {
            let path = dir.join(format!("{name}.schema.json"));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(
                text.trim(),
                super::named(name).expect("a known schema").trim(),
                "run `transport-bench schema {name} > transport-bench/schema/{name}.schema.json`"
            );
        }
        let files: BTreeSet<String> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.expect("a directory entry").file_name())
            .filter_map(|f| {
                let f = f.to_string_lossy();
                f.strip_suffix(".schema.json").map(str::to_string)
            })
            .collect();
        let listed: BTreeSet<String> = names.iter().map(|n| n.to_string()).collect();
        assert_eq!(files, listed, "schema/ holds one file per published name");
        for known in ["summary", "watch", "sweep", "knn"] {
            assert!(files.contains(known), "{known} missing from {files:?}");
        }
        assert_eq!(super::named("nope"), None);
    }
}
