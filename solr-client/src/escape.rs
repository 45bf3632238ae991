//! Escaping user text for Solr's standard query parser.
//!
//! [`escape_query`] backslash-escapes every character the Lucene/Solr query syntax gives a
//! meaning to, and whitespace, so user text can only ever be a term: it cannot start local
//! params (`{!...}`), open ranges, add operators or fields.

/// Escapes `text` so the standard query parser reads it as one literal term.
///
/// ```
/// assert_eq!(solr_client::escape_query("{!delete}a:b"), r"\{\!delete\}a\:b");
/// ```
pub fn escape_query(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '+'
                | '-'
                | '!'
                | '('
                | ')'
                | ':'
                | '^'
                | '['
                | ']'
                | '"'
                | '{'
                | '}'
                | '~'
                | '*'
                | '?'
                | '|'
                | '&'
                | ';'
                | '/'
        ) || c.is_whitespace()
        {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Quotes `text` as a phrase: `"..."` with inner quotes and backslashes escaped.
pub fn quote_phrase(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_local_params_survive() {
        let e = escape_query("{!xmlparser v='x'} OR *:*");
        assert!(!e.contains("{!"), "{e}");
        assert_eq!(e, r"\{\!xmlparser\ v='x'\}\ OR\ \*\:\*");
    }

    #[test]
    fn phrase() {
        assert_eq!(quote_phrase(r#"a "b" \c"#), r#""a \"b\" \\c""#);
    }
}
