//! `transport-bench` end to end, in-process: a study of 20 searches per transport against
//! the real local Solr, its three witnesses, its JSON against the published schema, `compare`
//! of a run with itself, and `report` re-rendering from raw records; and the binary's
//! messages and exit codes, run as a child process ([`the_binary_says_what_is_so`]).

use std::path::PathBuf;

use clap::Parser;
use transport_bench::cli::{run, Cli};
use transport_bench::scenario::study::{compare, load_summary};

use crate::support;

/// The published schema of `summary.json`.
const SUMMARY_SCHEMA: &str = include_str!("../../transport-bench/schema/summary.schema.json");

fn study_args(url: &str, out: &std::path::Path, reps: &str) -> Cli {
    let transports = ["--reps", reps, "--transports", "fresh,pooled,http2"];
    support::searches_only_study(url, out, "20", &transports)
}

#[tokio::test]
async fn study_witnesses_schema_compare_report() {
    let s = support::standalone();
    let url = s.url(None).unwrap().to_string();
    let dir = std::env::temp_dir().join(support::tag("cli"));
    let one = dir.join("one");
    let two = dir.join("two");
    {
        let _g = support::exclusive().await;
        run(study_args(&url, &one, "1")).await.expect("study runs");
        run(study_args(&url, &two, "2"))
            .await
            .expect("study with 2 repetitions runs");
    }

    // Three witnesses agree exactly: fresh 20, pooled 1, http2 1.
    let r = load_summary(&one).expect("summary.json");
    for (name, expected) in [("fresh", 20), ("pooled", 1), ("http2", 1)] {
        let t = r
            .transports
            .iter()
            .find(|t| t.transport == name)
            .expect("transport in report");
        let w = &t.witnesses;
        assert_eq!(w.connector, expected, "{name}: connector");
        assert_eq!(w.kernel_active_opens, expected, "{name}: kernel");
        assert_eq!(
            w.pcap_syns,
            Some(expected),
            "{name}: pcap (run the tests as root)"
        );
        assert_eq!(w.pcap_dropped, Some(0), "{name}: capture drops");
        assert_eq!(w.counted, ["connector", "kernel", "pcap"], "{name}");
        assert_eq!(w.agree, Some(true), "{name}");
        assert_eq!(t.wall.n, 20);
        assert_eq!(t.errors, 0);
    }
    assert!(
        r.verdict
            .starts_with("verdict: 3 of 3 witnesses counted (connector, kernel, pcap) and agree; "),
        "{}",
        r.verdict
    );
    let report_txt = std::fs::read_to_string(one.join("report.txt")).expect("report.txt");
    assert_eq!(
        report_txt.lines().last(),
        Some(r.verdict.as_str()),
        "the report ends with the verdict"
    );
    for f in [
        "records.jsonl",
        "transports.csv",
        "phases-search.svg",
        "percentiles-search.svg",
        "connections-search.svg",
    ] {
        assert!(one.join(f).is_file(), "{f} written");
    }

    // The JSON validates against the published schema.
    for run_dir in [&one, &two] {
        support::assert_schema_valid(
            SUMMARY_SCHEMA,
            &support::read_json(&run_dir.join("summary.json")),
        );
    }

    // compare of a run with itself: every difference inside the noise margin.
    let b = load_summary(&two).expect("summary");
    let diffs = compare::compare(&b, &b);
    let judged: Vec<_> = diffs.iter().filter(|d| d.metric == "p50_ms").collect();
    assert_eq!(judged.len(), 3);
    assert!(
        judged
            .iter()
            .all(|d| d.significant == Some(false) && d.diff == 0.0),
        "{judged:?}"
    );

    // report re-renders the same figures from records.jsonl.
    let before = load_summary(&one).expect("summary");
    run(Cli::parse_from([
        "transport-bench",
        "report",
        one.to_str().unwrap(),
    ]))
    .await
    .expect("report runs");
    let after = load_summary(&one).expect("summary");
    for (x, y) in before.transports.iter().zip(after.transports.iter()) {
        assert_eq!(
            x.wall, y.wall,
            "{}: same percentiles from raw records",
            x.transport
        );
        assert_eq!(x.witnesses.connector, y.witnesses.connector);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `audit` on loopback with the idle-penalty probe: the same search on one kept-alive
/// connection back to back and after idle gaps, then the longest gap with a warmer on a
/// second connection. Asserted exactly: every search answered, no gap reopened the
/// measured connection (the penalty is not a reconnect), the figures in
/// `summary.json` (valid against the published schema) and in `report.txt` before the verdict.
#[tokio::test]
async fn audit_measures_the_idle_penalty_on_one_connection() {
    let s = support::standalone();
    let url = s.url(None).unwrap().to_string();
    let dir = std::env::temp_dir().join(support::tag("audit-idle"));
    {
        let _g = support::exclusive().await;
        run(Cli::parse_from([
            "transport-bench",
            "audit",
            "--url",
            &url,
            "--searches",
            "5",
            "--idle-gaps",
            "0,50,150",
            "--idle-searches",
            "6",
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ]))
        .await
        .expect("audit runs");
    }
    let r = load_summary(&dir).expect("summary.json");
    let idle = r.idle.as_ref().expect("the idle probe ran");
    assert_eq!(idle.transport, "pooled");
    assert_eq!(
        idle.gaps.iter().map(|g| g.gap_ms).collect::<Vec<_>>(),
        vec![0, 50, 150]
    );
    for g in &idle.gaps {
        assert_eq!((g.n, g.errors), (6, 0), "gap {} ms", g.gap_ms);
        assert_eq!(
            g.connections_opened, 0,
            "gap {} ms: the kept-alive connection served every search",
            g.gap_ms
        );
        assert!(g.wall_p50_ms.is_some() && g.server_wait_p50_ms.is_some());
        assert!(g.qtime_p50_ms.is_some(), "Solr reports QTime");
    }
    assert_eq!(idle.gaps[0].vs_back_to_back_pct, Some(0.0));
    // The longest gap again with the default warmer (every 20 ms, on its own connection).
    let warmed = idle.warmed.as_ref().expect("the warmer ran");
    assert_eq!(warmed.interval_ms, 20);
    assert_eq!(
        (warmed.gap.gap_ms, warmed.gap.n, warmed.gap.errors),
        (150, 6, 0)
    );
    assert_eq!(
        warmed.gap.connections_opened, 0,
        "the measured connection is still the first one"
    );
    assert!(warmed.warmer_requests > 0, "the warmer sent requests");
    assert!(warmed.vs_cold_pct.is_some());
    assert!(
        idle.finding.contains("after 150 ms idle")
            && idle.finding.contains("same connection")
            && idle.finding.contains("warmer request every 20 ms"),
        "{}",
        idle.finding
    );
    support::assert_schema_valid(
        SUMMARY_SCHEMA,
        &support::read_json(&dir.join("summary.json")),
    );
    let txt = std::fs::read_to_string(dir.join("report.txt")).expect("report.txt");
    assert!(txt.contains("Idle penalty (pooled"), "{txt}");
    assert!(txt.contains(&idle.finding), "{txt}");
    assert_eq!(txt.lines().last(), Some(r.verdict.as_str()), "verdict last");
    support::assert_rerenders(&dir, "study", &["report.txt"]);
    let again = load_summary(&dir).expect("summary.json after report");
    assert_eq!(again.idle, r.idle, "report keeps the idle probe");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A count of 0 (or a negative delay) is rejected by the parser with the range it
/// must be in, never clamped; `--rtt -5` reaches that check instead of clap's "unexpected
/// argument".
#[test]
fn out_of_range_options_are_rejected_with_the_range() {
    for (cmd, opt, value) in [
        ("audit", "--searches", "0"),
        ("audit", "--rtt", "-5"),
        ("study", "--concurrency", "0"),
        ("study", "--batch", "0"),
        ("study", "--reps", "0"),
        ("study", "--jitter", "-1"),
        ("sweep", "--searches", "0"),
        ("large-responses", "--requests", "0"),
        ("knn", "--concurrency", "1,0"),
    ] {
        let e = Cli::try_parse_from(["transport-bench", cmd, opt, value])
            .expect_err(&format!("{cmd} {opt} {value} is rejected"));
        assert_eq!(
            e.kind(),
            clap::error::ErrorKind::ValueValidation,
            "{cmd} {opt} {value}: {e}"
        );
        let text = e.to_string();
        assert!(
            text.contains(opt) && text.contains("out of range") && text.contains(" from "),
            "{cmd} {opt} {value}: {text}"
        );
    }
    // In range still parses.
    Cli::try_parse_from(["transport-bench", "audit", "--searches", "1", "--rtt", "0"])
        .expect("in range");
}

/// An audit (and a study) in which every request failed is an error whose first
/// line says so and why, not a report with exit 0; no run folder is written.
#[tokio::test]
async fn a_run_where_every_request_failed_is_an_error_with_the_reason_first() {
    // Refused connections still count as kernel active opens: keep out of counting tests.
    let _g = support::shared().await;
    let dir = std::env::temp_dir().join(support::tag("cli-refused"));
    for cmd in ["audit", "study"] {
        let out = dir.join(cmd);
        let mut args = vec![
            "transport-bench",
            cmd,
            "--url",
            "http://127.0.0.1:1/solr",
            "--searches",
            "2",
            "--no-pcap",
            "--quiet",
        ];
        args.extend(match cmd {
            "audit" => &["--no-idle"][..],
            _ => &[
                "--docs", "0", "--mixed", "0", "--warmup", "0", "--reps", "1",
            ][..],
        });
        let out_arg = out.display().to_string();
        args.extend(["--out", out_arg.as_str()]);
        let e = run(Cli::parse_from(&args))
            .await
            .expect_err(&format!("{cmd} against a refused port fails"));
        let text = format!("{e:#}");
        let first = text.lines().next().unwrap_or_default();
        assert!(first.starts_with("every request failed"), "{cmd}: {text}");
        // 4 transports x gzip off/on x 2 searches, all refused.
        assert!(first.contains("(16 of 16)"), "{cmd}: {first}");
        assert!(!out.exists(), "{cmd}: no report of a failed run");
    }
}

/// Set in the child process of [`the_binary_says_what_is_so`]: the arguments, as JSON.
const CHILD_ARGS: &str = "E2E_TRANSPORT_BENCH_ARGS";

/// Runs `transport-bench ARGS` as the binary does (`main.rs`: clap's parse, then
/// [`transport_bench::cli::exit_code`] and `process::exit`) in a child process, this test
/// binary again in [`the_binary_says_what_is_so`]: its exit code and stderr.
fn binary(args: &[&str]) -> (i32, String) {
    let out = binary_env(args, &[]);
    (out.code, out.stderr)
}

/// What a child run of the binary left: exit code, stdout, stderr.
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// [`binary`] with environment variables set (`Some`) or removed (`None`) for the child, and
/// its stdout: what the command printed after the test harness's `running 1 test` line
/// (`-q`: the harness prints nothing else before the child exits).
fn binary_env(args: &[&str], env: &[(&str, Option<&str>)]) -> Ran {
    let mut cmd = std::process::Command::new(std::env::current_exe().expect("test binary"));
    cmd.args([
        "--exact",
        "cli::the_binary_says_what_is_so",
        "--nocapture",
        "--test-threads=1",
        "-q",
    ])
    .env(CHILD_ARGS, serde_json::to_string(args).expect("json"));
    for (name, value) in env {
        match value {
            Some(v) => cmd.env(name, v),
            None => cmd.env_remove(name),
        };
    }
    let out = cmd.output().expect("child runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let (_, printed) = stdout
        .split_once("running 1 test\n")
        .unwrap_or_else(|| panic!("no test harness header in the child's stdout: {stdout}"));
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: printed.to_string(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A study of 5 searches through `transport` into `out`, extra options first; written with
/// the short flags (`-u`, `-t`, `-q`, `-o`), so the counts asserted on its report show they
/// mean what their long forms do.
async fn small_study(url: &str, transport: &str, extra: &[&str], out: &std::path::Path) {
    let mut args = vec!["transport-bench", "study", "-u", url];
    args.extend_from_slice(extra);
    let out = out.display().to_string();
    args.extend([
        "--docs",
        "0",
        "--mixed",
        "0",
        "--searches",
        "5",
        "--warmup",
        "0",
        "--reps",
        "1",
        "-t",
        transport,
        "--gzip",
        "off",
        "-q",
        "-o",
        &out,
    ]);
    run(Cli::parse_from(args)).await.expect("study runs");
}

/// Two studies under `dir` with no transport in common: `alone` (fresh) counted by the
/// connector alone (a URL the client cannot be isolated for, `--no-pcap`), asserted to say so
/// instead of claiming agreement; `counted` (pooled) with all three witnesses.
fn two_runs_with_nothing_in_common(dir: &std::path::Path) -> (PathBuf, PathBuf) {
    let url = support::standalone().url(None).expect("url").to_string();
    let (alone, counted) = (dir.join("alone"), dir.join("counted"));
    tokio::runtime::Runtime::new()
        .expect("runtime")
        .block_on(async {
            let _g = support::exclusive().await;
            // `localhost` is no IPv4 loopback address: the client cannot be isolated.
            let via_name = url.replace("127.0.0.1", "localhost");
            small_study(&via_name, "fresh", &["--no-pcap"], &alone).await;
            small_study(&url, "pooled", &[], &counted).await;
        });
    let r = load_summary(&alone).expect("summary.json");
    let w = &r.transports[0].witnesses;
    assert_eq!(
        (w.connector, w.counted.as_slice(), w.agree),
        (5, &["connector".to_string()][..], None)
    );
    assert!(
        r.verdict.starts_with(
            "verdict: 1 of 3 witnesses: connector only (kernel: not isolated, pcap: no capture): \
             no agreement checked; "
        ),
        "{}",
        r.verdict
    );
    assert!(!r.verdict.contains("agree;"), "{}", r.verdict);
    (alone, counted)
}

/// What the binary prints says what is so, with the exit code to match: a missing capture
/// file is one line with the OS error once; a `--url` with credentials is refused with where
/// they go instead (`SOLR_BASIC_AUTH`), never echoing them; `compare` of two runs with no
/// transport in common is an error naming both sides. The first of those two runs counted
/// with the connector alone (a URL the client cannot be isolated for, `--no-pcap`), and its
/// verdict says so instead of claiming agreement.
#[test]
fn the_binary_says_what_is_so() {
    if let Ok(args) = std::env::var(CHILD_ARGS) {
        let args: Vec<String> = serde_json::from_str(&args).expect("arguments");
        let cli = Cli::parse_from(std::iter::once("transport-bench".to_string()).chain(args));
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        std::process::exit(rt.block_on(transport_bench::cli::exit_code(cli)));
    }
    let dir = std::env::temp_dir().join(support::tag("cli-binary"));
    let missing = dir.join("missing.pcapng");
    let (code, err) = binary(&["watch", "--read", missing.to_str().expect("utf-8")]);
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            format!(
                "transport-bench: error: cannot read capture {}: No such file or directory (os error 2)\n",
                missing.display()
            )
            .as_str()
        )
    );

    let (code, err) = binary(&[
        "audit",
        "--url",
        "http://auditor:s3cret-pw@127.0.0.1:1/solr",
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.lines().next(),
        Some(
            "error: --url: user info (user:password@) is refused: the URL is written into the \
             run's reports; give the URL without it and the credentials in the environment, \
             SOLR_BASIC_AUTH=user:password"
        ),
        "{err}"
    );
    assert!(
        !err.contains("s3cret-pw") && !err.contains("auditor"),
        "{err}"
    );

    // --fail-on: the run is saved and printed, then a finding at the severity or above is
    // exit code 3, the findings named first; below it, 0.
    let capture = |name: &str| format!("{}/../captures/{name}.pcapng", env!("CARGO_MANIFEST_DIR"));
    let out = dir.join("fail-on").display().to_string();
    let fresh = capture("search-fresh");
    let (code, err) = binary(&["watch", "--read", &fresh, "-o", &out, "--fail-on", "high"]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("transport-bench: --fail-on high: 1 finding(s) at that severity or above: high no-reuse\n"),
        "{err}"
    );
    assert!(
        dir.join("fail-on").join("watch.json").is_file(),
        "saved before the exit"
    );
    let pooled = capture("search-pooled");
    let (code, err) = binary(&["watch", "--read", &pooled, "-o", &out, "--fail-on", "high"]);
    assert_eq!(code, 0, "{err}");
    let (code, err) = binary(&[
        "watch",
        "--read",
        &pooled,
        "-o",
        &out,
        "--fail-on",
        "medium",
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("medium no-gzip"), "{err}");

    let (code, err) = binary(&["completions", "tcsh"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.starts_with("error: invalid value 'tcsh' for '<SHELL>'")
            && err.contains("bash, elvish, fish, powershell, zsh"),
        "{err}"
    );

    let (alone, counted) = two_runs_with_nothing_in_common(&dir);
    let (a, b) = (alone.display().to_string(), counted.display().to_string());
    let (code, err) = binary(&["compare", &a, &b]);
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            format!(
                "transport-bench: error: {a} and {b}: nothing to compare: no workload and \
                 transport in common (baseline: search fresh; contender: search pooled)\n"
            )
            .as_str()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The runs of an audit: every transport, without and with gzip.
const AUDIT_RUNS: usize = solr_client::TransportKind::ALL.len() * 2;

/// `audit` of `url` (when given): 3 searches per transport, no idle probe, no capture, into
/// `out`, `extra` options last.
fn audit_line<'a>(url: Option<&'a str>, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["audit"];
    if let Some(url) = url {
        args.extend(["--url", url]);
    }
    args.extend([
        "--searches",
        "3",
        "--no-idle",
        "--no-pcap",
        "--quiet",
        "-o",
        out,
    ]);
    args.extend_from_slice(extra);
    args
}

/// `--json` on stdout, parsed: it must be one JSON document and nothing else.
fn json_out(ran: &Ran) -> serde_json::Value {
    serde_json::from_str(&ran.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}): {}\nstderr: {}",
            ran.stdout, ran.stderr
        )
    })
}

/// `--json` prints on stdout the report the run saved, and nothing else (the text goes to
/// stderr): an audit, a `baseline` run, `report RUN` and `compare`; `--fail-on` judges the
/// audit's findings (the same severities as watch's): the fresh transport's connection per
/// request is an `info no-reuse` finding by design, so `--fail-on info` is exit code 3, the
/// report saved first, and `--fail-on medium` is 0.
#[test]
fn json_prints_the_saved_report_and_fail_on_judges_the_audit() {
    let url = support::standalone().url(None).expect("url").to_string();
    let dir = std::env::temp_dir().join(support::tag("cli-json"));
    let at = |name: &str| dir.join(name).display().to_string();
    let _g = support::exclusive_blocking();

    let audit = at("audit");
    let ran = binary_env(
        &audit_line(Some(&url), &audit, &["--json", "--fail-on", "medium"]),
        &[],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let printed = json_out(&ran);
    assert_eq!(
        printed,
        support::read_json(&dir.join("audit").join("summary.json"))
    );
    let transports = printed["transports"].as_array().expect("transports");
    assert_eq!(transports.len(), AUDIT_RUNS);
    for t in transports {
        assert_eq!(
            (&t["wall"]["n"], &t["errors"], &t["witnesses"]["requests"]),
            (&3.into(), &0.into(), &3.into()),
            "{}",
            t["transport"]
        );
    }
    let findings = printed["findings"].as_array().expect("findings");
    assert_eq!(
        findings.len(),
        AUDIT_RUNS,
        "one per transport: {findings:?}"
    );
    let fresh: Vec<&serde_json::Value> = findings
        .iter()
        .filter(|f| {
            f["what"]
                .as_str()
                .is_some_and(|w| w.starts_with("search fresh"))
        })
        .collect();
    assert_eq!(fresh.len(), 2, "fresh without and with gzip: {findings:?}");
    for f in &fresh {
        assert_eq!(
            (&f["severity"], &f["kind"]),
            (&"info".into(), &"no-reuse".into())
        );
        assert!(
            f["what"]
                .as_str()
                .unwrap_or_default()
                .contains(": NO connection reuse: 3 requests, 3 connections;"),
            "{f}"
        );
    }
    assert!(
        ran.stderr
            .contains(&format!("Audit of {url}: 3 searches per transport\n"))
            && ran.stderr.contains(
                "\n  info   search fresh: NO connection reuse: 3 requests, 3 connections;"
            ),
        "the text goes to stderr: {}",
        ran.stderr
    );

    let failing = at("audit-fail");
    let ran = binary_env(
        &audit_line(Some(&url), &failing, &["--fail-on", "info"]),
        &[],
    );
    assert_eq!(ran.code, 3, "{}", ran.stderr);
    assert!(
        ran.stderr.contains(&format!(
            "transport-bench: --fail-on info: {AUDIT_RUNS} finding(s) at that severity or above: info no-reuse, "
        )),
        "{}",
        ran.stderr
    );
    assert!(
        dir.join("audit-fail").join("summary.json").is_file(),
        "saved before the exit"
    );
    assert!(
        ran.stdout.starts_with(&format!("Audit of {url}: ")),
        "{}",
        ran.stdout
    );

    json_of_baseline_report_and_compare(&url, &dir, &audit);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The rest of [`json_prints_the_saved_report_and_fail_on_judges_the_audit`]: a `baseline`
/// run of 2 rows x 1 round x 4 searches, `report RUN` of the audit saved at `audit`, and
/// `compare` of that audit with itself.
fn json_of_baseline_report_and_compare(url: &str, dir: &std::path::Path, audit: &str) {
    let out = dir.join("baseline");
    let o = out.display().to_string();
    let ran = binary_env(
        &[
            "baseline",
            "--url",
            url,
            "--docs",
            "0",
            "--queries",
            "4",
            "--rounds",
            "1",
            "--warmup",
            "0",
            "--rows",
            "raw-hyper,pooled",
            "--quiet",
            "--json",
            "-o",
            &o,
        ],
        &[],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let printed = json_out(&ran);
    assert_eq!(printed, support::read_json(&out.join("summary.json")));
    let rows = printed["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 2);
    for r in rows {
        assert_eq!(r["latency"]["n"], 4, "{}", r["row"]);
    }
    assert_eq!(printed["per_round"].as_array().map(Vec::len), Some(2));

    let ran = binary_env(&["report", audit, "--json"], &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let summary = std::path::Path::new(audit).join("summary.json");
    assert_eq!(json_out(&ran), support::read_json(&summary));
    assert!(
        ran.stderr.contains("Solr: "),
        "the text on stderr: {}",
        ran.stderr
    );

    let ran = binary_env(&["compare", audit, audit, "--json"], &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let diffs = json_out(&ran);
    let p50: Vec<&serde_json::Value> = diffs
        .as_array()
        .expect("a list of differences")
        .iter()
        .filter(|d| d["metric"] == "p50_ms")
        .collect();
    assert_eq!(p50.len(), AUDIT_RUNS);
    assert!(p50.iter().all(|d| d["diff"] == 0.0), "{p50:?}");
}

/// The notice that a run without any URL starts the project's local Solr (instance `audit`).
const NOTICE: &str = "transport-bench: no --url and no SOLR_URL: starting the project's local \
     Solr (instance audit); give --url or set SOLR_URL to measure your own Solr, or --local to \
     start it without this notice";

/// A local Solr is started only with `--local` (no notice, even with `SOLR_URL` set) or when
/// no URL is configured at all (the notice, exactly once); with `--url` or `SOLR_URL` the run
/// measures that Solr and starts nothing: the local instance's `nodes.tsv` (rewritten, with
/// the JVM's pid, by every start) is left as it was.
#[test]
fn a_local_solr_is_started_only_with_local_or_without_any_url() {
    let url = support::standalone().url(None).expect("url").to_string();
    let dir = std::env::temp_dir().join(support::tag("cli-local"));
    let nodes = solr_harness::project_root().join("local-solr/run/audit/nodes.tsv");
    let started = || {
        let text = std::fs::read_to_string(&nodes).ok();
        let at = std::fs::metadata(&nodes).and_then(|m| m.modified()).ok();
        (text, at)
    };
    let measured = |out: &str| {
        let r = support::read_json(&std::path::Path::new(out).join("summary.json"));
        r["url"].as_str().expect("url").to_string()
    };
    let _g = support::exclusive_blocking();
    let before = started();
    let given = dir.join("given").display().to_string();
    let from_env = dir.join("env").display().to_string();
    for (line, env) in [
        (audit_line(Some(&url), &given, &[]), None),
        (audit_line(None, &from_env, &[]), Some(url.as_str())),
    ] {
        let ran = binary_env(&line, &[("SOLR_URL", env)]);
        assert_eq!(ran.code, 0, "{}", ran.stderr);
        assert!(!ran.stderr.contains("local Solr"), "{}", ran.stderr);
    }
    assert_eq!(
        (measured(&given), measured(&from_env)),
        (url.clone(), url.clone())
    );
    assert_eq!(started(), before, "no local Solr was started");

    let none = dir.join("none").display().to_string();
    let ran = binary_env(&audit_line(None, &none, &[]), &[("SOLR_URL", None)]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let notices = ran
        .stderr
        .lines()
        .filter(|l| l.contains("local Solr"))
        .count();
    assert_eq!(notices, 1, "{}", ran.stderr);
    assert!(ran.stderr.lines().any(|l| l == NOTICE), "{}", ran.stderr);
    let after_notice = started();
    assert_ne!(after_notice, before, "the local instance was started");
    let in_nodes = |state: &(Option<String>, _), url: &str| {
        state.0.as_deref().is_some_and(|t| t.contains(url))
    };
    assert!(
        in_nodes(&after_notice, &measured(&none)) && measured(&none) != url,
        "the run measured the local instance it started: {after_notice:?}"
    );

    let local = dir.join("local").display().to_string();
    let ran = binary_env(
        &audit_line(None, &local, &["--local"]),
        &[("SOLR_URL", Some(&url))],
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        !ran.stderr.contains("local Solr"),
        "no notice: {}",
        ran.stderr
    );
    let after_local = started();
    assert_ne!(after_local, after_notice, "started again");
    assert!(
        in_nodes(&after_local, &measured(&local)) && measured(&local) != url,
        "the run measured the local instance it started: {after_local:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `completions bash` is a script naming every subcommand; `man` is roff: after the quote
/// macro every clap_mangen page opens with, the `.TH` header, then a section per subcommand.
#[test]
fn completions_and_man_are_printed() {
    let ran = binary_env(&["completions", "bash"], &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stdout.starts_with("_transport__bench() {"),
        "{}",
        ran.stdout
    );
    let names = [
        "study",
        "audit",
        "watch",
        "report",
        "compare",
        "knn",
        "completions",
        "man",
    ];
    for name in names {
        assert!(
            ran.stdout.contains(&format!("transport__bench,{name})")),
            "{name} missing from the bash script"
        );
    }
    let ran = binary_env(&["man"], &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    let lines: Vec<&str> = ran.stdout.lines().take(3).collect();
    assert_eq!(lines.len(), 3, "{}", ran.stdout);
    assert!(
        lines[0].starts_with(".ie ")
            && lines[1].starts_with(".el ")
            && lines[2].starts_with(".TH transport-bench 1 "),
        "{lines:?}"
    );
    for name in names {
        let section = format!("\n.SH \"TRANSPORT-BENCH-{}\"\n", name.to_uppercase());
        assert!(
            ran.stdout.contains(&section),
            "{section} missing from the man page"
        );
    }
}

/// `watch --read` of a saved capture ends as every scenario's run does: a run folder whose
/// `run.json` names the kind `watch`, the requests of the capture in `requests.csv` (20 on
/// 20 fresh connections), `index.html` naming the verdict, and `report RUN` printing the
/// same text as the run did.
#[test]
fn a_watch_run_is_a_run_folder_that_report_prints_again() {
    let dir = std::env::temp_dir().join(support::tag("cli-watch-run"));
    let run = dir.join("watch");
    let out = run.display().to_string();
    let capture = format!(
        "{}/../captures/search-fresh.pcapng",
        env!("CARGO_MANIFEST_DIR")
    );
    let ran = binary_env(&["watch", "--read", &capture, "-o", &out, "-q"], &[]);
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    assert!(
        ran.stderr.lines().any(|l| l == format!("saved: {out}")),
        "{}",
        ran.stderr
    );
    let report = support::read_json(&run.join("watch.json"));
    assert_eq!(report["requests"]["requests"], 20, "{report}");
    assert_eq!(report["connections"]["opened"], 20, "{report}");
    let csv = std::fs::read_to_string(run.join("requests.csv")).expect("requests.csv");
    assert_eq!(
        csv.lines().count(),
        1 + 20,
        "a header and one row per request"
    );
    let manifest = support::read_json(&run.join("run.json"));
    assert_eq!(
        (manifest["kind"].as_str(), manifest["report"].as_str()),
        (Some("watch"), Some("watch.json"))
    );
    let verdict = report["verdict"].as_str().expect("verdict");
    assert_eq!(ran.stdout.lines().last(), Some(verdict), "{}", ran.stdout);
    let page = std::fs::read_to_string(run.join("index.html")).expect("index.html");
    let named = format!(
        "<p id=\"verdict\">{}</p>",
        bench_report::chart::esc(verdict)
    );
    assert!(page.contains(&named), "{named} not in the page");

    let again = binary_env(&["report", &out], &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_eq!(again.stdout, ran.stdout, "report RUN prints the run's text");
    assert!(
        again
            .stderr
            .contains(&format!("re-rendered (watch): {out}")),
        "{}",
        again.stderr
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scenario that fails after it started the local Solr still stops it: `bulk-files` with an
/// update-file folder it cannot create fails once the local instance `bulk` is up, and the
/// instance is down after the error; with `--keep-solr` the same failure leaves it up.
#[test]
fn a_run_that_fails_midway_stops_the_local_solr_unless_kept() {
    let dir = std::env::temp_dir().join(support::tag("cli-stop"));
    let out = dir.join("out").display().to_string();
    let line = |keep: bool| {
        let mut args = vec![
            "bulk-files",
            "--local",
            "--files",
            "1",
            "--docs-per-file",
            "1",
            "--warmup-files",
            "0",
            "--reps",
            "1",
            "--dir",
            "/proc/no-such-folder/files",
            "-q",
            "-o",
            &out,
        ];
        if keep {
            args.push("--keep-solr");
        }
        args
    };
    let status = || {
        let out = std::process::Command::new("bash")
            .arg(solr_harness::project_root().join("local-solr/solr.sh"))
            .args(["status", "bulk"])
            .output()
            .expect("solr.sh status runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let up = |s: &str| s.lines().filter(|l| l.contains(" up ")).count();
    let _g = support::exclusive_blocking();
    for keep in [false, true] {
        let ran = binary_env(&line(keep), &[("SOLR_URL", None)]);
        assert_eq!(ran.code, 1, "{}", ran.stderr);
        assert!(
            ran.stderr.contains("/proc/no-such-folder/files"),
            "the reason names the folder: {}",
            ran.stderr
        );
        let s = status();
        assert!(s.starts_with("instance bulk "), "it was started: {s}");
        assert_eq!(up(&s), usize::from(keep), "keep {keep}: {s}");
    }
    solr_harness::Harness::new()
        .expect("harness")
        .stop("bulk")
        .expect("stops the kept instance");
    assert_eq!(up(&status()), 0);
    assert!(
        !dir.join("out").join("summary.json").exists(),
        "a failed run saves no report"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
