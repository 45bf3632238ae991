//! Counts the prose states that a test can know (fault-table cases, hostile texts): the
//! test that knows the count checks the sentence that states it, so the text cannot go
//! stale silently. The prose is the root README and every page under `docs/` but
//! `docs/findings/` (dated records of what was measured then).

use std::path::Path;

/// The root README and the pages under `docs/` (but the findings), one after the other.
fn readme() -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut text = read(&root.join("README.md"));
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{dir:?}: {e}"));
        for path in entries.map(|e| e.expect("a directory entry").path()) {
            if path.is_dir() && !path.ends_with("findings") {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "md") {
                text.push('\n');
                text.push_str(&read(&path));
            }
        }
    }
    text
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"))
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

/// Asserts that the README and docs state `n` wherever they state `pattern`, and that it still
/// states it: a sentence that was reworded or removed fails here, so whoever removes the
/// number from the prose removes this check too.
pub fn assert_readme_states(pattern: &str, n: usize) {
    let found = stated(&readme(), pattern);
    assert!(
        !found.is_empty(),
        "README.md and docs/ no longer say `{pattern}` (with n = {n}): if the number left the prose, \
         remove this check; if the sentence was reworded, update the pattern"
    );
    for f in found {
        assert_eq!(
            f, n as u64,
            "README.md or docs/ say `{pattern}` with n = {f}; the test counts {n}"
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
