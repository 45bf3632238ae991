//! The one CSV path: serde records written by the `csv` crate, which quotes a field holding a
//! comma, a quote or a line break (RFC 4180), so a transport label like `pooled(8,gzip)` stays
//! one column.
//!
//! Records must be flat structs (no nested structs or maps); the header comes from their
//! field names. An `Option` that is `None` is an empty field. With no records there is no
//! header either: the file is empty.
//!
//! ```
//! #[derive(serde::Serialize)]
//! struct Row<'a> { transport: &'a str, p50_ms: Option<f64> }
//! let text = bench_report::csv_out::to_string(&[
//!     Row { transport: "pooled(8,gzip)", p50_ms: Some(1.5) },
//!     Row { transport: "fresh", p50_ms: None },
//! ]).unwrap();
//! assert_eq!(text, "transport,p50_ms\n\"pooled(8,gzip)\",1.5\nfresh,\n");
//! ```

use std::io::Write;
use std::path::Path;

use serde::Serialize;

/// A CSV failure: the file could not be written or a record could not be serialised.
pub type Error = csv::Error;

/// Writes `rows` as CSV (header from the field names) into `w`.
pub fn write<W: Write, R: Serialize>(w: W, rows: &[R]) -> Result<(), Error> {
    let mut out = csv::Writer::from_writer(w);
    for row in rows {
        out.serialize(row)?;
    }
    out.flush()?;
    Ok(())
}

/// `rows` as CSV text.
pub fn to_string<R: Serialize>(rows: &[R]) -> Result<String, Error> {
    let mut buf = Vec::new();
    write(&mut buf, rows)?;
    Ok(String::from_utf8(buf).expect("csv writes the UTF-8 it is given"))
}

/// Writes `rows` as CSV into the file `path` (created or truncated).
pub fn write_csv<R: Serialize>(path: &Path, rows: &[R]) -> Result<(), Error> {
    write(std::io::BufWriter::new(std::fs::File::create(path)?), rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row {
        name: String,
        n: u64,
        ms: Option<f64>,
        ok: bool,
    }

    #[test]
    fn quotes_commas_quotes_and_newlines() {
        let rows = [
            Row {
                name: "a,b".into(),
                n: 1,
                ms: Some(0.25),
                ok: true,
            },
            Row {
                name: "say \"hi\"".into(),
                n: 2,
                ms: None,
                ok: false,
            },
            Row {
                name: "two\nlines".into(),
                n: 3,
                ms: Some(10.0),
                ok: true,
            },
        ];
        assert_eq!(
            to_string(&rows).unwrap(),
            "name,n,ms,ok\n\"a,b\",1,0.25,true\n\"say \"\"hi\"\"\",2,,false\n\"two\nlines\",3,10.0,true\n"
        );
    }

    #[test]
    fn no_rows_is_an_empty_file_and_files_round_trip() {
        assert_eq!(to_string::<Row>(&[]).unwrap(), "");
        let dir = std::env::temp_dir().join(format!("bench-report-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rows.csv");
        let rows = [Row {
            name: "x".into(),
            n: 7,
            ms: None,
            ok: true,
        }];
        write_csv(&path, &rows).unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "name,n,ms,ok\nx,7,,true\n"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
