//! `--response-format`: the response formats (`wt`) `study` and `audit` run their searches
//! in, each with the same searches ([`crate::scenario::study::formats`]).

use solr_client::ResponseFormat;

/// One response format on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FormatChoice {
    /// `wt=json` (the default).
    Json,
    /// `wt=xml`.
    Xml,
    /// `wt=javabin`, SolrJ's binary format.
    Javabin,
    /// `wt=cbor`.
    Cbor,
}

impl From<FormatChoice> for ResponseFormat {
    fn from(c: FormatChoice) -> Self {
        match c {
            FormatChoice::Json => ResponseFormat::Json,
            FormatChoice::Xml => ResponseFormat::Xml,
            FormatChoice::Javabin => ResponseFormat::Javabin,
            FormatChoice::Cbor => ResponseFormat::Cbor,
        }
    }
}

/// The response-format axis of `study` and `audit`.
#[derive(Debug, Clone, clap::Args)]
pub struct ResponseFormatArgs {
    /// Response formats to run the searches in (repeatable or comma-separated: json, xml,
    /// javabin, cbor). More than JSON alone adds a per-format table: response bytes, decode
    /// time, wall p50/p99 and the ratio to JSON.
    #[arg(
        long = "response-format",
        value_enum,
        value_delimiter = ',',
        default_value = "json",
        hide_possible_values = true
    )]
    pub response_formats: Vec<FormatChoice>,
}

impl ResponseFormatArgs {
    /// The formats chosen, in order, without repeats.
    pub fn formats(&self) -> Vec<ResponseFormat> {
        crate::scenario::study::formats::normalized(
            &self
                .response_formats
                .iter()
                .map(|&c| c.into())
                .collect::<Vec<_>>(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::audit::AuditArgs;
    use super::super::cli::StudyArgs;
    use solr_client::ResponseFormat::*;

    #[test]
    fn response_formats_default_to_json_and_take_lists_and_repeats() {
        let study = |extra: &[&str]| {
            let a: StudyArgs = crate::args::try_parse("study", extra).expect("parses");
            a.formats.formats()
        };
        assert_eq!(study(&[]), [Json]);
        assert_eq!(
            study(&["--response-format", "json,xml", "--response-format", "cbor"]),
            [Json, Xml, Cbor]
        );
        let audit = |extra: &[&str]| {
            let a: AuditArgs = crate::args::try_parse("audit", extra).expect("parses");
            a.formats.formats()
        };
        assert_eq!(audit(&[]), [Json]);
        assert_eq!(
            audit(&["--response-format", "javabin,json,javabin"]),
            [Javabin, Json]
        );
        let bad = crate::args::try_parse::<AuditArgs>("audit", &["--response-format", "yaml"]);
        assert!(bad.is_err());
    }
}
