//! How an example says that Solr's answer is not the one it expects: `wrong answer: ...` on
//! stderr and exit status 1, so a run in CI fails on a wrong answer, not only on an error.
//! And how it says it could not run at all on this Solr: `not run: ...` on stdout and exit
//! status 3 ([`NOT_RUN`]), which scripts/examples.sh reports as not run, never as passed.

#![allow(dead_code)] // each example uses only some of these

use std::fmt::Debug;

/// Exits with status 1 unless `ok`, naming `what` was expected.
pub fn check(ok: bool, what: &str) {
    if !ok {
        wrong(format_args!("{what}"));
    }
}

/// Exits with status 1 unless `got == want`, naming both.
pub fn check_eq<T: PartialEq + Debug>(what: &str, got: T, want: T) {
    if got != want {
        wrong(format_args!("{what}: got {got:?}, expected {want:?}"));
    }
}

/// The exit status of an example that could not run on this Solr.
pub const NOT_RUN: i32 = 3;

/// Exits with status [`NOT_RUN`], saying why this Solr cannot serve the example.
pub fn not_run(why: &str) -> ! {
    println!("not run: {why}");
    std::process::exit(NOT_RUN)
}

fn wrong(msg: std::fmt::Arguments<'_>) -> ! {
    eprintln!("wrong answer: {msg}");
    std::process::exit(1)
}
