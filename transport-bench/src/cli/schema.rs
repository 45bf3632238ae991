//! `transport-bench schema`: prints the JSON Schema of a command's JSON output.

use anyhow::{Context, Result};

use crate::scenario::{
    baseline, bulk_files, bulk_index, knn, large_responses, nrt, routing, study, sweep,
};
use crate::schema::schema_of;

/// The names [`named`] knows, as the error of an unknown one lists them.
pub const NAMES: &str =
    "summary, sweep, large-responses, watch, nrt, bulk-files, bulk-index, baseline, knn or routing";

/// Options of `schema`.
#[derive(Debug, clap::Args)]
pub struct SchemaArgs {
    /// Whose: summary (also: study, audit), sweep, large-responses, watch, nrt, bulk-files,
    /// bulk-index, baseline, knn, routing.
    #[arg(default_value = "summary")]
    pub which: String,
}

/// Runs `schema`.
pub fn run(a: SchemaArgs) -> Result<()> {
    let which = a.which;
    let s = named(&which).with_context(|| format!("schema {which:?}: expected {NAMES}"))?;
    println!("{s}");
    Ok(())
}

/// The JSON Schema published as `transport-bench/schema/{name}.schema.json` (`study` and
/// `audit` are aliases of `summary`), or None for an unknown name.
pub fn named(name: &str) -> Option<String> {
    Some(match name {
        "summary" | "study" | "audit" => schema_of::<study::StudyReport>(),
        "sweep" => sweep::sweep_schema(),
        "large-responses" => large_responses::large_schema(),
        "watch" => solr_watch::watch_schema(),
        "nrt" => schema_of::<nrt::NrtReport>(),
        "bulk-files" => schema_of::<bulk_files::BulkReport>(),
        "bulk-index" => schema_of::<bulk_index::BulkIndexReport>(),
        "baseline" => schema_of::<baseline::BaselineReport>(),
        "knn" => schema_of::<knn::KnnReport>(),
        "routing" => schema_of::<routing::RoutingReport>(),
        _ => return None,
    })
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
