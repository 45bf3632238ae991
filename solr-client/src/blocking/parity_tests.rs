//! Blocking parity, checked from the sources: every `pub async fn` of the crate has a
//! blocking twin of the same name on the blocking type of the same name, or is on the short
//! list of exceptions below with its reason. A new async call without a twin fails here.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Async calls with no blocking twin of the same name, and why.
const EXCEPTIONS: &[(&str, &str, &str)] = &[
    (
        "Indexer",
        "index_stream",
        "a Stream is async by nature; the blocking twin takes an iterator (index_iter)",
    ),
    (
        "Routing",
        "refresh",
        "the router's own upkeep, also run by every call through it",
    ),
    (
        "Routing",
        "probe",
        "the router's own upkeep, run in the background",
    ),
    (
        "StreamingResponse",
        "into_buffered",
        "a transport-level body; the blocking client returns whole responses",
    ),
    (
        "Reply",
        "into_whole",
        "a transport-level reply; the blocking client returns whole responses",
    ),
    (
        "Reply",
        "body_bytes",
        "a transport-level reply, read by the layers that look into a body",
    ),
    (
        "WireRequest",
        "sign",
        "called by a transport right before it writes the request",
    ),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("src readable").flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The type an inherent `impl` line is for (`impl<'a> Collections<'a> {` gives
/// `Collections`); None for trait impls and other lines.
fn impl_target(line: &str) -> Option<String> {
    let rest = line.strip_prefix("impl")?;
    if line.contains(" for ") || !line.trim_end().ends_with('{') {
        return None;
    }
    let rest = match rest.strip_prefix('<') {
        Some(r) => r.split_once('>')?.1,
        None => rest,
    };
    let name: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The name of the function a line declares after `prefix` (`pub async fn `).
fn fn_name<'a>(line: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = line.trim_start().strip_prefix(prefix)?;
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    Some(&rest[..end])
}

/// The blocking type a `blocking_handle!` line declares: `    Cores => Cores, "cores";`.
fn handle_line(line: &str) -> Option<&str> {
    let (name, rest) = line.trim().split_once(" => ")?;
    let named = !name.is_empty() && name.chars().all(char::is_alphanumeric);
    (named && rest.ends_with("\";") && rest.contains(", \"")).then_some(name)
}

/// (type, call) of each line declaring `prefix` under an inherent impl, outside tests.
fn calls(text: &str, prefix: &str) -> BTreeSet<(String, String)> {
    let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
    let mut current = None;
    let mut out = BTreeSet::new();
    for line in code.lines() {
        if line.starts_with("impl") {
            current = impl_target(line);
        } else if line.starts_with('}') {
            current = None;
        }
        // The blocking admin handles are declared by a macro: `Name => AsyncName, "label";`
        // names the type, and `fn call(...)` lines its calls.
        if let Some(name) = handle_line(line) {
            current = Some(name.to_string());
        }
        let found = fn_name(line, prefix).or_else(|| {
            fn_name(line, "fn ").filter(|_| {
                prefix == "pub fn " && line.starts_with("    fn ") && line.ends_with(';')
            })
        });
        if let (Some(ty), Some(name)) = (&current, found) {
            out.insert((ty.clone(), name.to_string()));
        }
    }
    out
}

#[test]
fn every_async_call_has_a_blocking_twin() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let (mut asyncs, mut twins) = (BTreeSet::new(), BTreeSet::new());
    for f in &files {
        let text = std::fs::read_to_string(f).expect("readable");
        let name = f.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with("_tests.rs") {
            continue;
        }
        if f.components().any(|c| c.as_os_str() == "blocking") {
            twins.extend(calls(&text, "pub fn "));
        } else {
            asyncs.extend(calls(&text, "pub async fn "));
        }
    }
    assert!(
        asyncs.len() > 40,
        "the scan found {} async calls",
        asyncs.len()
    );
    assert!(
        twins.contains(&("Collections".into(), "create".into())),
        "the scan reads the admin handles' macro: {twins:?}"
    );
    let missing: Vec<_> = asyncs
        .iter()
        .filter(|(ty, call)| !twins.contains(&(ty.clone(), call.clone())))
        .filter(|(ty, call)| !EXCEPTIONS.iter().any(|(t, c, _)| t == ty && c == call))
        .collect();
    assert!(
        missing.is_empty(),
        "async calls without a blocking twin: {missing:?}"
    );
    for (ty, call, _) in EXCEPTIONS {
        assert!(
            asyncs.contains(&(ty.to_string(), call.to_string())),
            "exception {ty}::{call} names no async call: remove it"
        );
    }
}

#[test]
fn the_scan_reads_impl_lines_and_calls() {
    assert_eq!(
        impl_target("impl<'a> Collections<'a> {"),
        Some("Collections".into())
    );
    assert_eq!(impl_target("impl SolrClient {"), Some("SolrClient".into()));
    assert_eq!(
        impl_target("impl<T: Transport> Decorator for Retry<T> {"),
        None
    );
    assert_eq!(handle_line("    Cores => Cores, \"cores\";"), Some("Cores"));
    assert_eq!(handle_line("            None => {"), None);
    let text = "impl Foo {\n    pub async fn bar(&self) {}\n    pub fn sync(&self) {}\n}\n\
                impl X for Foo {\n    pub async fn hidden(&self) {}\n}\n";
    let found = calls(text, "pub async fn ");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found.contains(&("Foo".into(), "bar".into())));
}
