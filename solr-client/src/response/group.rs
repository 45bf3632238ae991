//! `grouped`: the answer of result grouping (`group=true`), generic over the document
//! type.

use super::{DocList, SolrValue};
use crate::types::Document;
use serde::{Deserialize, Serialize};

/// The result of one `group.field` or `group.query` command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>", serialize = "T: Serialize"))]
pub struct GroupResult<T = Document> {
    /// Documents matching the query (before grouping).
    pub matches: u64,
    /// Number of groups (`group.ngroups=true`; field commands only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ngroups: Option<u64>,
    /// The groups of a `group.field` command (`group.format=grouped`, the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<Vec<Group<T>>>,
    /// The documents of a `group.query` command, or of any command under
    /// `group.format=simple`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub doclist: Option<DocList<T>>,
}

/// One group of a `group.field` command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>", serialize = "T: Serialize"))]
pub struct Group<T = Document> {
    /// The field value of the group (null for documents without one).
    #[serde(rename = "groupValue")]
    pub group_value: SolrValue,
    /// The top `group.limit` documents of the group, with the group's `numFound`.
    pub doclist: DocList<T>,
}
