//! The Schema API of the client's collection (`/{collection}/schema`): read fields, dynamic
//! fields, field types, copy fields and the unique key; change them with the bulk
//! `POST /schema` commands.

use bytes::Bytes;
use http::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{check_name, timed, AdminResponse, Call};
use crate::client::SolrClient;
use crate::error::{Error, Result};
use crate::timing::Timing;
use crate::types::ResponseHeader;

/// The Schema API of the client's collection (or core). Borrowed from
/// [`SolrClient::schema`]. Changes need a mutable managed schema
/// (`ManagedIndexSchemaFactory`); a classic `schema.xml` answers them with an error.
///
/// ```no_run
/// # async fn run(client: solr_client::SolrClient) -> solr_client::Result<()> {
/// use solr_client::admin::{SchemaCommand, SchemaField};
/// let schema = client.schema();
/// schema
///     .update(&[SchemaCommand::AddField(
///         SchemaField::new("pages", "pint").stored(true),
///     )])
///     .await?;
/// let fields = schema.fields().await?;
/// assert!(fields.get("pages").is_some());
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Schema<'a> {
    client: &'a SolrClient,
    replica_wait_secs: Option<u32>,
}

impl<'a> Schema<'a> {
    pub(crate) fn new(client: &'a SolrClient) -> Self {
        Schema {
            client,
            replica_wait_secs: None,
        }
    }

    /// In SolrCloud, makes [`Self::update`] answer only once every replica runs the new
    /// schema, waiting at most `secs` (Solr's `updateTimeoutSecs`; an error when they do not
    /// all catch up in time). Default: Solr's (answer once the node that took the change has
    /// it; other replicas follow shortly).
    pub fn wait_for_replicas(mut self, secs: u32) -> Self {
        self.replica_wait_secs = Some(secs);
        self
    }

    fn read(&self, path: &'static str, what: &'static str) -> Call<'static> {
        let mut c = Call::get(path, what);
        c.in_collection = true;
        c
    }

    /// `GET schema/fields`: the explicit fields.
    pub async fn fields(&self) -> Result<FieldList> {
        self.read("schema/fields", "schema fields")
            .send(self.client)
            .await
    }

    /// `GET schema/dynamicfields`: the dynamic field patterns.
    pub async fn dynamic_fields(&self) -> Result<FieldList> {
        self.read("schema/dynamicfields", "schema dynamic fields")
            .send(self.client)
            .await
    }

    /// `GET schema/fieldtypes`: the field types.
    pub async fn field_types(&self) -> Result<FieldTypeList> {
        self.read("schema/fieldtypes", "schema field types")
            .send(self.client)
            .await
    }

    /// `GET schema/copyfields`: the copy field rules.
    pub async fn copy_fields(&self) -> Result<CopyFieldList> {
        self.read("schema/copyfields", "schema copy fields")
            .send(self.client)
            .await
    }

    /// `GET schema/uniquekey`: the unique key field's name.
    pub async fn unique_key(&self) -> Result<UniqueKey> {
        self.read("schema/uniquekey", "schema unique key")
            .send(self.client)
            .await
    }

    /// `POST schema`: applies `commands` in order, as one request. Solr applies all or
    /// none; its error lists each failed command's messages ([`Error::Solr`]). An empty
    /// list sends nothing.
    pub async fn update(&self, commands: &[SchemaCommand]) -> Result<AdminResponse> {
        if commands.is_empty() {
            return Ok(AdminResponse::default());
        }
        let body = SchemaCommand::body(commands)?;
        let mut call = self
            .read("schema", "schema update")
            .opt("updateTimeoutSecs", self.replica_wait_secs);
        call.method = Method::POST;
        call.body = Some(("application/json", Bytes::from(body)));
        call.send(self.client).await
    }
}

/// One command of a bulk schema change (`POST /schema`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SchemaCommand {
    /// `add-field`.
    AddField(SchemaField),
    /// `replace-field`: the field's whole definition is replaced.
    ReplaceField(SchemaField),
    /// `delete-field` by name.
    DeleteField(String),
    /// `add-dynamic-field` (the name is a pattern such as `*_x`).
    AddDynamicField(SchemaField),
    /// `replace-dynamic-field`.
    ReplaceDynamicField(SchemaField),
    /// `delete-dynamic-field` by pattern.
    DeleteDynamicField(String),
    /// `add-field-type`.
    AddFieldType(FieldType),
    /// `replace-field-type`.
    ReplaceFieldType(FieldType),
    /// `delete-field-type` by name.
    DeleteFieldType(String),
    /// `add-copy-field`.
    AddCopyField(CopyField),
    /// `delete-copy-field` (source and dest; `max_chars` is ignored).
    DeleteCopyField(CopyField),
}

impl SchemaCommand {
    fn name(&self) -> &'static str {
        match self {
            SchemaCommand::AddField(_) => "add-field",
            SchemaCommand::ReplaceField(_) => "replace-field",
            SchemaCommand::DeleteField(_) => "delete-field",
            SchemaCommand::AddDynamicField(_) => "add-dynamic-field",
            SchemaCommand::ReplaceDynamicField(_) => "replace-dynamic-field",
            SchemaCommand::DeleteDynamicField(_) => "delete-dynamic-field",
            SchemaCommand::AddFieldType(_) => "add-field-type",
            SchemaCommand::ReplaceFieldType(_) => "replace-field-type",
            SchemaCommand::DeleteFieldType(_) => "delete-field-type",
            SchemaCommand::AddCopyField(_) => "add-copy-field",
            SchemaCommand::DeleteCopyField(_) => "delete-copy-field",
        }
    }

    fn payload(&self) -> Result<String> {
        let named = |n: &str| -> Result<String> {
            check_name("schema item", n)?;
            Ok(serde_json::json!({ "name": n }).to_string())
        };
        let to_value = |v: Result<String, serde_json::Error>| {
            v.map_err(|e| Error::invalid_input(format!("schema command: {e}")))
        };
        match self {
            SchemaCommand::AddField(f)
            | SchemaCommand::ReplaceField(f)
            | SchemaCommand::AddDynamicField(f)
            | SchemaCommand::ReplaceDynamicField(f) => {
                if f.name.is_empty() || f.field_type.is_empty() {
                    return Err(Error::invalid_input(format!(
                        "{}: a field needs a name and a type",
                        self.name()
                    )));
                }
                to_value(serde_json::to_string(f))
            }
            SchemaCommand::AddFieldType(t) | SchemaCommand::ReplaceFieldType(t) => {
                if t.name.is_empty() || t.class.is_empty() {
                    return Err(Error::invalid_input(format!(
                        "{}: a field type needs a name and a class",
                        self.name()
                    )));
                }
                to_value(serde_json::to_string(t))
            }
            SchemaCommand::DeleteField(n)
            | SchemaCommand::DeleteDynamicField(n)
            | SchemaCommand::DeleteFieldType(n) => named(n),
            SchemaCommand::AddCopyField(c) => {
                if c.source.is_empty() || c.dest.is_empty() {
                    return Err(Error::invalid_input(
                        "add-copy-field needs a source and a dest",
                    ));
                }
                to_value(serde_json::to_string(c))
            }
            SchemaCommand::DeleteCopyField(c) => {
                Ok(serde_json::json!({ "source": c.source, "dest": c.dest }).to_string())
            }
        }
    }

    /// The request body: one JSON object whose keys are the command names in order
    /// (repeated keys are how Solr takes several commands of one kind, applied in order).
    pub(crate) fn body(commands: &[SchemaCommand]) -> Result<String> {
        let mut s = String::from("{");
        for (i, c) in commands.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push('"');
            s.push_str(c.name());
            s.push_str("\":");
            s.push_str(&c.payload()?);
        }
        s.push('}');
        Ok(s)
    }
}

/// A field or dynamic field definition, as the Schema API reads and writes it. Unset
/// properties are left to the field type's defaults.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[must_use]
#[non_exhaustive]
pub struct SchemaField {
    /// The name (a pattern such as `*_s` for a dynamic field).
    pub name: String,
    /// The field type's name.
    #[serde(rename = "type")]
    pub field_type: String,
    /// `indexed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub indexed: Option<bool>,
    /// `stored`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stored: Option<bool>,
    /// `docValues`.
    #[serde(rename = "docValues", default, skip_serializing_if = "Option::is_none")]
    pub doc_values: Option<bool>,
    /// `multiValued`.
    #[serde(
        rename = "multiValued",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub multi_valued: Option<bool>,
    /// `required`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Any other property (`default`, `uninvertible`, `omitNorms`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SchemaField {
    /// A field `name` of type `field_type`.
    pub fn new(name: impl Into<String>, field_type: impl Into<String>) -> Self {
        SchemaField {
            name: name.into(),
            field_type: field_type.into(),
            ..Default::default()
        }
    }

    /// Sets `stored`.
    pub fn stored(mut self, yes: bool) -> Self {
        self.stored = Some(yes);
        self
    }

    /// Sets `indexed`.
    pub fn indexed(mut self, yes: bool) -> Self {
        self.indexed = Some(yes);
        self
    }

    /// Sets `docValues`.
    pub fn doc_values(mut self, yes: bool) -> Self {
        self.doc_values = Some(yes);
        self
    }

    /// Sets `multiValued`.
    pub fn multi_valued(mut self, yes: bool) -> Self {
        self.multi_valued = Some(yes);
        self
    }

    /// Sets `required`.
    pub fn required(mut self, yes: bool) -> Self {
        self.required = Some(yes);
        self
    }

    /// Sets any other property.
    pub fn property(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.extra.insert(key.into(), value.into());
        self
    }
}

/// A field type definition: name, class, and every other property (analyzers included) as
/// Solr's JSON has them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[must_use]
#[non_exhaustive]
pub struct FieldType {
    /// The name.
    pub name: String,
    /// The implementing class (`solr.TextField`, `solr.IntPointField`, ...).
    pub class: String,
    /// Every other property (`analyzer`, `positionIncrementGap`, `docValues`, ...).
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl FieldType {
    /// A type `name` implemented by `class`.
    pub fn new(name: impl Into<String>, class: impl Into<String>) -> Self {
        FieldType {
            name: name.into(),
            class: class.into(),
            extra: Map::new(),
        }
    }

    /// Sets a property (for example `analyzer` as a JSON object).
    pub fn property(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.extra.insert(key.into(), value.into());
        self
    }
}

/// A copy field rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CopyField {
    /// The source field (or pattern).
    pub source: String,
    /// The destination field.
    pub dest: String,
    /// `maxChars`: copy at most this many characters. Default: everything.
    #[serde(rename = "maxChars", default, skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<u32>,
}

impl CopyField {
    /// Copies `source` into `dest`.
    pub fn new(source: impl Into<String>, dest: impl Into<String>) -> Self {
        CopyField {
            source: source.into(),
            dest: dest.into(),
            max_chars: None,
        }
    }
}

/// The answer of `schema/fields` and `schema/dynamicfields`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FieldList {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// The fields (or dynamic fields), as Solr lists them.
    #[serde(alias = "dynamicFields", default)]
    pub fields: Vec<SchemaField>,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

impl FieldList {
    /// The field named `name`.
    pub fn get(&self, name: &str) -> Option<&SchemaField> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// The answer of `schema/fieldtypes`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FieldTypeList {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// The field types.
    #[serde(rename = "fieldTypes", default)]
    pub field_types: Vec<FieldType>,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

impl FieldTypeList {
    /// The type named `name`.
    pub fn get(&self, name: &str) -> Option<&FieldType> {
        self.field_types.iter().find(|t| t.name == name)
    }
}

/// The answer of `schema/copyfields`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CopyFieldList {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// The copy field rules.
    #[serde(rename = "copyFields", default)]
    pub copy_fields: Vec<CopyField>,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

/// The answer of `schema/uniquekey`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct UniqueKey {
    /// Solr's header.
    #[serde(rename = "responseHeader", default)]
    pub header: ResponseHeader,
    /// The unique key field's name.
    #[serde(rename = "uniqueKey", default)]
    pub unique_key: String,
    /// Client-side timing.
    #[serde(skip)]
    pub timing: Timing,
}

timed!(FieldList, FieldTypeList, CopyFieldList, UniqueKey);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_lists_of_real_answers() {
        let f: FieldList =
            serde_json::from_str(include_str!("testdata/schema_fields.json")).expect("parses");
        let cat = f.get("category").expect("category");
        assert_eq!(cat.field_type, "string");
        assert_eq!(cat.doc_values, Some(true));
        assert_eq!(cat.stored, Some(true));
        let id = f.get("id").expect("id");
        assert_eq!(id.required, Some(true));
        let d: FieldList =
            serde_json::from_str(include_str!("testdata/schema_dynamicfields.json")).expect("dyn");
        assert_eq!(d.get("*_i").map(|f| f.field_type.as_str()), Some("pint"));
        let t: FieldTypeList =
            serde_json::from_str(include_str!("testdata/schema_fieldtypes.json")).expect("types");
        let s = t.get("string").expect("string type");
        assert_eq!(s.class, "solr.StrField");
        assert!(!t.field_types.is_empty());
    }

    #[test]
    fn commands_keep_their_order_as_repeated_keys() {
        let body = SchemaCommand::body(&[
            SchemaCommand::AddField(SchemaField::new("a", "pint").stored(true)),
            SchemaCommand::AddCopyField(CopyField::new("a", "b")),
            SchemaCommand::AddField(SchemaField::new("b", "pint").property("default", 7)),
            SchemaCommand::DeleteField("c".into()),
        ])
        .expect("encodes");
        assert_eq!(
            body,
            r#"{"add-field":{"name":"a","type":"pint","stored":true},"add-copy-field":{"source":"a","dest":"b"},"add-field":{"name":"b","type":"pint","default":7},"delete-field":{"name":"c"}}"#
        );
    }

    #[test]
    fn incomplete_commands_are_refused_before_sending() {
        for c in [
            SchemaCommand::AddField(SchemaField::new("", "pint")),
            SchemaCommand::AddField(SchemaField::new("a", "")),
            SchemaCommand::AddFieldType(FieldType::new("t", "")),
            SchemaCommand::DeleteField(String::new()),
            SchemaCommand::AddCopyField(CopyField::new("a", "")),
        ] {
            let e = SchemaCommand::body(std::slice::from_ref(&c)).expect_err("refused");
            assert!(matches!(e, Error::InvalidInput(_)), "{c:?}: {e}");
        }
    }
}
