//! The Prometheus text exposition format (version 0.0.4, and OpenMetrics' `# EOF`), as Solr
//! 10's `/admin/metrics` answers by default: one [`Sample`] per line `name{label="v",...}
//! value [timestamp]`. `# HELP` / `# TYPE` lines and blank lines carry no sample.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One sample of a Prometheus exposition: a metric name, its labels and its value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Sample {
    /// The sample's name as written (`solr_core_requests_total`, `..._bucket`, `..._sum`).
    pub name: String,
    /// Label name -> value, unescaped (`core`, `handler`, `category`, `le`, ...).
    pub labels: BTreeMap<String, String>,
    /// The value (`NaN`, `+Inf` and `-Inf` included).
    pub value: f64,
}

impl Sample {
    /// The label `name`'s value, if the sample has it.
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels.get(name).map(String::as_str)
    }
}

/// Why a line is not a sample: its 1-based number and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub(crate) line: usize,
    pub(crate) message: String,
}

/// Every sample of `text`, in order; the first malformed line is an error.
pub(crate) fn parse(text: &str) -> Result<Vec<Sample>, ParseError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        out.push(sample(line).map_err(|message| ParseError {
            line: i + 1,
            message,
        })?);
    }
    Ok(out)
}

fn sample(line: &str) -> Result<Sample, String> {
    let name_end = line
        .find(|c: char| c == '{' || c.is_whitespace())
        .ok_or_else(|| format!("no value after the name in {line:?}"))?;
    let name = &line[..name_end];
    if !valid_name(name) {
        return Err(format!("bad metric name {name:?}"));
    }
    let mut rest = &line[name_end..];
    let mut labels = BTreeMap::new();
    if let Some(after) = rest.strip_prefix('{') {
        rest = label_set(after, &mut labels)?;
    }
    let mut fields = rest.split_whitespace();
    let raw = fields
        .next()
        .ok_or_else(|| format!("no value for {name}"))?;
    let value = number(raw).ok_or_else(|| format!("bad value {raw:?} for {name}"))?;
    if let Some(ts) = fields.next() {
        ts.parse::<i64>()
            .map_err(|_| format!("bad timestamp {ts:?} for {name}"))?;
    }
    if let Some(extra) = fields.next() {
        return Err(format!("unexpected {extra:?} after the value of {name}"));
    }
    Ok(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

/// Reads `l="v",...}` into `labels`; returns what follows the closing brace.
fn label_set<'a>(mut s: &'a str, labels: &mut BTreeMap<String, String>) -> Result<&'a str, String> {
    loop {
        s = s.trim_start();
        if let Some(rest) = s.strip_prefix('}') {
            return Ok(rest);
        }
        let eq = s.find('=').ok_or("a label without '='")?;
        let key = s[..eq].trim();
        if !valid_name(key) {
            return Err(format!("bad label name {key:?}"));
        }
        let quoted = s[eq + 1..]
            .trim_start()
            .strip_prefix('"')
            .ok_or_else(|| format!("label {key} has no quoted value"))?;
        let (value, rest) =
            quoted_value(quoted).ok_or_else(|| format!("label {key}'s value is not closed"))?;
        labels.insert(key.to_string(), value);
        s = rest.trim_start();
        s = s.strip_prefix(',').unwrap_or(s);
    }
}

/// The unescaped value up to the closing quote (`\\`, `\"`, `\n`), and what follows it.
fn quoted_value(s: &str) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &s[i + 1..])),
            '\\' => match chars.next()?.1 {
                'n' => out.push('\n'),
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

fn valid_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == ':')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':')
}

fn number(s: &str) -> Option<f64> {
    match s {
        "+Inf" | "Inf" => Some(f64::INFINITY),
        "-Inf" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ => s.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_labels_escapes_and_special_values() {
        let text = "# HELP x_total A counter.\n# TYPE x_total counter\n\
            x_total{core=\"bench\",handler=\"/select\"} 5.0\n\
            y{msg=\"a \\\"q\\\" \\\\ b\\nc\", le=\"+Inf\",} +Inf 1712345678000\n\
            z NaN\n\n# EOF\n";
        let s = parse(text).expect("parses");
        assert_eq!(s.len(), 3);
        assert_eq!(s[0].name, "x_total");
        assert_eq!(s[0].label("handler"), Some("/select"));
        assert_eq!(s[0].value, 5.0);
        assert_eq!(s[1].label("msg"), Some("a \"q\" \\ b\nc"));
        assert_eq!(s[1].label("le"), Some("+Inf"));
        assert!(s[1].value.is_infinite());
        assert!(s[2].labels.is_empty() && s[2].value.is_nan());
    }

    #[test]
    fn a_malformed_line_is_an_error_naming_it() {
        for (text, line, says) in [
            ("a 1\nb{x=\"1\" 2\n", 2, "without '='"),
            ("b{x=\"1} 2\n", 1, "not closed"),
            ("a 1\n\nb{x=1} 2\n", 3, "no quoted value"),
            ("a one\n", 1, "bad value"),
            ("a\n", 1, "no value"),
            ("9a 1\n", 1, "bad metric name"),
            ("a 1 2 3\n", 1, "unexpected"),
            ("a 1 soon\n", 1, "bad timestamp"),
        ] {
            let e = parse(text).expect_err(text);
            assert_eq!(e.line, line, "{text:?}: {e:?}");
            assert!(e.message.contains(says), "{text:?}: {e:?}");
        }
    }
}
