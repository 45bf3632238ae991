//! Authentication beyond Basic, through a real auth gateway: Debian's nginx in front of the
//! local Solr, admitting only bearer tokens the test allowed
//! ([`crate::support::nginx_gateway`]).
//!
//! - a static bearer token passes (Solr's answer comes back); a wrong one, or none, is a
//!   typed 401 ([`Error::Unauthorized`]) sent exactly once, with no token text anywhere;
//! - the refreshing provider renews a token due within its margin before sending, and
//!   concurrent requests share one renewal (callback calls counted exactly);
//! - a token revoked at the gateway: one renewal, the request re-sent once and answered; a
//!   provider whose new token is refused too: a typed error after exactly two attempts;
//! - the same for a streamed answer (`export_as`): the request re-sent once after its 401
//!   head, over the connection the 401 came on; refused twice, a typed error;
//! - a token revoked in the middle of an `Indexer` run: every document accounted for, Solr
//!   holds exactly the acknowledged ones;
//! - custom headers (per client and per request) reach the gateway;
//! - a user's own decorator that re-sends a request later sends the renewed token.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use solr_client::auth::{Bearer, Refreshing, Token};
use solr_client::transport::{BoxFuture, Decorator, Reply, Transport, WireRequest};
use solr_client::{
    Commit, Error, Export, Indexer, Select, SolrClient, SolrClientBuilder, TransportKind,
};

use crate::support::nginx_gateway::Gateway;
use crate::support::{self, tag};

/// The gateway in front of the standalone node and a tag unique to the test; None
/// (recorded) without nginx.
fn gateway(test: &str) -> Option<(Arc<Gateway>, String)> {
    let solr = support::standalone().url(None).expect("url");
    let gw = Gateway::start(solr, &format!("auth_gateway::{test}"))?;
    Some((Arc::new(gw), tag(&test.replace('_', "")[..12])))
}

/// Tokens valid for an hour.
fn hour(_: usize) -> Duration {
    Duration::from_secs(3600)
}

fn through(gw: &Gateway) -> SolrClientBuilder {
    SolrClient::builder(gw.url())
        .collection("bench")
        .transport(TransportKind::Pooled)
}

fn direct() -> SolrClient {
    support::client(
        support::standalone().url(None).expect("url"),
        TransportKind::Pooled,
        false,
    )
}

/// A token issuer: each call of the provider's callback makes token `{prefix}-{n}`, valid
/// for `valid(n)`, admitted by the gateway when `admit` holds. Returns the provider and the
/// tokens issued, in order.
fn issuer(
    gw: &Arc<Gateway>,
    prefix: &str,
    valid: fn(usize) -> Duration,
    admit: bool,
) -> (Refreshing, Arc<Mutex<Vec<String>>>) {
    let issued = Arc::new(Mutex::new(Vec::new()));
    let (gw, prefix, log) = (gw.clone(), prefix.to_string(), issued.clone());
    let provider = Refreshing::new(move || {
        let mut log = log.lock().unwrap();
        let n = log.len();
        let token = format!("{prefix}-{n}");
        if admit {
            gw.allow(&token);
        }
        log.push(token.clone());
        async move { Ok(Token::new(token, valid(n))) }
    })
    .margin(Duration::from_secs(10));
    (provider, issued)
}

/// The gateway's log lines of requests tagged `t`, once there are at least `n` of them
/// (nginx writes a line after the response; waits up to 5 s).
async fn logged(gw: &Gateway, t: &str, n: usize) -> Vec<String> {
    logged_with(gw, &format!("tag=\"{t}\""), n).await
}

/// The gateway's log lines containing `needle`, once there are at least `n` of them.
async fn logged_with(gw: &Gateway, needle: &str, n: usize) -> Vec<String> {
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let lines = gw.matching(needle);
        if lines.len() >= n || Instant::now() > until {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn statuses(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("status=")))
        .collect()
}

fn assert_no_secret(texts: &[String], secret: &str) {
    for s in texts {
        assert!(!s.contains(secret), "secret shown: {s}");
    }
}

/// A call with tag `t` refused again after one renewal: exactly two tokens were issued, the
/// gateway logged two 401s, and neither token shows in the error.
async fn refused_after_one_renewal(
    gw: &Gateway,
    t: &str,
    issued: &Mutex<Vec<String>>,
    err: &Error,
) {
    let issued = issued.lock().unwrap().clone();
    assert_eq!(
        issued.len(),
        2,
        "the first token and one renewal: {issued:?}"
    );
    let lines = logged(gw, t, 2).await;
    assert_eq!(statuses(&lines), ["status=401", "status=401"], "{lines:?}");
    for token in &issued {
        assert_no_secret(&[err.to_string(), format!("{err:?}")], token);
    }
}

#[tokio::test]
async fn bearer_token_passes_and_a_wrong_one_is_a_typed_401() {
    let _g = support::shared().await;
    let Some((gw, t)) = gateway("bearer_token_passes_and_a_wrong_one_is_a_typed_401") else {
        return;
    };
    support::index_tagged(&direct(), &t, 3).await;
    let good = format!("good-{t}");
    gw.allow(&good);
    let by_tag = Select::new("*:*").fq(format!("tag_s:{t}"));
    let c = through(&gw)
        .auth(Bearer::new(&good).expect("token"))
        .build()
        .expect("client");
    let r = c.select(&by_tag).await.expect("admitted");
    assert_eq!(r.num_found(), 3, "Solr's answer through the gateway");

    let wrong = format!("wrong-{t}");
    let builder = through(&gw).auth(Bearer::new(&wrong).expect("token"));
    let builder_shown = format!("{builder:?}");
    let bad = builder.build().expect("client");
    let bad = bad
        .with_header("X-Request-Tag", format!("{t}-wrong"))
        .expect("header");
    let err = bad.select(&by_tag).await.expect_err("refused");
    assert!(
        matches!(&err, Error::Unauthorized { scheme: Some(s), challenge: Some(ch), .. }
            if s == "Bearer" && ch.contains("Bearer realm=\"solr-gateway\"")),
        "{err:?}"
    );
    assert_eq!(err.status(), Some(401));
    let shown = [
        err.to_string(),
        format!("{err:?}"),
        format!("{bad:?}"),
        builder_shown,
    ];
    assert_no_secret(&shown, &wrong);
    // A static token cannot change: sent once, never again.
    let lines = logged(&gw, &format!("{t}-wrong"), 1).await;
    assert_eq!(statuses(&lines), ["status=401"], "{lines:?}");
    assert!(lines[0].contains("scheme=Bearer"), "{lines:?}");

    let none = through(&gw).build().expect("client");
    let err = none.select(&by_tag).await.expect_err("no credentials");
    assert!(
        matches!(&err, Error::Unauthorized { scheme: None, hint, .. } if hint.contains(".auth(")),
        "{err:?}"
    );
}

#[tokio::test]
async fn refreshing_token_is_renewed_ahead_of_expiry_once_for_all_waiters() {
    let _g = support::shared().await;
    let Some((gw, t)) = gateway("refreshing_token_is_renewed_ahead_of_expiry_once_for_all_waiters")
    else {
        return;
    };
    // The first token is valid for 5 s, inside the 10 s margin: due for renewal at once
    // (while the gateway still admits it); the next ones for an hour.
    let (provider, issued) = issuer(
        &gw,
        &t,
        |n| Duration::from_secs(if n == 0 { 5 } else { 3600 }),
        true,
    );
    let c = through(&gw).auth(provider).build().expect("client");
    c.ping().await.expect("first ping");
    assert_eq!(
        issued.lock().unwrap().len(),
        1,
        "the first request fetched a token"
    );
    // Eight requests at once, the token due: one renewal, shared.
    let pings = (0..8).map(|_| c.ping());
    for r in futures::future::join_all(pings).await {
        r.expect("ping with the renewed token");
    }
    assert_eq!(
        issued.lock().unwrap().len(),
        2,
        "one renewal for eight requests"
    );
    for _ in 0..3 {
        c.ping().await.expect("ping");
    }
    let issued = issued.lock().unwrap().clone();
    assert_eq!(issued.len(), 2, "a valid token is reused");
    assert_no_secret(&[format!("{c:?}")], &issued[1]);
}

#[tokio::test]
async fn a_revoked_token_is_renewed_once_and_the_request_succeeds() {
    let _g = support::shared().await;
    let Some((gw, t)) = gateway("a_revoked_token_is_renewed_once_and_the_request_succeeds") else {
        return;
    };
    let (provider, issued) = issuer(&gw, &t, hour, true);
    let c = through(&gw).auth(provider).build().expect("client");
    c.ping().await.expect("ping");
    let first = issued.lock().unwrap()[0].clone();
    gw.revoke(&first);
    let tagged = c.with_header("X-Request-Tag", &t).expect("header");
    tagged
        .ping()
        .await
        .expect("renewed after the 401 and re-sent");
    assert_eq!(issued.lock().unwrap().len(), 2, "exactly one renewal");
    let lines = logged(&gw, &t, 2).await;
    assert_eq!(statuses(&lines), ["status=401", "status=200"], "{lines:?}");

    // A provider whose new tokens are refused as well: a typed error after two attempts.
    let t2 = format!("{t}-never");
    let (provider, issued) = issuer(&gw, &t2, hour, false);
    let c = through(&gw)
        .auth(provider)
        .header("X-Request-Tag", &t2)
        .build()
        .expect("client");
    let err = c.ping().await.expect_err("refused twice");
    assert!(
        matches!(&err, Error::Unauthorized { hint, .. } if hint.contains("renewed once")),
        "{err:?}"
    );
    refused_after_one_renewal(&gw, &t2, &issued, &err).await;
}

#[derive(Debug, serde::Deserialize)]
struct Row {
    id: String,
}

#[tokio::test]
async fn a_streamed_export_is_resent_once_after_a_401_with_a_renewed_token() {
    let _g = support::shared().await;
    let Some((gw, t)) =
        gateway("a_streamed_export_is_resent_once_after_a_401_with_a_renewed_token")
    else {
        return;
    };
    support::index_tagged(&direct(), &t, 3).await;
    let export = Export::new(format!("tag_s:{t}")).fl("id").sort("id asc");
    let (provider, issued) = issuer(&gw, &t, hour, true);
    let c = through(&gw).auth(provider).build().expect("client");
    c.ping().await.expect("ping");
    let first = issued.lock().unwrap()[0].clone();
    gw.revoke(&first);
    let tag = format!("{t}-export");
    let tagged = c.with_header("X-Request-Tag", &tag).expect("header");
    let rows: Vec<Row> = tagged
        .export_as::<Row>(&export)
        .await
        .expect("renewed after the 401 head and re-sent")
        .try_collect()
        .await
        .expect("rows");
    let mut ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    ids.sort_unstable();
    let want: Vec<String> = (0..3).map(|i| format!("{t}-{i}")).collect();
    assert_eq!(ids, want, "every tagged document once");
    assert_eq!(issued.lock().unwrap().len(), 2, "exactly one renewal");
    let lines = logged(&gw, &tag, 2).await;
    assert_eq!(statuses(&lines), ["status=401", "status=200"], "{lines:?}");
    assert_eq!(
        c.transport().stats().connections_opened,
        1,
        "the ping, the 401 (its body read) and the re-sent export on one connection"
    );

    // A provider whose new tokens are refused as well: a typed error after two attempts.
    let t2 = format!("{t}-never");
    let (provider, issued) = issuer(&gw, &t2, hour, false);
    let c = through(&gw)
        .auth(provider)
        .header("X-Request-Tag", &t2)
        .build()
        .expect("client");
    let err = c
        .export_as::<Row>(&export)
        .await
        .expect_err("refused twice");
    assert!(
        matches!(&err, Error::Unauthorized { scheme: Some(s), hint, .. }
            if s == "Bearer" && hint.contains("renewed once")),
        "{err:?}"
    );
    refused_after_one_renewal(&gw, &t2, &issued, &err).await;
}

#[tokio::test]
async fn a_token_revoked_mid_indexer_run_loses_no_document() {
    let _g = support::shared().await;
    let Some((gw, t)) = gateway("a_token_revoked_mid_indexer_run_loses_no_document") else {
        return;
    };
    let (provider, issued) = issuer(&gw, &t, hour, true);
    let c = through(&gw)
        .auth(provider)
        .header("X-Request-Tag", &t)
        .build()
        .expect("client");
    let docs = crate::indexer::docs(&t, 300, &[]);
    let ids: Vec<String> = (0..300).map(|i| format!("{t}-{i}")).collect();
    let revoked = Arc::new(AtomicBool::new(false));
    let batches_at_revoke = Arc::new(AtomicUsize::new(0));
    let (gw2, issued2, rv, at) = (
        gw.clone(),
        issued.clone(),
        revoked.clone(),
        batches_at_revoke.clone(),
    );
    let mut indexer = Indexer::builder(c)
        .batch_docs(20)
        .in_flight(1)
        .progress(move |p| {
            if p.acknowledged >= 100 && !rv.swap(true, Ordering::SeqCst) {
                at.store(p.batches, Ordering::SeqCst);
                gw2.revoke(&issued2.lock().unwrap()[0]);
            }
        })
        .build()
        .expect("indexer");
    indexer.index_iter(&docs).await.expect("pushed");
    let r = indexer.finish().await;
    assert!(
        revoked.load(Ordering::SeqCst),
        "the token was revoked mid-run"
    );
    assert_eq!(r.sent, 300, "{r:?}");
    assert_eq!(
        r.acknowledged + r.failed.len() + r.unknown.len() + r.not_attempted.len(),
        300,
        "{r:?}"
    );
    assert_eq!(
        r.acknowledged, 300,
        "the renewed token carried the rest: {r:?}"
    );
    assert_eq!(issued.lock().unwrap().len(), 2, "one renewal");
    let direct = direct();
    direct.commit(Commit::default()).await.expect("commit");
    let held = crate::indexer::ids_in_solr(&direct, &t).await;
    let acked: HashSet<String> = r.acknowledged_ids(&ids).into_iter().collect();
    assert_eq!(held, acked, "Solr holds exactly the acknowledged documents");
    let lines = logged(&gw, &t, 16).await;
    let refused = statuses(&lines)
        .iter()
        .filter(|s| **s == "status=401")
        .count();
    assert_eq!(
        refused, 1,
        "one batch refused, renewed and re-sent: {lines:?}"
    );
    assert_eq!(lines.len(), 15 + 1, "15 batches and one re-send: {lines:?}");
    assert!(
        batches_at_revoke.load(Ordering::SeqCst) < 15,
        "revoked before the last batch"
    );
}

#[tokio::test]
async fn custom_headers_reach_the_gateway_and_secret_ones_stay_hidden() {
    let _g = support::shared().await;
    let Some((gw, t)) = gateway("custom_headers_reach_the_gateway_and_secret_ones_stay_hidden")
    else {
        return;
    };
    let token = format!("tok-{t}");
    gw.allow(&token);
    let key = format!("key-{t}");
    let builder = through(&gw)
        .auth(Bearer::new(&token).expect("token"))
        .header("X-Tenant", format!("tenant-{t}"))
        .secret_header("X-Api-Key", &key);
    let builder_shown = format!("{builder:?}");
    let c = builder.build().expect("client");
    let per_request = c.with_header("X-Request-Tag", &t).expect("header");
    per_request.ping().await.expect("ping");
    c.ping().await.expect("ping without the per-request header");
    let lines = logged(&gw, &t, 1).await;
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].contains(&format!("tenant=\"tenant-{t}\"")),
        "{lines:?}"
    );
    let tenant = logged_with(&gw, &format!("tenant=\"tenant-{t}\""), 2).await;
    assert_eq!(
        tenant.len(),
        2,
        "the client header on both requests: {tenant:?}"
    );
    let shown = [builder_shown, format!("{c:?}"), format!("{per_request:?}")];
    assert_no_secret(&shown, &key);
    assert_no_secret(&shown, &token);
    let err = c
        .with_header("Authorization", "Bearer x")
        .expect_err("reserved");
    assert!(matches!(err, Error::Config(_)), "{err:?}");
    let err = c
        .with_secret_header("X-Api-Key", "bad\nvalue")
        .expect_err("invalid");
    assert!(!err.to_string().contains("bad"), "{err}");
}

/// A user's own decorator that sends every request twice, the second time after a pause
/// and a hook (here: the first token revoked at the gateway). It never signs anything.
#[derive(Debug)]
struct SendsAgainLater {
    inner: Arc<dyn Transport>,
    pause: Duration,
    before_again: RevokeFirst,
}

/// Revokes the first token the issuer made.
struct RevokeFirst(Arc<Gateway>, Arc<Mutex<Vec<String>>>);

impl std::fmt::Debug for RevokeFirst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RevokeFirst")
    }
}

impl Decorator for SendsAgainLater {
    type Inner = Arc<dyn Transport>;

    fn inner(&self) -> &Self::Inner {
        &self.inner
    }

    fn call(&self, req: WireRequest) -> BoxFuture<'_, solr_client::Result<Reply>> {
        Box::pin(async move {
            let first = self.inner.send_whole(req.clone()).await?;
            assert_eq!(first.status, http::StatusCode::OK);
            tokio::time::sleep(self.pause).await;
            let first_token = self.before_again.1.lock().unwrap()[0].clone();
            self.before_again.0.revoke(&first_token);
            self.inner.send(req).await
        })
    }
}

/// A decorator written without any thought for credentials re-sends a request after its
/// token has come due: the re-sent request carries the renewed token (the provider rides
/// the request, and the base transport signs each write), so the gateway admits both sends
/// and never sees the revoked first token again: two 200s, no 401, two tokens issued.
#[tokio::test]
async fn a_custom_decorator_resending_later_sends_the_renewed_credential() {
    let _g = support::shared().await;
    let Some((gw, t)) = gateway("a_custom_decorator_resending_later_sends_the_renewed_credential")
    else {
        return;
    };
    // The first token is valid for 12 s, 10 s of it inside the margin: due 2 s after it
    // was issued; the decorator pauses 3 s before sending again.
    let (provider, issued) = issuer(
        &gw,
        &t,
        |n| Duration::from_secs(if n == 0 { 12 } else { 3600 }),
        true,
    );
    let base = TransportKind::Pooled
        .build(&Default::default(), false)
        .expect("pooled");
    let later = SendsAgainLater {
        inner: base,
        pause: Duration::from_secs(3),
        before_again: RevokeFirst(gw.clone(), issued.clone()),
    };
    let c = SolrClient::builder(gw.url())
        .collection("bench")
        .custom_transport(Arc::new(later))
        .auth(provider)
        .header("X-Request-Tag", &t)
        .build()
        .expect("client");
    c.ping().await.expect("both sends admitted");
    let issued = issued.lock().unwrap().clone();
    assert_eq!(
        issued.len(),
        2,
        "the first token and its renewal: {issued:?}"
    );
    let lines = logged(&gw, &t, 2).await;
    assert_eq!(
        statuses(&lines),
        ["status=200", "status=200"],
        "the re-sent request carried the new token: {lines:?}"
    );
}
