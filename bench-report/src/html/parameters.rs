//! The run's parameters from its report's JSON, one rule for every kind of run: the
//! top-level scalars (and short lists of them), and every member of a settings-like group
//! (`settings`, `config`, ...) under its own name, whatever its shape: a nested object is
//! flattened into `key value` pairs ([`value_text`]), so `{"closed": {"concurrency": 1}}`
//! reads `closed, concurrency 1`. A URL's password never reaches the page.

use serde_json::Value;

/// Keys whose members are parameters too (one level down).
const PARAMETER_GROUPS: [&str; 6] = [
    "settings",
    "config",
    "parameters",
    "params",
    "target",
    "workload",
];

/// Top-level keys that are not parameters.
const NOT_PARAMETERS: [&str; 4] = ["verdict", "schema_version", "warnings", "duration_s"];

/// A list longer than this shows its first items and how many more there are.
const LIST_MAX: usize = 20;

/// The parameters of a report, `(name, value)`: top-level scalars by their key, a group's
/// members by theirs (prefixed with the group's name only when a name is already taken).
pub fn parameters(json: &Value) -> Vec<(String, String)> {
    let Some(obj) = json.as_object() else {
        return Vec::new();
    };
    let mut out: Vec<(String, String)> = Vec::new();
    for (k, v) in obj {
        if NOT_PARAMETERS.contains(&k.as_str()) {
            continue;
        }
        if let Some(s) = scalar(v) {
            out.push((k.clone(), s));
        } else if let (true, Some(group)) = (PARAMETER_GROUPS.contains(&k.as_str()), v.as_object())
        {
            for (g, x) in group {
                let taken = out.iter().any(|(n, _)| n == g) || obj.contains_key(g);
                let name = if taken { format!("{k}.{g}") } else { g.clone() };
                out.push((name, value_text(x)));
            }
        }
    }
    out
}

/// Any JSON value as a parameter's text: a scalar as itself (`null` as `-`), a list as its
/// items joined by `, ` (objects by `; `), an object as `key value` pairs joined by `, `
/// (a nested object in parentheses; a one-key object holding an object, which is how serde
/// writes an enum variant, as `variant, its fields`).
pub fn value_text(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::Array(a) => {
            let sep = if a.iter().any(Value::is_object) {
                "; "
            } else {
                ", "
            };
            let mut items: Vec<String> = a.iter().take(LIST_MAX).map(value_text).collect();
            if a.len() > LIST_MAX {
                items.push(format!("and {} more", a.len() - LIST_MAX));
            }
            if items.is_empty() {
                "none".into()
            } else {
                items.join(sep)
            }
        }
        Value::Object(o) => match o.iter().next() {
            None => "-".into(),
            Some((variant, inner @ Value::Object(_))) if o.len() == 1 => {
                format!("{variant}, {}", value_text(inner))
            }
            _ => {
                let pairs: Vec<String> = o
                    .iter()
                    .map(|(k, x)| match x {
                        Value::Object(_) => format!("{k} ({})", value_text(x)),
                        _ => format!("{k} {}", value_text(x)),
                    })
                    .collect();
                pairs.join(", ")
            }
        },
        _ => scalar(v).unwrap_or_default(),
    }
}

/// A scalar (or a short list of scalars) as text; None for anything else.
pub(super) fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(redact(s)),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(a) if !a.is_empty() && a.len() <= LIST_MAX => {
            let parts: Option<Vec<String>> = a
                .iter()
                .map(|x| (!x.is_array()).then(|| scalar(x)).flatten())
                .collect();
            parts.map(|p| p.join(", "))
        }
        _ => None,
    }
}

/// A URL's user information replaced by `***`, so no password reaches the page.
fn redact(s: &str) -> String {
    let Some((scheme, rest)) = s.split_once("://") else {
        return s.to_string();
    };
    let host_end = rest.find('/').unwrap_or(rest.len());
    match rest[..host_end].rfind('@') {
        Some(at) => format!("{scheme}://***@{}", &rest[at + 1..]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_settings_read_as_values_never_as_braces() {
        let report = json!({
            "url": "http://u:pw@h/solr",
            "settings": {
                "load": {"closed": {"concurrency": 1}},
                "open": {"open": {"rate": 50.5, "poisson": true}},
                "wan": {"rtt_ms": 5, "link": {"mbit": 10}, "proxy": null},
                "url": "http://other",
                "formats": [],
                "cells": [{"a": 1}, {"a": 2}],
                "many": (0..25).collect::<Vec<_>>(),
            },
            "transports": [{"transport": "fresh"}],
        });
        let p = parameters(&report);
        let names: Vec<&str> = p.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "cells",
                "formats",
                "load",
                "many",
                "open",
                "settings.url",
                "wan",
                "url"
            ],
            "keys in the JSON's order; the report's data (transports) is no parameter"
        );
        let value = |k: &str| p.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
        assert_eq!(value("url"), Some("http://***@h/solr"));
        assert_eq!(value("load"), Some("closed, concurrency 1"));
        assert_eq!(value("open"), Some("open, poisson true, rate 50.5"));
        assert_eq!(value("wan"), Some("link (mbit 10), proxy -, rtt_ms 5"));
        assert_eq!(value("settings.url"), Some("http://other"));
        assert_eq!(value("formats"), Some("none"));
        assert_eq!(value("cells"), Some("a 1; a 2"));
        let many = value("many").unwrap();
        assert!(
            many.starts_with("0, 1, ") && many.ends_with("19, and 5 more"),
            "{many}"
        );
        assert!(p.iter().all(|(_, v)| !v.contains('{')));
    }
}
