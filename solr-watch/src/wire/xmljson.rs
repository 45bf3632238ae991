//! How large an XML `<add>` body would be as JSON: the same documents, field names and
//! values written as `[{"name":"value",...},...]`, sized without building it. An estimate
//! for the update-format finding, not a converter.

fn find_from(h: &[u8], n: &[u8], from: usize) -> Option<usize> {
    h.get(from..)?
        .windows(n.len())
        .position(|w| w == n)
        .map(|p| p + from)
}

/// Length of an XML text once its entities (`&amp;`, `&#10;`, ...) are resolved.
fn text_len(v: &[u8]) -> u64 {
    let mut n = 0u64;
    let mut i = 0;
    while i < v.len() {
        if v[i] == b'&' {
            if let Some(end) = v[i..].iter().take(10).position(|b| *b == b';') {
                i += end + 1;
                n += 1;
                continue;
            }
        }
        // JSON escapes quotes, backslashes and control characters.
        n += if matches!(v[i], b'"' | b'\\' | b'\n' | b'\t' | b'\r') {
            2
        } else {
            1
        };
        i += 1;
    }
    n
}

/// Estimated JSON size of the documents in an XML update body; None when it holds no
/// `<doc>` with fields.
pub fn estimate(xml: &[u8]) -> Option<u64> {
    let mut docs = 0u64;
    let mut pos = 0;
    while let Some(i) = find_from(xml, b"<doc", pos) {
        if matches!(
            xml.get(i + 4),
            Some(b'>') | Some(b' ') | Some(b'\t') | Some(b'\n') | Some(b'\r')
        ) {
            docs += 1;
        }
        pos = i + 4;
    }
    let mut fields = 0u64;
    let mut size = 2 + docs * 3; // [ ] and {},
    let mut pos = 0;
    while let Some(i) = find_from(xml, b"<field", pos) {
        let Some(gt) = find_from(xml, b">", i) else {
            break;
        };
        let tag = &xml[i..gt];
        let name_len = find_from(tag, b"name=\"", 0)
            .and_then(|s| find_from(tag, b"\"", s + 6).map(|e| (e - s - 6) as u64))
            .unwrap_or(0);
        let (value, next) = if tag.ends_with(b"/") {
            (0, gt + 1)
        } else {
            let Some(end) = find_from(xml, b"</field>", gt) else {
                break;
            };
            (text_len(&xml[gt + 1..end]), end + 8)
        };
        // "name":"value",
        size += name_len + 3 + value + 2 + 1;
        fields += 1;
        pos = next;
    }
    (docs > 0 && fields > 0).then_some(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimate_matches_a_hand_written_json() {
        let xml = br#"<add><doc><field name="id">a1</field><field name="title">Tom &amp; Jerry</field></doc><doc><field name="id">a2</field></doc></add>"#;
        let json = br#"[{"id":"a1","title":"Tom & Jerry"},{"id":"a2"}]"#;
        let est = estimate(xml).expect("docs");
        let real = json.len() as u64;
        assert!(est.abs_diff(real) <= 4, "estimate {est} vs {real}");
        assert_eq!(estimate(b"<delete><id>1</id></delete>"), None);
        assert_eq!(estimate(b"<doc><field name=\"x"), None);
    }
}
