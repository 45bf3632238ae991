//! The signed send of a client call: sign at send time, and after a 401 renew the credential
//! and re-send once ([`super`] has the rules).

use std::sync::Arc;

use http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use http::StatusCode;

use super::{sign, with_signer, AuthProvider};
use crate::error::{Error, Result};
use crate::transport::{Transport, WireRequest, WireResponse};

/// Sends `req` through `transport`, signed by `auth` when there is one. A 401 answer is
/// returned as it is unless the provider has a new credential; then the request is re-sent
/// once with it, and a second 401 is [`Error::Unauthorized`].
pub(crate) async fn send_signed(
    transport: &Arc<dyn Transport>,
    auth: Option<&Arc<dyn AuthProvider>>,
    mut req: WireRequest,
) -> Result<WireResponse> {
    let Some(auth) = auth else {
        return transport.send(req).await;
    };
    // Both sends share one deadline: the request timeout bounds the call.
    req.start_deadline();
    sign(auth.as_ref(), &mut req).await?;
    let again = req.clone();
    let resp = with_signer(auth.clone(), transport.send(req)).await?;
    if resp.status != StatusCode::UNAUTHORIZED
        || !auth
            .on_unauthorized(again.headers.get(AUTHORIZATION))
            .await?
    {
        return Ok(resp);
    }
    let mut again = again;
    sign(auth.as_ref(), &mut again).await?;
    let resp = with_signer(auth.clone(), transport.send(again)).await?;
    if resp.status == StatusCode::UNAUTHORIZED {
        return Err(unauthorized(&resp, Some(auth.scheme()), true));
    }
    Ok(resp)
}

/// [`Error::Unauthorized`] for a 401 answer to a request signed with `scheme` (`None`: the
/// client has no credentials), `renewed` when it was re-sent with a renewed credential.
pub(crate) fn unauthorized(resp: &WireResponse, scheme: Option<&str>, renewed: bool) -> Error {
    let challenge = resp
        .headers
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
        node: resp.timing.node.clone(),
        scheme: scheme.map(str::to_string),
        challenge,
        hint,
    }
}
