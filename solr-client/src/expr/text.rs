//! The two kinds of text an expression holds, checked and written the way Solr's
//! `StreamExpressionParser` reads them back: names (collections, fields, parameter names),
//! written bare, and free text (queries, filters), written between double quotes.
//!
//! Inside double quotes the parser looks only at `"` and `\`: a quote preceded by an odd run
//! of backslashes does not end the value, and once the outer quotes are gone it turns `\"`
//! into `"` and `\\\"` into `\"`. Commas, parentheses and single quotes between the quotes
//! are plain text. What it cannot give back exactly is refused: a backtick (it becomes `"`),
//! a quote after an even run of backslashes, an odd run of backslashes at the end, a line
//! that starts with `#` (a comment, dropped), a carriage return, and blank text.

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
    let mut run = 0usize;
    for c in text.chars() {
        match c {
            '\\' => run += 1,
            '"' if run > 0 && run % 2 == 0 => {
                return refuse("holds a double quote after an even run of backslashes");
            }
            _ => run = 0,
        }
    }
    if run % 2 == 1 {
        return refuse("ends with an odd run of backslashes");
    }
    Ok(())
}

/// Writes checked free text between double quotes, escaped so that Solr reads back `text`.
pub(crate) fn write_quoted(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    f.write_char('"')?;
    let mut run = 0usize;
    for c in text.chars() {
        match c {
            '\\' => run += 1,
            // After no backslash `\"`; after an odd run two more, which Solr takes off again.
            '"' if run == 0 => f.write_char('\\')?,
            '"' => f.write_str("\\\\")?,
            _ => {}
        }
        if c != '\\' {
            run = 0;
        }
        f.write_char(c)?;
    }
    f.write_char('"')
}
