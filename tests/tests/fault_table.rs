//! The fault table: every misbehaviour of the fault server as a row, run as
//! case x transport x operation x wrapper, each combination against its own server(s), all
//! at once (the counts are per server, so the cases cannot disturb each other). The HTTP/1.1
//! transports play against the fault server, `http2` against its h2c twin
//! ([`H2FaultServer`]), which plays the same scripts where a row names `http2`.
//!
//! A row says what the server(s) do ([`Fault`] scripts), which wrapper is put over the
//! transport (none, [`Retry`], [`Routing`] over one or more servers), which operations and
//! transports it applies to, and what must come out:
//! - the outcome class ([`Expect`]: `Ok` or a typed [`Error`]; for an update, the error is
//!   unwrapped from [`Error::Update`] after checking that every document of the batch is
//!   accounted for, see [`check_update_accounting`]);
//! - the requests each server saw, exactly;
//! - the elapsed time, within bounds derived from the configured timeouts only.
//!
//! To add a case, add a row to [`rows`] (and, for a new kind of fault, a [`Fault`] variant
//! to the fault server). Timeouts are short (read-idle 500 ms) so the whole table runs in a
//! few seconds.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::json;
use solr_client::transport::{ReadPreference, Retry, RetryPolicy, Routing};
use solr_client::{
    Error, Select, SolrClient, TimeoutPhase, Timeouts, TlsOptions, Transport, TransportKind,
};

use crate::support::fault_server::{Fault, FaultServer, SELECT_OK};
use crate::support::h2_fault::{H2Fault, H2FaultServer};
use crate::support::{self};

/// Where the redirect rows point: a port nobody listens on (the client must never go there).
const REDIRECT_TO: &str = "http://127.0.0.1:9/solr/bench/select";

/// No case may take longer than this to surface.
const LIMIT: Duration = Duration::from_secs(30);

/// The HTTP/1.1 transports the fault server speaks.
const H1: &[TransportKind] = &[
    TransportKind::Fresh,
    TransportKind::Pooled,
    TransportKind::Reqwest,
];

/// Every transport: the HTTP/1.1 ones and `http2` (h2c).
const ALL: &[TransportKind] = &[
    TransportKind::Fresh,
    TransportKind::Pooled,
    TransportKind::Reqwest,
    TransportKind::Http2,
];

/// The transports whose idle clock sees the bytes of the response head: all but reqwest,
/// which starts its read timer at send and exposes no byte before the head is complete.
const HEAD_BYTES: &[TransportKind] = &[
    TransportKind::Fresh,
    TransportKind::Pooled,
    TransportKind::Http2,
];

/// Read-idle of most rows.
const IDLE: Duration = Duration::from_millis(500);

/// Cases run at once.
const CONCURRENCY: usize = 12;

/// Gap between two trickled bytes.
const EVERY: Duration = Duration::from_millis(10);

/// The timeouts of most rows: read-idle short, connect and request long.
const T: Timeouts = Timeouts::DEFAULT
    .connect(Duration::from_secs(5))
    .read_idle(IDLE)
    .request(Duration::from_secs(10));

/// The operation under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// `select` (a read).
    Select,
    /// `add` of a two-document batch (a write).
    Update,
}

const BOTH: &[Op] = &[Op::Select, Op::Update];
const SELECT: &[Op] = &[Op::Select];

/// What is put over the transport.
#[derive(Clone, Copy)]
enum Wrap {
    /// The transport alone, on `servers[0]`.
    None,
    /// [`Retry`] with this policy, on `servers[0]`.
    Retry(RetryPolicy),
    /// [`Routing`]: `servers[0]` is the leader, the others replicas (reads go to replicas
    /// first, in the routing policy's order), with this retry policy.
    Routing(RetryPolicy),
}

impl std::fmt::Debug for Wrap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Wrap::None => "bare",
            Wrap::Retry(_) => "retry",
            Wrap::Routing(_) => "routing",
        })
    }
}

/// The outcome class a row expects.
#[derive(Clone, Copy)]
enum Expect {
    /// Success.
    Ok,
    /// [`Error::Timeout`] of this phase, naming the configured value of that phase.
    Timeout(TimeoutPhase),
    /// [`Error::Io`] with this `not_sent`.
    Io { not_sent: bool },
    /// An error carrying this HTTP status ([`Error::status`]) that is not `RetriesExhausted`.
    Status(u16),
    /// [`Error::RetriesExhausted`] with this status and attempt count.
    Exhausted { status: u16, attempts: u32 },
    /// Any other error class, by name and predicate.
    Is(&'static str, fn(&Error) -> bool),
}

impl std::fmt::Debug for Expect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Expect::Ok => f.write_str("Ok"),
            Expect::Timeout(p) => write!(f, "Timeout({p})"),
            Expect::Io { not_sent } => write!(f, "Io {{ not_sent: {not_sent} }}"),
            Expect::Status(s) => write!(f, "Status({s})"),
            Expect::Exhausted { status, attempts } => {
                write!(f, "RetriesExhausted({status}, {attempts} attempts)")
            }
            Expect::Is(name, _) => f.write_str(name),
        }
    }
}

/// Requests each server must have seen.
#[derive(Debug, Clone, Copy)]
enum Seen {
    /// Server by server, in the order of `servers`.
    Each(&'static [usize]),
    /// Over all servers (when the routing policy picks which one).
    Total(usize),
}

/// One row of the table.
struct Row {
    name: &'static str,
    /// One script per server.
    servers: Vec<Vec<Fault>>,
    wrap: Wrap,
    ops: &'static [Op],
    transports: &'static [TransportKind],
    timeouts: Timeouts,
    expect: Expect,
    seen: Seen,
    /// Elapsed bounds, derived from the configured values of the row.
    min: Duration,
    max: Duration,
}

impl Row {
    fn new(name: &'static str, script: Vec<Fault>, expect: Expect, seen: usize) -> Row {
        Row {
            name,
            servers: vec![script],
            wrap: Wrap::None,
            ops: BOTH,
            transports: H1,
            timeouts: T,
            expect,
            seen: Seen::Each(match seen {
                0 => &[0],
                1 => &[1],
                2 => &[2],
                _ => &[3],
            }),
            min: Duration::ZERO,
            max: LIMIT,
        }
    }
    fn ops(mut self, ops: &'static [Op]) -> Row {
        self.ops = ops;
        self
    }
    fn transports(mut self, t: &'static [TransportKind]) -> Row {
        self.transports = t;
        self
    }
    fn wrap(mut self, w: Wrap) -> Row {
        self.wrap = w;
        self
    }
    fn timeouts(mut self, t: Timeouts) -> Row {
        self.timeouts = t;
        self
    }
    fn servers(mut self, s: Vec<Vec<Fault>>, seen: Seen) -> Row {
        self.servers = s;
        self.seen = seen;
        self
    }
    /// Elapsed within `[min, max]`.
    fn elapsed(mut self, min: Duration, max: Duration) -> Row {
        self.min = min;
        self.max = max;
        self
    }
}

/// A retry policy with short backoffs.
fn quick(max_attempts: u32) -> RetryPolicy {
    RetryPolicy::default()
        .max_attempts(max_attempts)
        .base_backoff(Duration::from_millis(20))
        .max_backoff(Duration::from_millis(50))
        .max_wait(Duration::from_secs(5))
}

fn trickle(head: bool, stall_after: Option<usize>) -> Fault {
    Fault::Trickle {
        body: SELECT_OK,
        every: EVERY,
        head,
        stall_after,
    }
}

/// A response trickled a byte every [`SLOW`]: ~2.7 s for the body alone, never idle for long.
fn slow_trickle(head: bool) -> Fault {
    Fault::Trickle {
        body: SELECT_OK,
        every: SLOW,
        head,
        stall_after: None,
    }
}

/// Gap between two bytes of [`slow_trickle`].
const SLOW: Duration = Duration::from_millis(30);

/// The table.
fn rows() -> Vec<Row> {
    let idle_min = IDLE.mul_f64(0.9);
    let idle_max = IDLE * 3;
    let stall_bytes = 10;
    let trickled = EVERY * stall_bytes as u32;
    let deadline = Timeouts::DEFAULT
        .connect(Duration::from_secs(5))
        .read_idle(Duration::from_secs(20))
        .request(Duration::from_secs(1));
    // The deadline rows: never before the deadline; the upper bound leaves a busy machine
    // room (2 workers run the table's cases). What ended the call is shown by the expected
    // error itself: without the deadline, a hanging node ends in a read-idle timeout at
    // 20 s and a trickled response in a 200.
    let (deadline_min, deadline_max) =
        (deadline.request.mul_f64(0.9), deadline.request.mul_f64(2.5));
    // Read-idle counts from the last byte: a response trickled a byte every 30 ms takes
    // longer than the request timeout, which is longer than read-idle, which is much longer
    // than the gap between two bytes. Only the request timeout may end it.
    let paced = T.request(Duration::from_millis(1500));
    assert!(SLOW * 10 < paced.read_idle && paced.read_idle < paced.request);
    assert!(paced.request < SLOW * SELECT_OK.len() as u32);
    let (paced_min, paced_max) = (paced.request.mul_f64(0.9), paced.request.mul_f64(2.5));
    vec![
        Row::new("ok", vec![Fault::Ok(SELECT_OK)], Expect::Ok, 1).transports(ALL),
        Row::new(
            "reset mid body",
            vec![Fault::ResetMidBody],
            Expect::Io { not_sent: false },
            1,
        ),
        Row::new(
            "stall after headers",
            vec![Fault::StallAfterHeaders],
            Expect::Timeout(TimeoutPhase::ReadIdle),
            1,
        )
        .transports(ALL)
        .elapsed(idle_min, idle_max),
        // reqwest on main waited connect + read-idle here and reported read-idle.
        Row::new(
            "no reply",
            vec![Fault::NoReply],
            Expect::Timeout(TimeoutPhase::ReadIdle),
            1,
        )
        .transports(ALL)
        .elapsed(idle_min, idle_max),
        Row::new(
            "html 502",
            vec![Fault::Html502],
            Expect::Is("UnexpectedResponse 502", |e| {
                matches!(e, Error::UnexpectedResponse { status: 502, .. })
            }),
            1,
        ),
        Row::new(
            "invalid json",
            vec![Fault::InvalidJson],
            Expect::Is("Decode", |e| matches!(e, Error::Decode { .. })),
            1,
        )
        .ops(SELECT),
        Row::new(
            "429 without a wrapper",
            vec![Fault::Status(429, Some(0))],
            Expect::Status(429),
            1,
        ),
        // Read-idle is the longest gap without a byte: a head trickled over ~2 s with
        // 10 ms gaps completes under a 500 ms read-idle (main cut it at read-idle on
        // reqwest and on http2, where a frame counted only once complete). reqwest
        // starts its read timer at send and cannot see head bytes: see the reqwest row.
        Row::new("trickled head", vec![trickle(true, None)], Expect::Ok, 1)
            .transports(HEAD_BYTES)
            .elapsed(EVERY * SELECT_OK.len() as u32, LIMIT),
        Row::new("trickled body", vec![trickle(false, None)], Expect::Ok, 1)
            .transports(ALL)
            .elapsed(EVERY * SELECT_OK.len() as u32, LIMIT),
        // ... and fires about read-idle after the bytes stop (on http2, in the middle of
        // a frame: its 9-byte header and one byte of payload came).
        Row::new(
            "trickle then stall",
            vec![trickle(false, Some(stall_bytes))],
            Expect::Timeout(TimeoutPhase::ReadIdle),
            1,
        )
        .transports(ALL)
        .elapsed(trickled + idle_min, (trickled + IDLE) * 3),
        Row::new(
            "trickled head then stall",
            vec![trickle(true, Some(stall_bytes))],
            Expect::Timeout(TimeoutPhase::ReadIdle),
            1,
        )
        .transports(HEAD_BYTES)
        .elapsed(trickled + idle_min, (trickled + IDLE) * 3),
        // A body, or a whole response, trickled byte by byte for longer than the request
        // timeout, under a read-idle shorter than both: cut by the request timeout, never
        // by read-idle.
        Row::new(
            "request timeout over a byte-trickled body",
            vec![slow_trickle(false)],
            Expect::Timeout(TimeoutPhase::Request),
            1,
        )
        .transports(ALL)
        .timeouts(paced)
        .elapsed(paced_min, paced_max),
        Row::new(
            "request timeout over a byte-trickled head",
            vec![slow_trickle(true)],
            Expect::Timeout(TimeoutPhase::Request),
            1,
        )
        .transports(HEAD_BYTES)
        .timeouts(paced)
        .elapsed(paced_min, paced_max),
        // reqwest's one limit: it starts its read timer when the request is sent and hands
        // no byte over before the head is complete, so the wait for the head is bounded by
        // read-idle as a whole and a trickled head is cut there (documented on
        // `ReqwestDefault`; this row fails once that changes).
        Row::new(
            "reqwest cuts a byte-trickled head at read-idle",
            vec![slow_trickle(true)],
            Expect::Timeout(TimeoutPhase::ReadIdle),
            1,
        )
        .transports(&[TransportKind::Reqwest])
        .timeouts(paced)
        .elapsed(idle_min, idle_max),
        // Retry: 429 then OK, writes included (the one 429/503 policy).
        Row::new(
            "retry 429 then ok",
            vec![Fault::Status(429, Some(0)), Fault::Ok(SELECT_OK)],
            Expect::Ok,
            2,
        )
        .wrap(Wrap::Retry(quick(3))),
        // A Retry-After of ~3e10 years is capped at max_retry_after (200 ms here).
        Row::new(
            "retry-after capped",
            vec![
                Fault::Status(503, Some(1_000_000_000_000_000_000)),
                Fault::Ok(SELECT_OK),
            ],
            Expect::Ok,
            2,
        )
        .wrap(Wrap::Retry(
            quick(3).max_retry_after(Duration::from_millis(200)),
        ))
        .elapsed(Duration::from_millis(180), LIMIT),
        // A Retry-After wait that would end after the request deadline is not begun.
        Row::new(
            "retry-after past the deadline",
            vec![Fault::Status(503, Some(3)), Fault::Ok(SELECT_OK)],
            Expect::Exhausted {
                status: 503,
                attempts: 1,
            },
            1,
        )
        .wrap(Wrap::Retry(quick(5)))
        .timeouts(T.request(Duration::from_secs(2)))
        .elapsed(Duration::ZERO, Duration::from_secs(2)),
        Row::new(
            "retry does not resend after 500",
            vec![Fault::Status(500, None), Fault::Ok(SELECT_OK)],
            Expect::Status(500),
            1,
        )
        .wrap(Wrap::Retry(quick(3))),
        // Routing: the same 429/503 policy as Retry, writes included.
        Row::new(
            "routing 503 then ok",
            vec![Fault::Status(503, Some(0)), Fault::Ok(SELECT_OK)],
            Expect::Ok,
            2,
        )
        .wrap(Wrap::Routing(quick(3))),
        // A redirect is never followed by a write, and by a read only on opt-in (off here):
        // the 3xx is an `Error::Redirect` naming status and Location, the Location's host is
        // never contacted, and a write's documents are all failed (nothing indexed).
        Row::new(
            "302 redirect",
            vec![Fault::Redirect(302, REDIRECT_TO.into())],
            Expect::Is(
                "Redirect 302",
                |e| matches!(e, Error::Redirect { status: 302, location: Some(l), .. } if l == REDIRECT_TO),
            ),
            1,
        ),
        Row::new(
            "307 redirect through Retry",
            vec![Fault::Redirect(307, REDIRECT_TO.into())],
            Expect::Is("Redirect 307", |e| {
                matches!(e, Error::Redirect { status: 307, .. })
            }),
            1,
        )
        .wrap(Wrap::Retry(quick(3))),
        Row::new(
            "302 redirect through Routing",
            vec![Fault::Redirect(302, REDIRECT_TO.into())],
            Expect::Is("Redirect 302", |e| {
                matches!(e, Error::Redirect { status: 302, .. })
            }),
            1,
        )
        .wrap(Wrap::Routing(quick(3))),
        Row::new(
            "wrong shape",
            vec![Fault::WrongShape],
            Expect::Is("Decode", |e| matches!(e, Error::Decode { .. })),
            1,
        )
        .ops(SELECT),
        Row::new(
            "503 without a wrapper",
            vec![Fault::Status(503, Some(0))],
            Expect::Status(503),
            1,
        ),
        // A replica that hangs: the read fails over to the leader after read-idle.
        Row::new(
            "routing fails a read over on read-idle",
            vec![],
            Expect::Ok,
            0,
        )
        .servers(
            vec![vec![Fault::Ok(SELECT_OK)], vec![Fault::NoReply]],
            Seen::Each(&[1, 1]),
        )
        .wrap(Wrap::Routing(quick(3)))
        .ops(SELECT)
        .elapsed(idle_min, LIMIT),
        // The request timeout is a deadline for the whole call: three hanging nodes, a
        // 1 s request timeout, a read-idle longer than that: one attempt, cut at 1 s, no
        // failover after the deadline (main: 1 s per attempt, three attempts).
        Row::new(
            "routing deadline over three hanging nodes",
            vec![],
            Expect::Timeout(TimeoutPhase::Request),
            0,
        )
        .servers(
            vec![
                vec![Fault::NoReply],
                vec![Fault::NoReply],
                vec![Fault::NoReply],
            ],
            Seen::Total(1),
        )
        .wrap(Wrap::Routing(quick(5)))
        .timeouts(deadline)
        .elapsed(deadline_min, deadline_max),
        // The request timeout bounds the whole call even while bytes keep coming: a body
        // (and, on the hyper transports, a head) trickled over ~2.7 s, never idle for
        // longer than 30 ms, under a 1 s request timeout and a 20 s read-idle, is cut at
        // 1 s (the pooled transport checks the deadline on the connection's own timer).
        Row::new(
            "request deadline over a trickled body",
            vec![slow_trickle(false)],
            Expect::Timeout(TimeoutPhase::Request),
            1,
        )
        .transports(ALL)
        .timeouts(deadline)
        .elapsed(deadline_min, deadline_max),
        Row::new(
            "request deadline over a trickled head",
            vec![slow_trickle(true)],
            Expect::Timeout(TimeoutPhase::Request),
            1,
        )
        .transports(HEAD_BYTES)
        .timeouts(deadline)
        .elapsed(deadline_min, deadline_max),
        Row::new(
            "retry deadline over a hanging node",
            vec![Fault::NoReply],
            Expect::Timeout(TimeoutPhase::Request),
            1,
        )
        .wrap(Wrap::Retry(quick(5)))
        .timeouts(deadline)
        .elapsed(deadline_min, deadline_max),
    ]
}

fn transport(kind: TransportKind) -> Arc<dyn Transport> {
    kind.build(&TlsOptions::default(), false)
        .expect("transport builds")
}

/// Every document of a failed batch is reported failed (none silently dropped). The one
/// place the table looks into [`Error::Update`]; adapt it when the accounting changes.
fn check_update_accounting(e: Error, docs: usize) -> Result<Error, String> {
    match e {
        Error::Update {
            report,
            cause: Some(cause),
            ..
        } => {
            // Nothing was acknowledged; every id is failed when the request certainly indexed
            // nothing (not sent, or refused as a whole: 3xx, 4xx or 503), otherwise unknown.
            let refused = cause.is_not_sent() || matches!(cause.status(), Some(300..=499 | 503));
            let (failed, unknown) = if refused { (docs, 0) } else { (0, docs) };
            if report.sent != docs
                || !report.is_balanced()
                || report.acknowledged != 0
                || report.failed.len() != failed
                || report.unknown.len() != unknown
            {
                return Err(format!(
                    "update accounting for {docs} docs (cause {cause}): sent {}, acknowledged {}, failed {}, unknown {}; expected failed {failed}, unknown {unknown}",
                    report.sent,
                    report.acknowledged,
                    report.failed.len(),
                    report.unknown.len()
                ));
            }
            Ok(*cause)
        }
        other => Ok(other),
    }
}

fn check_expect(expect: Expect, res: &Result<(), Error>, t: &Timeouts) -> Result<(), String> {
    let ok = match (expect, res) {
        (Expect::Ok, Ok(())) => true,
        (Expect::Timeout(want), Err(Error::Timeout { phase, after, .. })) => {
            let configured = match want {
                TimeoutPhase::Connect => t.connect,
                TimeoutPhase::ReadIdle => t.read_idle,
                _ => t.request,
            };
            *phase == want && *after == configured
        }
        (Expect::Io { not_sent }, Err(Error::Io { not_sent: n, .. })) => *n == not_sent,
        (Expect::Status(s), Err(e)) => {
            !matches!(e, Error::RetriesExhausted { .. }) && e.status() == Some(s)
        }
        (
            Expect::Exhausted { status, attempts },
            Err(Error::RetriesExhausted {
                status: s,
                attempts: a,
                ..
            }),
        ) => (*s, *a) == (status, attempts),
        (Expect::Is(_, pred), Err(e)) => pred(e),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("expected {expect:?}, got {res:?}"))
    }
}

/// The h2c fault server's version of `fault`, for the faults both servers play.
fn h2_fault(fault: &Fault) -> Result<H2Fault, String> {
    Ok(match fault.clone() {
        Fault::Ok(body) => H2Fault::Ok(body),
        Fault::NoReply => H2Fault::NoReply,
        Fault::StallAfterHeaders => H2Fault::Trickle {
            body: SELECT_OK,
            every: Duration::ZERO,
            head: false,
            stall_after: Some(0),
        },
        Fault::Trickle {
            body,
            every,
            head,
            stall_after,
        } => H2Fault::Trickle {
            body,
            every,
            head,
            stall_after,
        },
        other => return Err(format!("the h2c fault server does not play {other:?}")),
    })
}

/// A fault server of either protocol.
enum Server {
    H1(FaultServer),
    H2(H2FaultServer),
}

impl Server {
    /// Starts the server `kind` talks to, playing `script`.
    async fn start(kind: TransportKind, script: &[Fault]) -> Result<Server, String> {
        if kind != TransportKind::Http2 {
            return Ok(Server::H1(FaultServer::start(script.to_vec()).await));
        }
        let script = script.iter().map(h2_fault).collect::<Result<_, _>>()?;
        Ok(Server::H2(H2FaultServer::start(script).await))
    }

    fn url(&self) -> String {
        match self {
            Server::H1(s) => s.url(),
            Server::H2(s) => s.url(),
        }
    }

    /// Requests read so far.
    fn seen(&self) -> usize {
        match self {
            Server::H1(s) => s.seen().len(),
            Server::H2(s) => s.seen().len(),
        }
    }
}

/// Runs one combination over `inner` (shared by the cases of one transport kind: each case
/// has its own servers, so the counts stay per case); Err names what did not hold.
async fn run(
    row: &Row,
    kind: TransportKind,
    inner: Arc<dyn Transport>,
    op: Op,
) -> Result<(), String> {
    let mut servers = Vec::new();
    for script in &row.servers {
        servers.push(Server::start(kind, script).await?);
    }
    let wrapped: Arc<dyn Transport> = match row.wrap {
        Wrap::None => inner,
        Wrap::Retry(p) => Arc::new(Retry::new(inner, p)),
        Wrap::Routing(p) => {
            let mut b = Routing::builder(inner)
                .collection("bench")
                .leader(servers[0].url())
                .read_preference(ReadPreference::NonLeader)
                .retry(p)
                .timeouts(row.timeouts);
            for s in &servers[1..] {
                b = b.replica(s.url());
            }
            Arc::new(b.build().map_err(|e| format!("routing builds: {e}"))?)
        }
    };
    let client = SolrClient::builder(servers[0].url())
        .collection("bench")
        .custom_transport(wrapped)
        .timeouts(row.timeouts)
        .build()
        .map_err(|e| format!("client builds: {e}"))?;
    let docs = [json!({"id": "ft-1"}), json!({"id": "ft-2"})];
    let t0 = Instant::now();
    let res = tokio::time::timeout(LIMIT, async {
        match op {
            Op::Select => client.select(&Select::new("*:*").rows(0)).await.map(drop),
            Op::Update => client.add(&docs).await.map(drop),
        }
    })
    .await
    .map_err(|_| format!("no answer within {LIMIT:?}"))?;
    let elapsed = t0.elapsed();
    let res = match (op, res) {
        (Op::Update, Err(e)) => Err(check_update_accounting(e, docs.len())?),
        (_, r) => r,
    };
    let mut problems = Vec::new();
    if let Err(m) = check_expect(row.expect, &res, &row.timeouts) {
        problems.push(m);
    }
    let seen: Vec<usize> = servers.iter().map(Server::seen).collect();
    let seen_ok = match row.seen {
        Seen::Each(want) => seen == want,
        Seen::Total(n) => seen.iter().sum::<usize>() == n,
    };
    if !seen_ok {
        problems.push(format!("servers saw {seen:?}, expected {:?}", row.seen));
    }
    if elapsed < row.min || elapsed > row.max {
        problems.push(format!(
            "took {elapsed:?}, expected within [{:?}, {:?}]",
            row.min, row.max
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fault_table() {
    let _g = support::shared().await;
    let rows = rows();
    let transports: Vec<(TransportKind, Arc<dyn Transport>)> =
        ALL.iter().map(|&k| (k, transport(k))).collect();
    let mut cases = Vec::new();
    for row in &rows {
        for &kind in row.transports {
            let inner = transports
                .iter()
                .find(|(k, _)| *k == kind)
                .map(|(_, t)| t.clone())
                .expect("a transport of every kind");
            for &op in row.ops {
                let inner = inner.clone();
                cases.push(async move {
                    let label = format!("{} / {kind} / {op:?} / {:?}", row.name, row.wrap);
                    (label, run(row, kind, inner, op).await)
                });
            }
        }
    }
    let n = cases.len();
    support::doc_counts::assert_readme_states("fault_table.rs`: {n} cases", n);
    // A few at a time: the bounds are relative to the configured timeouts, and a starved
    // runtime would stretch them.
    let results: Vec<(String, Result<(), String>)> = futures::stream::iter(cases)
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    let failures: Vec<String> = results
        .into_iter()
        .filter_map(|(label, r)| r.err().map(|e| format!("{label}: {e}")))
        .collect();
    println!("fault table: {n} cases, {} failed", failures.len());
    assert!(
        failures.is_empty(),
        "{} of {n} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Every transport reports a connect that hangs as a Connect timeout naming the connect
/// value, about that long after the start (main's reqwest waited connect + read-idle and
/// reported read-idle).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_connect_is_a_connect_timeout_with_the_connect_value() {
    let _g = support::shared().await;
    let hole = support::blackhole::start().await;
    let url = hole.url.clone();
    let t = Timeouts::DEFAULT
        .connect(Duration::from_millis(500))
        .read_idle(Duration::from_secs(5))
        .request(Duration::from_secs(20));
    for kind in TransportKind::ALL {
        let client = SolrClient::builder(&url)
            .collection("bench")
            .custom_transport(transport(kind))
            .timeouts(t)
            .build()
            .expect("client builds");
        let t0 = Instant::now();
        let res = tokio::time::timeout(LIMIT, client.select(&Select::new("*:*")))
            .await
            .expect("answers");
        let elapsed = t0.elapsed();
        match res {
            Err(Error::Timeout { phase, after, .. }) => {
                assert_eq!((phase, after), (TimeoutPhase::Connect, t.connect), "{kind}");
            }
            other => panic!("{kind}: expected a connect timeout, got {other:?}"),
        }
        let ratio = elapsed.as_secs_f64() / t.connect.as_secs_f64();
        assert!((0.9..3.0).contains(&ratio), "{kind}: {ratio:.2} x connect");
    }
}
