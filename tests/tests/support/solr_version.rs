//! The Solr release the e2e tests run against: `SOLR_VERSION` (what `scripts/compat.sh`
//! sets, and what `local-solr/solr.sh` starts), else the release of the launcher's pom. A
//! check that needs a newer release compares `current()` and records its skip by name
//! (`support::skip::record`), never a silent pass; none of the smoke set needs one so far.

/// A Solr release as (major, minor, patch).
pub type Release = (u32, u32, u32);

/// Parses `9.4.1` (or `9.4`); `None` for anything else.
pub fn parse(s: &str) -> Option<Release> {
    let mut it = s.trim().split('.').map(|p| p.parse::<u32>().ok());
    let major = it.next()??;
    let minor = it.next().unwrap_or(Some(0))?;
    let patch = it.next().unwrap_or(Some(0))?;
    it.next().is_none().then_some((major, minor, patch))
}

/// The release under test.
pub fn current() -> Release {
    if let Ok(v) = std::env::var("SOLR_VERSION") {
        return parse(&v).unwrap_or_else(|| panic!("SOLR_VERSION={v:?} is not a release"));
    }
    let pom = solr_harness::local_solr::project_root().join("local-solr/launcher/pom.xml");
    let text = std::fs::read_to_string(&pom).unwrap_or_else(|e| panic!("{pom:?}: {e}"));
    let v = text
        .split("<solr.version>")
        .nth(1)
        .and_then(|rest| rest.split('<').next())
        .unwrap_or_else(|| panic!("{pom:?} names no solr.version"));
    parse(v).unwrap_or_else(|| panic!("{pom:?}: solr.version {v:?} is not a release"))
}

/// Asserts that a node's `solr-spec-version` is the release under test (so a compat run
/// cannot pass against another release than the one it names).
pub fn assert_runs(spec_version: &str) {
    assert_eq!(
        parse(spec_version),
        Some(current()),
        "the node runs Solr {spec_version}, the tests expect {:?} (SOLR_VERSION or the pom)",
        current()
    );
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn releases_parse_and_order() {
        assert_eq!(parse("9.4.1"), Some((9, 4, 1)));
        assert_eq!(parse("9.10"), Some((9, 10, 0)));
        assert_eq!(parse("9.x"), None);
        assert_eq!(parse("9.4.1.2"), None);
        assert!(parse("9.10.1") > parse("9.9.0"));
    }
}
