//! What a message's body said (a leaf: the HTTP parsers carry it, [`crate::wire::solr`] fills it).

/// What a message's body said, kept after the body itself is dropped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// Request body format (requests with a body).
    pub format: Option<BodyFormat>,
    /// `wt` from a form-encoded request body.
    pub form_wt: Option<String>,
    /// Estimated JSON size of an XML update body captured whole.
    pub json_estimate: Option<u64>,
    /// QTime from the response body's `responseHeader`.
    pub qtime: Option<u64>,
    /// `status` from the response body's `responseHeader` (0: Solr handled it).
    pub solr_status: Option<i64>,
}

/// Format of an update request body.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum BodyFormat {
    /// JSON.
    Json,
    /// XML.
    Xml,
    /// Solr's javabin.
    Javabin,
    /// CBOR.
    Cbor,
    /// CSV.
    Csv,
    /// Form-encoded parameters.
    Form,
    /// Anything else.
    Other,
}

impl BodyFormat {
    /// Short lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            BodyFormat::Json => "json",
            BodyFormat::Xml => "xml",
            BodyFormat::Javabin => "javabin",
            BodyFormat::Cbor => "cbor",
            BodyFormat::Csv => "csv",
            BodyFormat::Form => "form",
            BodyFormat::Other => "other",
        }
    }
}
