//! A check a test cannot make here is recorded, never silently dropped: one line in the
//! skip ledger (`SKIP_LEDGER`, created by `scripts/test.sh`; format in `scripts/skips.sh`)
//! and a `SKIPPED` line on stderr. The ledger's lines end the CI run's output.

use std::io::Write;

/// Whether `scripts/setup.sh` installs what the skipped check needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installable {
    /// The set-up installs it: the skip means the set-up did not do its job (with `CI=true`
    /// the run fails).
    BySetup,
    /// Nothing this machine can reach provides it.
    NotHere,
}

/// Records that `what` was not checked, because `why`.
pub fn record(what: &str, why: &str, installable: Installable) {
    let flat = |s: &str| s.replace(['\t', '\n'], " ");
    eprintln!("SKIPPED: {what}: {why}");
    let Some(path) = std::env::var_os("SKIP_LEDGER") else {
        return;
    };
    let yes = if installable == Installable::BySetup {
        "yes"
    } else {
        "no"
    };
    let line = format!("{}\t{}\t{yes}\n", flat(what), flat(why));
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(&path)
        .and_then(|mut f| f.write_all(line.as_bytes()))
        .unwrap_or_else(|e| panic!("cannot append to the skip ledger {path:?}: {e}"));
}
