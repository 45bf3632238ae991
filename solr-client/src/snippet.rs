//! Body snippets: the first bytes of a response, as error messages quote them.

/// First `max` bytes of a body as text, for error messages.
pub(crate) fn snippet(body: &[u8], max: usize) -> String {
    let cut = &body[..body.len().min(max)];
    let mut s = String::from_utf8_lossy(cut).replace(['\n', '\r'], " ");
    if body.len() > max {
        s.push('…');
    }
    s
}
