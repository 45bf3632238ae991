//! Escaping user text for Solr's standard query parser.
//!
//! [`escape_query`] backslash-escapes every character the Lucene/Solr query syntax gives a
//! meaning to, and whitespace, so user text can only ever be a term: it cannot start local
//! params (`{!...}`), open ranges, add operators or fields. A text that is, as a whole, one
//! of the operator words `AND`, `OR`, `NOT` (in any case, so `lowercaseOperators=true` and
//! edismax are covered too) gets its first letter escaped (`\AND`): the parser reads an
//! escaped letter as the letter itself, but the token is no longer the operator. `&&` and
//! `||` are covered by the character rule (`\&\&`, `\|\|`).

/// Escapes `text` so the standard query parser reads it as one literal term, whatever it
/// holds: special characters and whitespace are backslash-escaped, a bare operator word
/// (`AND`, `OR`, `NOT`, any case) gets its first letter escaped, and the empty text becomes
/// the empty phrase `""` (an empty term would leave `field:` dangling).
///
/// ```
/// assert_eq!(solr_client::escape_query("{!delete}a:b"), r"\{\!delete\}a\:b");
/// assert_eq!(solr_client::escape_query("OR"), r"\OR");
/// assert_eq!(solr_client::escape_query("a && b"), r"a\ \&\&\ b");
/// ```
pub fn escape_query(text: &str) -> String {
    if text.is_empty() {
        return "\"\"".to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    if ["AND", "OR", "NOT"]
        .iter()
        .any(|op| text.eq_ignore_ascii_case(op))
    {
        out.push('\\');
    }
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
    fn operator_words_and_symbols_become_terms() {
        for (input, want) in [
            ("AND", r"\AND"),
            ("OR", r"\OR"),
            ("NOT", r"\NOT"),
            ("and", r"\and"),
            ("Or", r"\Or"),
            ("&&", r"\&\&"),
            ("||", r"\|\|"),
            ("!", r"\!"),
            ("a AND b", r"a\ AND\ b"),
            ("NOT x", r"NOT\ x"),
            ("ANDROID", "ANDROID"),
            ("", r#""""#),
        ] {
            assert_eq!(escape_query(input), want, "{input:?}");
        }
    }

    #[test]
    fn phrase() {
        assert_eq!(quote_phrase(r#"a "b" \c"#), r#""a \"b\" \\c""#);
    }
}
