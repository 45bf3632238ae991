//! The incremental scanner under every tuple stream: it finds the `docs` array of Solr's
//! streaming JSON (`{"result-set":{"docs":[...]}}` from `/stream` and `/sql`,
//! `{"responseHeader":...,"response":{"numFound":N,"docs":[...]}}` from `/export`) in a body
//! fed chunk by chunk, and hands out each element's bytes as soon as its closing brace has
//! arrived. It holds the current chunk and, for an element split across chunks, that one
//! element's bytes: never the whole body.

use bytes::Bytes;

/// What the scanner found next.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Step<'a> {
    /// The bytes of one element of `docs` (a JSON object).
    Tuple(&'a [u8]),
    /// The chunk is used up: feed the next ([`Scanner::push`]).
    NeedMore,
    /// The `docs` array closed.
    End,
}

/// Why a body is not a tuple stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ScanError {
    /// It does not start as a JSON object (an HTML page, plain text).
    NotJson,
    /// An element of `docs` is not an object, or is larger than the limit.
    BadElement(String),
    /// The body ended before the `docs` array closed.
    Truncated(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before the first byte that is not whitespace.
    Start,
    /// Inside the envelope, looking for `"docs"` `:` `[`.
    Seek,
    /// Inside `docs`, between elements.
    Between,
    /// Inside an element.
    Element,
    /// After `docs` closed.
    Done,
}

/// See the module docs.
#[derive(Debug)]
pub(crate) struct Scanner {
    chunk: Bytes,
    pos: usize,
    phase: Phase,
    /// Inside a string literal, and whether the last byte was a backslash.
    in_string: bool,
    escaped: bool,
    /// Depth of `{`/`[` inside the current element (or in the envelope while seeking).
    depth: usize,
    /// The last string literal of the envelope (up to 16 bytes), and whether a `:` followed.
    key: Vec<u8>,
    key_colon: bool,
    /// Where the current element began in `chunk`, when it began in this chunk.
    start: Option<usize>,
    /// The bytes of an element begun in an earlier chunk.
    carried: Vec<u8>,
    /// `carried` was handed out and must be cleared before the next element.
    clear: bool,
    limit: usize,
}

impl Scanner {
    /// A scanner refusing elements over `limit` bytes.
    pub(crate) fn new(limit: usize) -> Self {
        Scanner {
            chunk: Bytes::new(),
            pos: 0,
            phase: Phase::Start,
            in_string: false,
            escaped: false,
            depth: 0,
            key: Vec::new(),
            key_colon: false,
            start: None,
            carried: Vec::new(),
            clear: false,
            limit,
        }
    }

    /// Feeds the next chunk (after [`Step::NeedMore`]).
    pub(crate) fn push(&mut self, chunk: Bytes) {
        self.chunk = chunk;
        self.pos = 0;
    }

    /// The body has ended: an error unless the `docs` array closed.
    pub(crate) fn finish(&self) -> Result<(), ScanError> {
        match self.phase {
            Phase::Done => Ok(()),
            Phase::Start => Err(ScanError::Truncated("the body is empty")),
            Phase::Seek => Err(ScanError::Truncated("the body has no docs array")),
            Phase::Between | Phase::Element => {
                Err(ScanError::Truncated("the body ended inside the docs array"))
            }
        }
    }

    /// Scans on from where it stopped.
    pub(crate) fn step(&mut self) -> Result<Step<'_>, ScanError> {
        if self.clear {
            self.carried.clear();
            self.clear = false;
        }
        while self.pos < self.chunk.len() {
            let b = self.chunk[self.pos];
            self.pos += 1;
            match self.phase {
                Phase::Start => match b {
                    b' ' | b'\t' | b'\r' | b'\n' => {}
                    b'{' => self.phase = Phase::Seek,
                    _ => return Err(ScanError::NotJson),
                },
                Phase::Seek => self.seek(b),
                Phase::Between => match b {
                    b' ' | b'\t' | b'\r' | b'\n' | b',' => {}
                    b'{' => {
                        self.phase = Phase::Element;
                        self.depth = 1;
                        self.start = Some(self.pos - 1);
                    }
                    b']' => {
                        self.phase = Phase::Done;
                        return Ok(Step::End);
                    }
                    other => {
                        return Err(ScanError::BadElement(format!(
                            "an element of docs starts with {:?}, not an object",
                            other as char
                        )))
                    }
                },
                Phase::Element => {
                    if self.element(b) {
                        return Ok(Step::Tuple(self.take_element()?));
                    }
                }
                Phase::Done => return Ok(Step::End),
            }
        }
        if self.phase == Phase::Done {
            return Ok(Step::End);
        }
        if self.phase == Phase::Element {
            let start = self.start.take().unwrap_or(0);
            self.carry(start, self.chunk.len())?;
        }
        // Used up: asked again before the next chunk, the scanner finds nothing to carry.
        self.chunk = Bytes::new();
        self.pos = 0;
        Ok(Step::NeedMore)
    }

    /// One byte of an element; true when it closed the element.
    fn element(&mut self, b: u8) -> bool {
        if self.in_string {
            match (self.escaped, b) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => self.in_string = false,
                _ => {}
            }
            return false;
        }
        match b {
            b'"' => self.in_string = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                return self.depth == 0;
            }
            _ => {}
        }
        false
    }

    /// The element that just closed at `pos - 1`: a slice of the chunk, or the carried bytes.
    fn take_element(&mut self) -> Result<&[u8], ScanError> {
        self.phase = Phase::Between;
        match self.start.take() {
            Some(start) if self.carried.is_empty() => {
                if self.pos - start > self.limit {
                    return Err(self.too_large());
                }
                Ok(&self.chunk[start..self.pos])
            }
            start => {
                self.carry(start.unwrap_or(0), self.pos)?;
                self.clear = true;
                Ok(&self.carried)
            }
        }
    }

    fn carry(&mut self, from: usize, to: usize) -> Result<(), ScanError> {
        if self.carried.len() + (to - from) > self.limit {
            return Err(self.too_large());
        }
        self.carried.extend_from_slice(&self.chunk[from..to]);
        Ok(())
    }

    fn too_large(&self) -> ScanError {
        ScanError::BadElement(format!("a tuple is larger than {} bytes", self.limit))
    }

    /// One byte of the envelope: remembers the last short key, and enters `docs` at the `[`
    /// after `"docs":`.
    fn seek(&mut self, b: u8) {
        if self.in_string {
            match (self.escaped, b) {
                (true, _) => self.escaped = false,
                (false, b'\\') => self.escaped = true,
                (false, b'"') => self.in_string = false,
                (false, c) if self.key.len() < 16 => self.key.push(c),
                _ => self.key.clear(),
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                self.key.clear();
                self.key_colon = false;
            }
            b':' => self.key_colon = true,
            b'[' if self.key_colon && self.key == b"docs" => {
                self.phase = Phase::Between;
                self.key.clear();
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            _ => {
                self.key.clear();
                self.key_colon = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of `body` fed in chunks of the given cuts, as strings, then the end.
    fn scan(body: &[u8], cuts: &[usize]) -> Result<Vec<String>, ScanError> {
        let mut s = Scanner::new(1 << 20);
        let mut out = Vec::new();
        let mut prev = 0;
        let mut bounds: Vec<usize> = cuts.to_vec();
        bounds.push(body.len());
        for end in bounds {
            s.push(Bytes::copy_from_slice(&body[prev..end]));
            prev = end;
            loop {
                match s.step()? {
                    Step::Tuple(t) => out.push(String::from_utf8_lossy(t).into_owned()),
                    Step::NeedMore => {
                        // A reader whose body is not ready asks again before the next chunk.
                        assert_eq!(s.step()?, Step::NeedMore);
                        break;
                    }
                    Step::End => return Ok(out),
                }
            }
        }
        s.finish()?;
        Ok(out)
    }

    const STREAM: &str = r#"{"result-set":{"docs":[{"id":"a}\"{","n":[1,{"x":2}]},
        {"id":"b"},{"EOF":true,"RESPONSE_TIME":3}]}}"#;
    const EXPORT: &str = r#"{"responseHeader":{"status":0,"docs":"no"},"response":{"numFound":2,
        "docs":[{"id":"a"},{"id":"b"}]}}"#;

    /// Cut at every byte offset (and at every pair of offsets), the elements are the same.
    #[test]
    fn every_chunk_boundary_gives_the_same_tuples() {
        for (body, n) in [(STREAM, 3), (EXPORT, 2)] {
            let whole = scan(body.as_bytes(), &[]).expect("whole");
            assert_eq!(whole.len(), n, "{whole:?}");
            assert_eq!(whole[0].chars().next(), Some('{'));
            for i in 0..=body.len() {
                assert_eq!(
                    scan(body.as_bytes(), &[i]).expect("cut"),
                    whole,
                    "cut at {i}"
                );
                for j in (i..=body.len()).step_by(5) {
                    assert_eq!(scan(body.as_bytes(), &[i, j]).expect("2 cuts"), whole);
                }
            }
        }
        assert_eq!(
            scan(STREAM.as_bytes(), &[]).expect("whole")[0],
            r#"{"id":"a}\"{","n":[1,{"x":2}]}"#
        );
    }

    /// HTML, an empty body, a body cut inside docs, a non-object element and an element over
    /// the limit are errors, never a panic.
    #[test]
    fn bad_bodies_are_errors() {
        assert_eq!(scan(b"<html>502</html>", &[]), Err(ScanError::NotJson));
        assert!(matches!(scan(b"", &[]), Err(ScanError::Truncated(_))));
        assert!(matches!(
            scan(b"{\"a\":1}", &[]),
            Err(ScanError::Truncated(_))
        ));
        let cut = &STREAM.as_bytes()[..40];
        assert!(matches!(scan(cut, &[20]), Err(ScanError::Truncated(_))));
        assert!(matches!(
            scan(br#"{"docs":[1]}"#, &[]),
            Err(ScanError::BadElement(_))
        ));
        let mut s = Scanner::new(8);
        s.push(Bytes::from_static(br#"{"docs":[{"id":"0123456789"}]}"#));
        assert!(matches!(s.step(), Err(ScanError::BadElement(_))));
    }
}
