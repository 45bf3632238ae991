//! The signed send of a client call: sign at send time, and after a 401 renew the credential
//! and re-send once ([`super`] has the rules).

use std::sync::Arc;

use http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use http::{HeaderMap, StatusCode};

use super::{sign, with_signer, AuthProvider};
use crate::error::{Error, Result};
use crate::transport::{BoxFuture, StreamingResponse, Transport, WireRequest, WireResponse};

/// Sends `req` through `transport`, signed by `auth` when there is one. A 401 answer is
/// returned as it is unless the provider has a new credential; then the request is re-sent
/// once with it, and a second 401 is [`Error::Unauthorized`].
pub(crate) async fn send_signed(
    transport: &Arc<dyn Transport>,
    auth: Option<&Arc<dyn AuthProvider>>,
    req: WireRequest,
) -> Result<WireResponse> {
    signed(auth, req, |req| transport.send(req)).await
}

/// [`send_signed`] for an answer whose body is read as it arrives
/// ([`Transport::send_streaming`]): the request (method, path, parameters, body bytes) is
/// whole until its head comes back, so after a 401 head it is re-sent once the same way.
/// The 401's own body is read first (a few bytes, at most [`REJECTED_BODY_LIMIT`]) so that
/// its connection can serve the second send.
pub(crate) async fn send_signed_streaming(
    transport: &Arc<dyn Transport>,
    auth: Option<&Arc<dyn AuthProvider>>,
    req: WireRequest,
) -> Result<StreamingResponse> {
    signed(auth, req, |req| transport.send_streaming(req)).await
}

/// The most of a rejected streamed answer's body read before the request is re-sent; a
/// longer one is dropped unread (its connection closed).
pub(crate) const REJECTED_BODY_LIMIT: u64 = 64 * 1024;

/// An answer of either path, as the 401 handling sees it.
pub(crate) trait Answer: Sized {
    /// The HTTP status.
    fn status(&self) -> StatusCode;
    /// The response headers.
    fn headers(&self) -> &HeaderMap;
    /// The node label of its timing.
    fn node(&self) -> &str;
    /// Lets go of a rejected answer before the request is re-sent.
    fn discard(self) -> impl std::future::Future<Output = ()> + Send;
}

impl Answer for WireResponse {
    fn status(&self) -> StatusCode {
        self.status
    }
    fn headers(&self) -> &HeaderMap {
        &self.headers
    }
    fn node(&self) -> &str {
        &self.timing.node
    }
    async fn discard(self) {}
}

impl Answer for StreamingResponse {
    fn status(&self) -> StatusCode {
        self.status
    }
    fn headers(&self) -> &HeaderMap {
        &self.headers
    }
    fn node(&self) -> &str {
        &self.timing().node
    }
    async fn discard(self) {
        let _ = self.into_buffered(REJECTED_BODY_LIMIT).await;
    }
}

/// The signed send and its one renewal after a 401, for either path (`send` sends one
/// request through the transport).
async fn signed<'a, R: Answer>(
    auth: Option<&Arc<dyn AuthProvider>>,
    mut req: WireRequest,
    send: impl Fn(WireRequest) -> BoxFuture<'a, Result<R>>,
) -> Result<R> {
    let Some(auth) = auth else {
        return send(req).await;
    };
    // Both sends share one deadline: the request timeout bounds the call.
    req.start_deadline();
    sign(auth.as_ref(), &mut req).await?;
    let again = req.clone();
    let resp = with_signer(auth.clone(), send(req)).await?;
    if resp.status() != StatusCode::UNAUTHORIZED
        || !auth
            .on_unauthorized(again.headers.get(AUTHORIZATION))
            .await?
    {
        return Ok(resp);
    }
    resp.discard().await;
    let mut again = again;
    sign(auth.as_ref(), &mut again).await?;
    let resp = with_signer(auth.clone(), send(again)).await?;
    if resp.status() == StatusCode::UNAUTHORIZED {
        return Err(unauthorized(&resp, Some(auth.scheme()), true));
    }
    Ok(resp)
}

/// [`Error::Unauthorized`] for a 401 answer to a request signed with `scheme` (`None`: the
/// client has no credentials), `renewed` when it was re-sent with a renewed credential.
pub(crate) fn unauthorized(resp: &impl Answer, scheme: Option<&str>, renewed: bool) -> Error {
    let challenge = resp
        .headers()
        .get(WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .map(|s| s.chars().take(200).collect());
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
        node: resp.node().to_string(),
        scheme: scheme.map(str::to_string),
        challenge,
        hint,
    }
}
