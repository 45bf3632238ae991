//! The two kinds of text an expression holds, checked and written the way Solr's
//! `StreamExpressionParser` reads them back: names (collections, fields, parameter names),
//! written bare, and free text (queries, filters), written between double quotes.
//!
//! Inside double quotes the parser looks only at `"` and `\`, and once the outer quotes are
//! gone it turns every backtick into `"`. Its unescaping of `\"` does not give back every
//! run of backslashes before a quote (Solr 9.10 reads `\\\"` as `\\"`), so a double
//! quote of the value is written as a backtick, never escaped: a backslash then means what it
//! means in the value, whatever follows it. Commas, parentheses and single quotes between the
//! quotes are plain text. What the parser cannot give back exactly is refused: a backtick of
//! the value (it would become `"`), an odd run of backslashes at the end (it would escape the
//! closing quote), a line that starts with `#` (a comment, dropped), a carriage return, and
//! blank text. Solr trims whitespace around a quoted value (harmless for a query).

use std::fmt::{self, Write};

use crate::error::{Error, Result};

/// Checks a collection, field or parameter name: letters, digits, `_`, `.` and `-` only.
pub(crate) fn check_name(what: &str, name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::InvalidInput(format!(
            "streaming expression: empty {what}"
        )));
    }
    match name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        None => Ok(()),
        Some(c) => Err(Error::InvalidInput(format!(
            "streaming expression: {what} {name:?} holds {c:?} (letters, digits, '_', '.', '-' only)"
        ))),
    }
}

/// Checks free text that goes between double quotes (see the module's rules).
pub(crate) fn check_text(what: &str, text: &str) -> Result<()> {
    let refuse = |why: &str| {
        Err(Error::InvalidInput(format!(
            "streaming expression: {what} {text:?} {why}"
        )))
    };
    if text.trim().is_empty() {
        return refuse("is blank (Solr refuses an empty quoted value)");
    }
    if text.contains('`') {
        return refuse("holds a backtick, which Solr reads as a double quote");
    }
    if text.contains('\r') {
        return refuse("holds a carriage return, which Solr reads as a line break");
    }
    if text
        .split('\n')
        .skip(1)
        .any(|l| l.trim_start().starts_with('#'))
    {
        return refuse("holds a line starting with '#', which Solr drops as a comment");
    }
    let run = text.chars().rev().take_while(|c| *c == '\\').count();
    if run % 2 == 1 {
        return refuse("ends with an odd run of backslashes");
    }
    Ok(())
}

/// Writes checked free text between double quotes, each `"` of it as a backtick, so that
/// Solr reads back `text`.
pub(crate) fn write_quoted(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in text.chars() {
        f.write_char(if c == '"' { '`' } else { c })?;
    }
    f.write_char('"')
}
