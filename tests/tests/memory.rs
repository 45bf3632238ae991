//! A decompression bomb costs at most the response limit plus a small
//! constant. The measurement runs in a child process (this test binary re-executed for one
//! test, with `E2E_BOMB_LIMIT` set) so that its peak resident size (`VmHWM`) is the bomb's
//! alone: the child resets the high-water mark (`/proc/self/clear_refs`), records `VmRSS`,
//! sends one select (after a small warm-up select) through the gzip decorator to a fault server whose 1 MiB body inflates
//! to 1 GiB, and prints `VmHWM - VmRSS`.

use std::process::Command;

use solr_client::{Error, Select, SolrClient, TransportKind, DEFAULT_MAX_RESPONSE_BYTES};

use crate::support::fault_server::{Fault, FaultServer, SELECT_OK};

const MIB: u64 = 1024 * 1024;
/// What the bomb inflates to.
const INFLATED: u64 = 1024 * MIB;
/// Allowed above the limit: the 1 MiB compressed body (the fault server's copy and the
/// transport's), the 64 KiB inflate step, page tables and allocator slack. Measured: 2.4 to
/// 2.6 MiB above a 16 or 64 MiB limit (1.1 MiB above a 1 MiB one).
const SLACK: u64 = 4 * MIB;

fn status_kib(field: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    s.lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("{field} in /proc/self/status"))
}

/// 1 MiB of spaces gzipped once, the member repeated: `INFLATED` bytes in about 1 MiB.
fn bomb() -> &'static [u8] {
    let member = solr_client::transport::gzip_bytes(&vec![b' '; MIB as usize]);
    let body: Vec<u8> = member.repeat((INFLATED / MIB) as usize);
    Box::leak(body.into_boxed_slice())
}

/// The child's part: one bomb, limit from the environment (`default` or bytes).
async fn child(limit: &str) {
    let srv = FaultServer::start(vec![Fault::Ok(SELECT_OK), Fault::Gzipped(bomb())]).await;
    let mut b = SolrClient::builder(srv.url())
        .collection("bench")
        .transport(TransportKind::Pooled)
        .gzip(true);
    let want = if limit == "default" {
        DEFAULT_MAX_RESPONSE_BYTES
    } else {
        let n: u64 = limit.parse().expect("limit in bytes");
        b = b.max_response_bytes(n);
        n
    };
    let c = b.build().expect("client");
    // A first, small request: the one-time costs of a process's first request (runtime
    // threads, allocator arenas, the pooled connection) are not the bomb's.
    c.select(&Select::new("*:*")).await.expect("warm-up select");
    // Reset VmHWM to the current RSS (Linux >= 4.0), then measure from here.
    std::fs::write("/proc/self/clear_refs", "5").expect("clear_refs");
    let before = status_kib("VmRSS:");
    let err = c
        .select(&Select::new("*:*"))
        .await
        .expect_err("the bomb is refused");
    assert!(
        matches!(err, Error::TooLarge { limit, .. } if limit == want),
        "{err:?}"
    );
    let peak = status_kib("VmHWM:");
    println!("BOMB_GROWTH_KIB={}", peak.saturating_sub(before));
}

/// Runs the child for `limit`, returns its peak growth in bytes.
fn measure(limit: &str) -> u64 {
    let exe = std::env::current_exe().expect("test binary");
    let out = Command::new(exe)
        .args([
            "--exact",
            "memory::gzip_bomb_peak_memory_stays_within_the_limit",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("E2E_BOMB_LIMIT", limit)
        .output()
        .expect("child runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child ({limit}) failed: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .find_map(|l| l.split("BOMB_GROWTH_KIB=").nth(1))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no measurement in the child's output: {text}"))
        * 1024
}

#[tokio::test]
async fn gzip_bomb_peak_memory_stays_within_the_limit() {
    if let Ok(limit) = std::env::var("E2E_BOMB_LIMIT") {
        return child(&limit).await;
    }
    assert_eq!(
        DEFAULT_MAX_RESPONSE_BYTES,
        64 * MIB,
        "the documented default"
    );
    for (limit, bytes) in [
        ("default", DEFAULT_MAX_RESPONSE_BYTES),
        ("16777216", 16 * MIB),
    ] {
        let growth = measure(limit);
        println!(
            "gzip bomb (1 MiB -> 1 GiB), limit {} MiB: peak +{:.1} MiB",
            bytes / MIB,
            growth as f64 / MIB as f64
        );
        assert!(
            growth <= bytes + SLACK,
            "limit {limit}: peak grew by {growth} bytes, over limit + {SLACK}"
        );
        assert!(
            growth >= bytes * 9 / 10,
            "limit {limit}: the child did inflate up to the limit ({growth} bytes)"
        );
    }
}
