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
    #[test]
    fn published_schemas_are_current() {
        let published = [
            ("summary", include_str!("../../schema/summary.schema.json")),
            ("sweep", include_str!("../../schema/sweep.schema.json")),
            (
                "large-responses",
                include_str!("../../schema/large-responses.schema.json"),
            ),
            ("watch", include_str!("../../schema/watch.schema.json")),
            ("nrt", include_str!("../../schema/nrt.schema.json")),
            (
                "bulk-files",
                include_str!("../../schema/bulk-files.schema.json"),
            ),
            (
                "bulk-index",
                include_str!("../../schema/bulk-index.schema.json"),
            ),
            (
                "baseline",
                include_str!("../../schema/baseline.schema.json"),
            ),
            ("knn", include_str!("../../schema/knn.schema.json")),
            ("routing", include_str!("../../schema/routing.schema.json")),
        ];
        for (name, text) in published {
            assert_eq!(
                text.trim(),
                super::named(name).expect("a known schema").trim(),
                "run `transport-bench schema {name} > transport-bench/schema/{name}.schema.json`"
            );
        }
        assert_eq!(super::named("nope"), None);
    }
}
