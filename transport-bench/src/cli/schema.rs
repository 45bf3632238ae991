//! `transport-bench schema`: prints the JSON Schema of a command's JSON output.

use anyhow::{Context, Result};

use super::registry::SCENARIOS;

/// Options of `schema`.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// Whose: summary (also: study, audit), watch, or any scenario's name (sweep,
    /// large-responses, nrt, bulk-files, bulk-index, baseline, knn, routing).
    #[arg(default_value = "summary")]
    pub which: String,
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
    println!("{s}");
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
