//! Counts the prose states that a test can know (fault-table cases, hostile texts): the
//! test that knows the count checks the sentence that states it, so the text cannot go
//! stale silently.

/// The README at the workspace root.
fn readme() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The numbers `text` states in `pattern` (one `{n}` in it, standing for the digits);
/// line breaks and runs of spaces in `text` count as one space.
fn stated(text: &str, pattern: &str) -> Vec<u64> {
    let (pre, post) = pattern.split_once("{n}").expect("a pattern with {n}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut found = Vec::new();
    for (at, _) in flat.match_indices(post) {
        let head = &flat[..at];
        let digits = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let before = &head[..head.len() - digits];
        if digits > 0 && before.ends_with(pre) {
            found.push(head[before.len()..].parse().expect("digits"));
        }
    }
    found
}

/// Asserts that the README states `n` wherever it states `pattern`, and that it still
/// states it: a sentence that was reworded or removed fails here, so whoever removes the
/// number from the prose removes this check too.
pub fn assert_readme_states(pattern: &str, n: usize) {
    let found = stated(&readme(), pattern);
    assert!(
        !found.is_empty(),
        "README.md no longer says `{pattern}` (with n = {n}): if the number left the prose, \
         remove this check; if the sentence was reworded, update the pattern"
    );
    for f in found {
        assert_eq!(
            f, n as u64,
            "README.md says `{pattern}` with n = {f}; the test counts {n}"
        );
    }
}

#[test]
fn stated_finds_the_number_across_line_breaks_and_only_in_the_pattern() {
    let text = "runs (`fault_table.rs`:\n 141 cases, and 7 cases elsewhere; 33 hostile\ntexts";
    assert_eq!(stated(text, "fault_table.rs`: {n} cases"), vec![141]);
    assert_eq!(stated(text, "{n} hostile texts"), vec![33]);
    assert_eq!(stated(text, "{n} fuzz targets"), Vec::<u64>::new());
}
