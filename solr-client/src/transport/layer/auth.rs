//! `+auth`: after a `401 Unauthorized`, renew the credential and re-send once ([`crate::auth`]
//! has the rules). The signing itself is not here: the provider rides the request
//! ([`WireRequest::auth`]) and the base transport signs each write
//! ([`WireRequest::sign`]), so this layer only decides whether a 401 is worth a second try.

use std::fmt;
use std::sync::{Arc, Mutex};

use http::header::WWW_AUTHENTICATE;
use http::{HeaderValue, StatusCode};

use crate::auth::AuthProvider;
use crate::error::{Error, Result};
use crate::transport::{
    BoxFuture, Decorator, Reply, StreamingResponse, Transport, WireRequest, WireResponse,
};

/// The 401-renewal decorator: a request whose provider ([`WireRequest::auth`]) has a new
/// credential after a 401 is sent once more (a write too: a 401 is refused before anything
/// is processed); a second 401 is [`Error::Unauthorized`]. Requests without a provider pass
/// through untouched.
#[derive(Debug)]
pub struct AuthRenew<T> {
    inner: T,
}

impl<T: Transport> AuthRenew<T> {
    /// Wraps `inner`.
    pub fn new(inner: T) -> Self {
        AuthRenew { inner }
    }
}

impl<T: Transport> Decorator for AuthRenew<T> {
    type Inner = T;

    fn inner(&self) -> &T {
        &self.inner
    }

    fn call(&self, req: WireRequest) -> BoxFuture<'_, Result<Reply>> {
        // Without a provider there is nothing to renew: the inner future as it is, with no
        // box and no frame of this layer around it (the request is not moved again).
        if req.auth.is_none() {
            return self.inner.send(req);
        }
        Box::pin(renewing(&self.inner, req))
    }
}

/// Sends `req` through `inner`; after a 401, when the request's provider has a new
/// credential, re-sends it once (the 401's own body read first, at most
/// 64 KiB, so that its connection can
/// serve the second send), and a second 401 is [`Error::Unauthorized`].
pub(crate) async fn renewing<T: Transport + ?Sized>(
    inner: &T,
    mut req: WireRequest,
) -> Result<Reply> {
    let Some(auth) = req.auth.clone() else {
        return inner.send(req).await;
    };
    // Both sends share one deadline: the request timeout bounds the call.
    req.start_deadline();
    // The base asks the provider once per write, through this wrapper, which keeps the
    // value it handed out: the one a 401 rejected.
    let sent = Arc::new(Remembering {
        provider: auth.clone(),
        last: Mutex::new(None),
    });
    req.auth = Some(sent.clone());
    let again = req.clone();
    let resp = inner.send(req).await?;
    if resp.status() != StatusCode::UNAUTHORIZED {
        return Ok(resp);
    }
    let rejected = sent.last();
    if !auth.on_unauthorized(rejected.as_ref()).await? {
        return Ok(resp);
    }
    resp.discard().await;
    let resp = inner.send(again).await?;
    if resp.status() == StatusCode::UNAUTHORIZED {
        return Err(unauthorized(
            resp.headers(),
            &resp.timing().node,
            Some(auth.scheme()),
            true,
        ));
    }
    Ok(resp)
}

/// A request's provider as [`renewing`] hands it down: every value asked for goes to the
/// request as it is and is kept, so that after a 401 the provider is told which value was
/// rejected without being asked again. Shows no value in `Debug`.
struct Remembering {
    provider: Arc<dyn AuthProvider>,
    last: Mutex<Option<HeaderValue>>,
}

impl Remembering {
    fn last(&self) -> Option<HeaderValue> {
        self.last.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl fmt::Debug for Remembering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Remembering").field(&self.provider).finish()
    }
}

impl AuthProvider for Remembering {
    fn authorization(&self) -> BoxFuture<'_, Result<Option<HeaderValue>>> {
        Box::pin(async move {
            let v = self.provider.authorization().await?;
            *self.last.lock().unwrap_or_else(|e| e.into_inner()) = v.clone();
            Ok(v)
        })
    }

    fn on_unauthorized<'a>(
        &'a self,
        rejected: Option<&'a HeaderValue>,
    ) -> BoxFuture<'a, Result<bool>> {
        self.provider.on_unauthorized(rejected)
    }

    fn cached(&self) -> Option<HeaderValue> {
        self.provider.cached()
    }

    fn scheme(&self) -> &'static str {
        self.provider.scheme()
    }
}

/// Sends `req` through `transport` (a client's [`stack`](crate::transport::stack), whose `+auth`
/// layer renews after a 401) for a whole answer, signed by `auth` unless the request names
/// its own provider.
pub(crate) async fn send_signed(
    transport: &Arc<dyn Transport>,
    auth: Option<&Arc<dyn AuthProvider>>,
    mut req: WireRequest,
) -> Result<WireResponse> {
    if req.auth.is_none() {
        req.auth = auth.cloned();
    }
    // What `send_whole` does, in this future rather than in a box of its own.
    req.streamed = false;
    let limit = req.max_response_bytes;
    transport.send(req).await?.into_whole(limit).await
}

/// [`send_signed`] for an answer whose body is read as it arrives: the request (method,
/// path, parameters, body bytes) is whole until its head comes back, so after a 401 head
/// the `+auth` layer re-sends it once the same way.
pub(crate) async fn send_signed_streaming(
    transport: &Arc<dyn Transport>,
    auth: Option<&Arc<dyn AuthProvider>>,
    mut req: WireRequest,
) -> Result<StreamingResponse> {
    if req.auth.is_none() {
        req.auth = auth.cloned();
    }
    transport.send_streaming(req).await
}

/// [`Error::Unauthorized`] for a 401 answer (its `headers`, from `node`) to a request
/// signed with `scheme` (`None`: the client has no credentials), `renewed` when it was
/// re-sent with a renewed credential.
pub(crate) fn unauthorized(
    headers: &http::HeaderMap,
    node: &str,
    scheme: Option<&str>,
    renewed: bool,
) -> Error {
    let challenge = headers
        .get(WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .map(|s| s.chars().take(200).collect::<String>());
    let hint = match (scheme, renewed) {
        (None, _) => "the server requires authentication and the client has no credentials: \
                      give them with .credentials(Credentials::basic(..)) or .auth(..)"
            .to_string(),
        (Some(s), true) => format!(
            "the {s} credential was rejected, renewed once and the new one rejected too \
             (not tried again): check what the token provider returns"
        ),
        (Some(s), false) => format!(
            "the {s} credentials were rejected and the provider has no other \
             (check them, or use a Refreshing provider for tokens that expire)"
        ),
    };
    Error::Unauthorized {
        node: node.into(),
        scheme: scheme.map(Into::into),
        challenge: challenge.map(String::into),
        hint: hint.into(),
    }
}
