//! Test support: parses a chart as XML and checks that every coordinate is a finite number.

use std::collections::HashMap;

use quick_xml::events::Event;
use quick_xml::Reader;

/// What a chart holds: elements by name, text nodes, the root's size.
pub struct Doc {
    /// Element counts by name.
    pub tags: HashMap<String, usize>,
    /// Every text node, unescaped.
    pub texts: Vec<String>,
    /// Width and height of the outermost `svg`.
    pub root_size: Option<(f64, f64)>,
}

impl Doc {
    /// How many `name` elements.
    pub fn count(&self, name: &str) -> usize {
        self.tags.get(name).copied().unwrap_or(0)
    }

    /// Some text node is exactly `t`.
    pub fn has_text(&self, t: &str) -> bool {
        self.texts.iter().any(|x| x == t)
    }
}

const NUMERIC: [&str; 11] = [
    "x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "width", "height",
];

/// Parses `svg`; an error names a malformed document or a non-numeric coordinate.
pub fn check(svg: &str) -> Result<Doc, String> {
    let mut r = Reader::from_str(svg);
    let mut doc = Doc {
        tags: HashMap::new(),
        texts: Vec::new(),
        root_size: None,
    };
    let mut text = String::new();
    loop {
        let ev = r.read_event().map_err(|e| e.to_string())?;
        match &ev {
            Event::Text(t) => text.push_str(&t.decode().map_err(|e| e.to_string())?),
            Event::GeneralRef(g) => text.push(entity(g)?),
            _ if !text.trim().is_empty() => doc.texts.push(std::mem::take(&mut text)),
            _ => text.clear(),
        }
        match ev {
            Event::Start(e) | Event::Empty(e) => element(&mut doc, &e)?,
            Event::Eof => return Ok(doc),
            _ => {}
        }
    }
}

fn entity(g: &quick_xml::events::BytesRef) -> Result<char, String> {
    if let Some(c) = g.resolve_char_ref().map_err(|e| e.to_string())? {
        return Ok(c);
    }
    match g.decode().map_err(|e| e.to_string())?.as_ref() {
        "lt" => Ok('<'),
        "gt" => Ok('>'),
        "amp" => Ok('&'),
        "quot" => Ok('"'),
        "apos" => Ok('\''),
        other => Err(format!("unknown entity &{other};")),
    }
}

fn element(doc: &mut Doc, e: &quick_xml::events::BytesStart) -> Result<(), String> {
    let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
    let mut size = (None, None);
    for a in e.attributes() {
        let a = a.map_err(|e| e.to_string())?;
        let key = String::from_utf8_lossy(a.key.as_ref()).into_owned();
        let v = String::from_utf8_lossy(&a.value).into_owned();
        let nums: Vec<&str> = match key.as_str() {
            k if NUMERIC.contains(&k) => vec![v.trim_end_matches('%')],
            "points" => v.split([' ', ',']).filter(|s| !s.is_empty()).collect(),
            _ => continue,
        };
        for n in nums {
            let f: f64 = n.parse().map_err(|_| format!("{name} {key}={v:?}"))?;
            if !f.is_finite() {
                return Err(format!("{name} {key}={v:?}"));
            }
        }
        match key.as_str() {
            "width" => size.0 = v.parse().ok(),
            "height" => size.1 = v.parse().ok(),
            _ => {}
        }
    }
    if let (true, None, (Some(w), Some(h))) = (name == "svg", doc.root_size, size) {
        doc.root_size = Some((w, h));
    }
    *doc.tags.entry(name).or_default() += 1;
    Ok(())
}
