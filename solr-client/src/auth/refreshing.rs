//! [`Refreshing`]: a bearer token fetched by an async callback, renewed ahead of its expiry
//! and once after a 401, one fetch at a time however many requests need it.

use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use http::HeaderValue;

use super::bearer::bearer_value;
use super::AuthProvider;
use crate::error::{Error, Result};
use crate::wire::BoxFuture;

/// Default [`Refreshing::margin`]: 30 seconds.
pub const DEFAULT_REFRESH_MARGIN: Duration = Duration::from_secs(30);

/// The error a token callback returns (any error type).
pub type TokenError = Box<dyn std::error::Error + Send + Sync>;

/// A token the [`Refreshing`] callback returns: its value and how long it is valid. Debug
/// output never shows the value.
#[derive(Clone)]
pub struct Token {
    value: String,
    valid_for: Option<Duration>,
}

impl Token {
    /// A token valid for `valid_for` from now (an OAuth `expires_in`).
    pub fn new(value: impl Into<String>, valid_for: Duration) -> Self {
        Token {
            value: value.into(),
            valid_for: Some(valid_for),
        }
    }

    /// A token with no known expiry: renewed only after a 401.
    pub fn without_expiry(value: impl Into<String>) -> Self {
        Token {
            value: value.into(),
            valid_for: None,
        }
    }
}

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Token")
            .field("value", &"***")
            .field("valid_for", &self.valid_for)
            .finish()
    }
}

type Fetch =
    Box<dyn Fn() -> BoxFuture<'static, std::result::Result<Token, TokenError>> + Send + Sync>;

/// The token in use: its header value and when it stops being used.
struct Current {
    value: HeaderValue,
    /// Expiry minus the margin; `None` when the token has no expiry.
    renew_at: Option<Instant>,
}

/// A bearer token from an async callback, returning the token and how long it is valid
/// ([`Token`]).
///
/// - The first request fetches a token; later ones reuse it until `margin` before its
///   expiry ([`Self::margin`], default [`DEFAULT_REFRESH_MARGIN`]); the first request after
///   that fetches a new one.
/// - After a 401, the token is fetched again (unless another request already replaced the
///   rejected one) and the request re-sent once; a second 401 is
///   [`Error::Unauthorized`].
/// - One fetch at a time: requests that need a token while one is being fetched wait for it
///   and share it (no thundering herd).
/// - A callback error (or a token an HTTP header cannot carry) fails the request with
///   [`Error::Auth`], nothing sent; the callback's error message is shown, the token never.
pub struct Refreshing {
    fetch: Fetch,
    margin: Duration,
    current: Mutex<Option<Current>>,
    /// Held while the callback runs.
    fetching: tokio::sync::Mutex<()>,
    fetches: AtomicU64,
}

impl Refreshing {
    /// A provider calling `fetch` for each new token.
    pub fn new<F, Fut>(fetch: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = std::result::Result<Token, TokenError>> + Send + 'static,
    {
        Refreshing {
            fetch: Box::new(move || Box::pin(fetch())),
            margin: DEFAULT_REFRESH_MARGIN,
            current: Mutex::new(None),
            fetching: tokio::sync::Mutex::new(()),
            fetches: AtomicU64::new(0),
        }
    }

    /// How long before its expiry a token is renewed. Default [`DEFAULT_REFRESH_MARGIN`]
    /// (30 s). A token valid for less than the margin is used for one request only.
    pub fn margin(mut self, margin: Duration) -> Self {
        self.margin = margin;
        self
    }

    /// How many tokens the callback has returned so far.
    pub fn fetches(&self) -> u64 {
        self.fetches.load(Ordering::Relaxed)
    }

    /// The current token's value unless it is due for renewal.
    fn fresh(&self) -> Option<HeaderValue> {
        let now = Instant::now();
        let guard = self.current.lock().unwrap_or_else(|p| p.into_inner());
        guard
            .as_ref()
            .filter(|c| c.renew_at.is_none_or(|t| now < t))
            .map(|c| c.value.clone())
    }

    /// Calls the callback and keeps its token (the caller holds `fetching`).
    async fn fetch_now(&self) -> Result<HeaderValue> {
        let token = (self.fetch)()
            .await
            .map_err(|e| Error::auth(format!("the token callback failed: {e}")))?;
        self.fetches.fetch_add(1, Ordering::Relaxed);
        let value = bearer_value(&token.value).map_err(|_| {
            Error::auth(
                "the token callback returned an empty token or one an HTTP header cannot \
                 carry (token not shown)",
            )
        })?;
        let now = Instant::now();
        let renew_at = token
            .valid_for
            .map(|d| (now + d).checked_sub(self.margin).unwrap_or(now));
        let mut guard = self.current.lock().unwrap_or_else(|p| p.into_inner());
        *guard = Some(Current {
            value: value.clone(),
            renew_at,
        });
        Ok(value)
    }

    async fn get(&self) -> Result<Option<HeaderValue>> {
        if let Some(v) = self.fresh() {
            return Ok(Some(v));
        }
        let _one = self.fetching.lock().await;
        if let Some(v) = self.fresh() {
            return Ok(Some(v));
        }
        self.fetch_now().await.map(Some)
    }

    async fn renew_after_401(&self, rejected: Option<&HeaderValue>) -> Result<bool> {
        let _one = self.fetching.lock().await;
        let replaced = self
            .fresh()
            .is_some_and(|v| rejected.is_none_or(|r| r != v));
        if !replaced {
            // The rejected token is still the one in use (or none is): fetch a new one.
            self.fetch_now().await?;
        }
        Ok(true)
    }
}

impl AuthProvider for Refreshing {
    fn authorization(&self) -> BoxFuture<'_, Result<Option<HeaderValue>>> {
        Box::pin(self.get())
    }

    fn on_unauthorized<'a>(
        &'a self,
        rejected: Option<&'a HeaderValue>,
    ) -> BoxFuture<'a, Result<bool>> {
        Box::pin(self.renew_after_401(rejected))
    }

    fn cached(&self) -> Option<HeaderValue> {
        self.fresh()
    }

    fn scheme(&self) -> &'static str {
        "Bearer"
    }
}

impl std::fmt::Debug for Refreshing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let has_token = self.current.lock().map(|g| g.is_some()).unwrap_or(false);
        f.debug_struct("Refreshing")
            .field("margin", &self.margin)
            .field("fetches", &self.fetches())
            .field("token", &if has_token { "***" } else { "(none yet)" })
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;
    use std::sync::Arc;

    use super::*;

    /// A provider whose callback returns `tok-N` (N from 0), valid for `valid`, after `delay`.
    fn counting(valid: Duration, delay: Duration) -> (Refreshing, Arc<AtomicUsize>) {
        let calls = Arc::new(AtomicUsize::new(0));
        let c = calls.clone();
        let p = Refreshing::new(move || {
            let n = c.fetch_add(1, Ordering::SeqCst);
            async move {
                tokio::time::sleep(delay).await;
                Ok(Token::new(format!("tok-{n}"), valid))
            }
        })
        .margin(Duration::from_secs(10));
        (p, calls)
    }

    fn text(v: Option<HeaderValue>) -> String {
        v.expect("a value").to_str().expect("ascii").to_string()
    }

    #[tokio::test]
    async fn a_valid_token_is_reused_and_one_inside_the_margin_is_renewed() {
        let (p, calls) = counting(Duration::from_secs(3600), Duration::ZERO);
        for _ in 0..5 {
            assert_eq!(
                text(p.authorization().await.expect("token")),
                "Bearer tok-0"
            );
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        assert_eq!(p.fetches(), 1);
        // Valid for 5 s, margin 10 s: every request renews.
        let (p, calls) = counting(Duration::from_secs(5), Duration::ZERO);
        for n in 0..3 {
            let v = text(p.authorization().await.expect("token"));
            assert_eq!(v, format!("Bearer tok-{n}"));
        }
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn concurrent_requests_share_one_fetch() {
        let (p, calls) = counting(Duration::from_secs(3600), Duration::from_millis(50));
        let p = Arc::new(p);
        let tasks: Vec<_> = (0..16)
            .map(|_| {
                let p = p.clone();
                tokio::spawn(async move { text(p.authorization().await.expect("token")) })
            })
            .collect();
        for t in tasks {
            assert_eq!(t.await.expect("task"), "Bearer tok-0");
        }
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        // Sixteen 401s for the same token: one renewal.
        let rejected = p.authorization().await.expect("token");
        let renewals = (0..16).map(|_| p.on_unauthorized(rejected.as_ref()));
        for r in futures::future::join_all(renewals).await {
            assert!(r.expect("renewed"));
        }
        assert_eq!(calls.load(Ordering::SeqCst), 2);
        assert_eq!(
            text(p.authorization().await.expect("token")),
            "Bearer tok-1"
        );
    }

    #[tokio::test]
    async fn a_failing_callback_or_a_bad_token_is_a_typed_error_without_the_token() {
        let p = Refreshing::new(|| async {
            Err::<Token, TokenError>("token endpoint said 503".into())
        });
        let err = p.authorization().await.expect_err("callback failed");
        assert!(
            matches!(&err, Error::Auth(m) if m.contains("token endpoint said 503")),
            "{err:?}"
        );
        assert!(err.is_not_sent());
        let p = Refreshing::new(|| async { Ok(Token::without_expiry("se\ncret")) });
        let err = p.authorization().await.expect_err("not a header value");
        for shown in [err.to_string(), format!("{err:?}")] {
            assert!(
                matches!(err, Error::Auth(_)) && !shown.contains("cret"),
                "{shown}"
            );
        }
        assert_eq!(p.fetches(), 1, "the callback answered once");
    }

    #[tokio::test]
    async fn debug_never_shows_the_token() {
        let (p, _) = counting(Duration::from_secs(3600), Duration::ZERO);
        p.authorization().await.expect("token");
        let shown = format!(
            "{p:?} {:?}",
            Token::new("tok-secret", Duration::from_secs(1))
        );
        assert!(!shown.contains("tok-"), "{shown}");
        assert!(shown.contains("fetches: 1"), "{shown}");
    }
}
