//! What `/metrics` says: the names of the contract, the labels, escaping, and processes
//! forgotten after their grace period.

use std::collections::BTreeSet;
use std::time::Duration;

use super::{exposed_series, lines, pids, proc, search};
use crate::serve::labels::{encoding, Who};
use crate::serve::metrics::{Metrics, RequestSample, SERIES_PER_PROCESS};

#[test]
fn a_comm_with_quotes_backslashes_and_newlines_is_escaped() {
    let mut m = Metrics::new("h");
    let who = Who {
        pid: Some(42),
        comm: Some("a\"b\\c\nd".into()),
        ..Who::default()
    };
    m.connection_opened(&who);
    let l = lines(&m);
    let want = r#"solr_watch_connections_opened_total{host="h",pid="42",comm="a\"b\\c\nd"} 1"#;
    assert!(l.iter().any(|x| x == want), "{l:#?}");
    assert_eq!(l.len(), 4, "HELP, TYPE, the one sample, EOF: {l:#?}");
    assert_eq!(l.last().map(String::as_str), Some("# EOF"));
}

#[test]
fn every_family_of_the_contract_is_exposed_with_its_labels() {
    let mut m = Metrics::new("h");
    let w = proc(7, "curl");
    let update = RequestSample {
        update: Some(("json", 120)),
        ..search(true)
    };
    m.connection_opened(&w);
    m.request(&w, &search(false));
    m.request(&w, &update);
    m.unreadable_connection(&w, "unknown");
    m.set_findings(&w, &BTreeSet::from(["no-reuse".to_string()]));
    let l = lines(&m);
    let base = r#"host="h",pid="7",comm="curl",cgroup="/user.slice""#;
    for want in [
        format!("solr_watch_requests_total{{{base}}} 2"),
        format!("solr_watch_connections_opened_total{{{base}}} 1"),
        format!("solr_watch_connections_reused_requests_total{{{base}}} 1"),
        format!("solr_watch_request_wall_seconds_count{{{base}}} 2"),
        format!("solr_watch_qtime_seconds_count{{{base}}} 2"),
        format!("solr_watch_outside_solr_seconds_count{{{base}}} 2"),
        format!("solr_watch_outside_solr_seconds_bucket{{le=\"0.008\",{base}}} 2"),
        format!("solr_watch_outside_solr_seconds_bucket{{le=\"0.004\",{base}}} 0"),
        format!("solr_watch_response_bytes_total{{{base},encoding=\"gzip\"}} 600"),
        format!("solr_watch_update_bytes_total{{{base},format=\"json\"}} 120"),
        format!("solr_watch_findings{{{base},finding=\"no-reuse\"}} 1"),
        format!("solr_watch_unreadable_connections_total{{{base},tls_library=\"unknown\"}} 1"),
    ] {
        assert!(l.contains(&want), "{want} in {l:#?}");
    }
    assert_eq!((m.series(), exposed_series(&l)), (10, 10));
    // The finding no longer holds: its series goes.
    m.set_findings(&w, &BTreeSet::new());
    let l = lines(&m);
    assert!(!l.iter().any(|x| x.starts_with("solr_watch_findings{")));
    assert_eq!((m.series(), exposed_series(&l)), (9, 9));
}

#[test]
fn exited_processes_leave_the_exposition_after_the_grace_period() {
    let mut m = Metrics::new("h");
    let grace = Duration::from_secs(300);
    for pid in 1000..1500 {
        m.connection_opened(&proc(pid, "curl"));
        m.request(&proc(pid, "curl"), &search(false));
    }
    m.request(&proc(1, "app"), &search(false));
    let alive = |pid: u32| pid < 1000;
    assert_eq!(pids(&lines(&m)).len(), 501);
    // Seen gone at 10 s: kept until 310 s.
    assert_eq!(
        m.sweep(Duration::from_secs(10), grace, alive),
        Vec::<u32>::new()
    );
    assert_eq!(
        m.sweep(Duration::from_secs(309), grace, alive),
        Vec::<u32>::new()
    );
    let l = lines(&m);
    assert_eq!(pids(&l).len(), 501);
    assert_eq!(exposed_series(&l), 500 * 6 + 5);
    let mut gone = m.sweep(Duration::from_secs(310), grace, alive);
    gone.sort_unstable();
    assert_eq!(gone, (1000..1500).collect::<Vec<u32>>());
    let l = lines(&m);
    assert_eq!(pids(&l), BTreeSet::from([1]));
    assert_eq!((m.series(), exposed_series(&l), m.processes()), (5, 5, 1));
}

#[test]
fn a_pid_taken_by_another_command_starts_new_series() {
    let mut m = Metrics::new("h");
    m.request(&proc(9, "curl"), &search(false));
    m.request(&proc(9, "python3"), &search(false));
    let l = lines(&m);
    assert!(!l.iter().any(|x| x.contains("comm=\"curl\"")), "{l:#?}");
    let want =
        r#"solr_watch_requests_total{host="h",pid="9",comm="python3",cgroup="/user.slice"} 1"#;
    assert!(l.iter().any(|x| x == want), "{l:#?}");
    assert_eq!(m.series(), 5);
}

#[test]
fn client_chosen_label_values_come_from_closed_sets() {
    assert_eq!(encoding(None), "identity");
    assert_eq!(encoding(Some(" GZIP")), "gzip");
    assert_eq!(encoding(Some("x-gzip")), "gzip");
    assert_eq!(encoding(Some("br")), "br");
    assert_eq!(encoding(Some("made-up-\"\n")), "other");
    let mut m = Metrics::new("h");
    let w = proc(3, "php-fpm");
    for enc in ["identity", "gzip", "br", "deflate", "zstd", "other"] {
        for format in ["json", "xml", "javabin", "cbor", "csv", "other"] {
            let r = RequestSample {
                encoding: enc,
                update: Some((format, 1)),
                ..search(true)
            };
            m.request(&w, &r);
        }
    }
    m.connection_opened(&w);
    m.unreadable_connection(&w, "unknown");
    assert_eq!(m.series(), 6 + 6 + 6 + 1);
    assert!(m.series() <= SERIES_PER_PROCESS);
}
