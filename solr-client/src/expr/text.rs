//! The two kinds of text an expression holds, checked and written the way Solr's
//! `StreamExpressionParser` reads them back: names (collections, fields, parameter names),
//! written bare, and free text (queries, filters), written between double quotes.
//!
//! Inside double quotes the parser looks only at `"` and `\`: a quote after an odd run of
//! backslashes does not end the value. Once the outer quotes are off, Solr 9.10 (checked on
//! the local Solr with `tuple(v="...")`) shortens every run of backslashes before a quote by
//! one (`\"` gives `"`, `\\\"` gives `\\"`) and turns a backtick not preceded by a
//! backslash into `"`. So a quote of the value after an even run of backslashes (none
//! included) is written with one backslash more; commas, parentheses and single quotes are
//! plain text. What Solr cannot give back exactly is refused: a quote after an odd run of
//! backslashes (such as the `\"` of an escaped query term: `{!term f=id}` with the raw value
//! needs no escaping), a backtick not preceded by a backslash, an odd run of backslashes at
//! the end (it would escape the closing quote), a line that starts with `#` (a comment,
//! dropped), a carriage return, and blank text. Solr trims whitespace around the value.

use std::fmt::{self, Write};

use crate::error::{Error, Result};

/// Checks a collection, field or parameter name: letters, digits, `_`, `.` and `-` only.
pub(crate) fn check_name(what: &str, name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::invalid_input(format!(
            "streaming expression: empty {what}"
        )));
    }
    match name
        .chars()
        .find(|c| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '-')))
    {
        None => Ok(()),
        Some(c) => Err(Error::invalid_input(format!(
            "streaming expression: {what} {name:?} holds {c:?} (letters, digits, '_', '.', '-' only)"
        ))),
    }
}

/// Checks free text that goes between double quotes (see the module's rules).
pub(crate) fn check_text(what: &str, text: &str) -> Result<()> {
    let refuse = |why: &str| {
        Err(Error::invalid_input(format!(
            "streaming expression: {what} {text:?} {why}"
        )))
    };
    if text.trim().is_empty() {
        return refuse("is blank (Solr refuses an empty quoted value)");
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
            '"' if run % 2 == 1 => {
                return refuse("holds a double quote after an odd run of backslashes (an escaped quote), which Solr's parser cannot pass on");
            }
            '`' if run == 0 => {
                return refuse("holds a backtick, which Solr reads as a double quote");
            }
            _ => run = 0,
        }
        if c != '\\' {
            run = 0;
        }
    }
    if run % 2 == 1 {
        return refuse("ends with an odd run of backslashes");
    }
    Ok(())
}

/// Writes checked free text between double quotes, a backslash added before each of its
/// double quotes, so that Solr reads back `text`.
pub(crate) fn write_quoted(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in text.chars() {
        if c == '"' {
            f.write_char('\\')?;
        }
        f.write_char(c)?;
    }
    f.write_char('"')
}
