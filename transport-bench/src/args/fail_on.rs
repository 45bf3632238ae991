//! `--fail-on <SEVERITY>`: a run that found something at that severity or above ends with
//! exit code [`EXIT_FINDINGS`], so a CI job fails on it. The report is saved and printed first,
//! as on any run.
//!
//! [`FailOnArgs`] is the option, flattened into the commands that have findings.
//!
//! Exit codes of `transport-bench`: 0 done; 1 an error (the reason first, on stderr); 2 a
//! command line clap refused; 3 `--fail-on` found a finding at its severity or above.

use solr_watch::report::{Finding, Severity};

/// The exit code of a run stopped by `--fail-on`.
pub const EXIT_FINDINGS: i32 = 3;

/// `--fail-on SEVERITY`, flattened into every command whose report has findings (`watch`,
/// `audit`, `study`): one option, one parser, one message.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct FailOnArgs {
    /// Exit with code 3 after saving and printing the report when it has a finding at this
    /// severity or above: high, medium or info (high is above medium, medium above info).
    #[arg(long, value_name = "SEVERITY", value_parser = parse_severity)]
    pub fail_on: Option<Severity>,
}

impl FailOnArgs {
    /// [`check`] of `findings` at `--fail-on`'s severity.
    pub fn check(&self, findings: &[Finding]) -> anyhow::Result<()> {
        check(self.fail_on, findings)
    }
}

/// Parses `high`, `medium` or `info` (`--fail-on`'s value).
pub fn parse_severity(s: &str) -> Result<Severity, String> {
    match s.to_ascii_lowercase().as_str() {
        "high" => Ok(Severity::High),
        "medium" => Ok(Severity::Medium),
        "info" => Ok(Severity::Info),
        _ => Err(format!("not a severity: {s:?} (high, medium or info)")),
    }
}

/// The findings at `at` or above, as the error that ends the run with [`EXIT_FINDINGS`].
#[derive(Debug)]
pub struct FindingsFound {
    /// The `--fail-on` severity.
    pub at: Severity,
    /// `severity kind` of each finding at it or above.
    pub found: Vec<String>,
}

impl std::fmt::Display for FindingsFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "--fail-on {}: {} finding(s) at that severity or above: {}",
            self.at,
            self.found.len(),
            self.found.join(", ")
        )
    }
}

impl std::error::Error for FindingsFound {}

/// `Err(FindingsFound)` when `at` is set and a finding is at it or above (high is above
/// medium, medium above info).
pub fn check(at: Option<Severity>, findings: &[Finding]) -> anyhow::Result<()> {
    let Some(at) = at else { return Ok(()) };
    let found: Vec<String> = findings
        .iter()
        .filter(|f| f.severity <= at)
        .map(|f| format!("{} {}", f.severity, f.kind))
        .collect();
    if found.is_empty() {
        return Ok(());
    }
    Err(FindingsFound { at, found }.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(severity: Severity, kind: &str) -> Finding {
        Finding {
            severity,
            kind: kind.into(),
            what: String::new(),
            fix: String::new(),
        }
    }

    #[test]
    fn a_finding_at_the_severity_or_above_fails_the_run() {
        let found = [
            finding(Severity::Medium, "xml-updates"),
            finding(Severity::Info, "tls"),
        ];
        assert!(check(None, &found).is_ok());
        assert!(check(Some(Severity::High), &found).is_ok());
        let e = check(Some(Severity::Medium), &found).expect_err("medium found");
        assert_eq!(
            e.to_string(),
            "--fail-on medium: 1 finding(s) at that severity or above: medium xml-updates"
        );
        let e = check(Some(Severity::Info), &found).expect_err("both");
        assert_eq!(
            e.downcast_ref::<FindingsFound>().map(|f| f.found.len()),
            Some(2)
        );
        assert_eq!(parse_severity("HIGH"), Ok(Severity::High));
        assert!(parse_severity("low").is_err());
    }
}
