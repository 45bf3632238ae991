//! The files `solr.sh` needs, built into the program (`include_bytes!` of `local-solr/`:
//! the script, the launcher's pom and Java sources, Solr's configuration and the `bench`
//! and `default` configsets, ~150 KB), and their extraction into the harness's home folder.
//!
//! Extraction writes only the files that differ, so an unchanged home keeps its mtimes and
//! `solr.sh` does not build the launcher again. A home the harness did not make (no
//! [`MARKER`] file, not empty) is never written to: a differing file there is
//! [`Error::ForeignHome`].

use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use crate::error::{Error, Result};

/// The file that marks a folder as made (and owned) by the harness.
pub const MARKER: &str = ".solr-harness";

macro_rules! asset {
    ($path:literal) => {
        (
            $path,
            include_bytes!(concat!("../local-solr/", $path)) as &[u8],
        )
    };
}

/// Every file of `local-solr/` that `solr.sh` reads: (path relative to the home, content).
pub(crate) const FILES: &[(&str, &[u8])] = &[
    asset!("solr.sh"),
    asset!("conf/log4j2.xml"),
    asset!("conf/solr.xml"),
    asset!("conf/solr10.xml"),
    asset!("configsets/bench/conf/schema.xml"),
    asset!("configsets/bench/conf/solrconfig.xml"),
    asset!("configsets/default/conf/managed-schema.xml"),
    asset!("configsets/default/conf/solrconfig.xml"),
    asset!("launcher/pom.xml"),
    asset!("launcher/lenient-pom.py"),
    asset!("launcher/src/main/java/dev/solrbench/Args.java"),
    asset!("launcher/src/main/java/dev/solrbench/BulkIndex.java"),
    asset!("launcher/src/main/java/dev/solrbench/ExportStream.java"),
    asset!("launcher/src/main/java/dev/solrbench/Node.java"),
    asset!("launcher/src/main/java/dev/solrbench/SearchQtimes.java"),
    asset!("launcher/src/main/java/dev/solrbench/Zk.java"),
    asset!("launcher/src/solr10/java/dev/solrbench/Node.java"),
    asset!("launcher/src/solr10/java/dev/solrbench/Zk.java"),
    asset!("launcher/src/solr10/streaming/org/apache/solr/client/solrj/io/SolrClientCache.java"),
];

/// A short fingerprint of the embedded files (FNV-1a, 64 bits, as 8 hex digits): the default
/// home's folder name carries it, so two builds with different scripts never share a folder.
pub(crate) fn fingerprint() -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for (path, body) in FILES {
        for b in path
            .bytes()
            .chain([0])
            .chain(body.iter().copied())
            .chain([0])
        {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    format!("{:08x}", h >> 32)
}

/// Puts every embedded file into `home`, writing only those that are missing or differ;
/// returns how many were written.
pub(crate) fn extract(home: &Path) -> Result<usize> {
    let owned = claim(home)?;
    let mut written = 0;
    for (rel, body) in FILES {
        let path = home.join(rel);
        match fs::read(&path) {
            Ok(have) if have == *body => continue,
            Ok(_) if !owned => {
                return Err(Error::ForeignHome {
                    home: home.to_path_buf(),
                    path,
                })
            }
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io("read", path, e)),
        }
        write_atomically(&path, body)?;
        written += 1;
    }
    Ok(written)
}

/// Whether the harness owns `home`: it holds the marker, or it is new or empty (then the
/// marker is written).
fn claim(home: &Path) -> Result<bool> {
    let marker = home.join(MARKER);
    if marker.is_file() {
        return Ok(true);
    }
    let empty = match fs::read_dir(home) {
        Ok(mut entries) => entries.next().is_none(),
        Err(e) if e.kind() == ErrorKind::NotFound => true,
        Err(e) => return Err(Error::io("read", home, e)),
    };
    if empty {
        fs::create_dir_all(home).map_err(|e| Error::io("create", home, e))?;
        let note =
            "solr-harness extracts its copy of local-solr/ here; run/ holds the instances.\n";
        write_atomically(&marker, note.as_bytes())?;
    }
    Ok(empty)
}

/// Writes through a temporary file and a rename, so a concurrent reader (another test
/// process extracting the same home) sees the old or the new file, never half of one.
fn write_atomically(path: &Path, body: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("file");
    let tmp = dir.join(format!(".{name}.tmp.{}", std::process::id()));
    fs::write(&tmp, body).map_err(|e| Error::io("write", &tmp, e))?;
    fs::rename(&tmp, path).map_err(|e| Error::io("write", path, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("solr-harness-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    /// Every file of this repository's `local-solr/` that `solr.sh` may read is embedded
    /// (a new Java source or configset file must be added to FILES).
    #[test]
    fn every_local_solr_file_is_embedded() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("local-solr");
        let mut on_disk = BTreeSet::new();
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            for e in fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                let rel = p
                    .strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                let skip = rel == "run" || rel.starts_with("launcher/target") || rel == "README.md";
                if skip || rel.split('/').any(|c| c.starts_with('.')) {
                    continue;
                }
                if p.is_dir() {
                    stack.push(p);
                } else {
                    on_disk.insert(rel);
                }
            }
        }
        let embedded: BTreeSet<String> = FILES.iter().map(|(p, _)| p.to_string()).collect();
        assert_eq!(embedded, on_disk);
    }

    #[test]
    fn extraction_writes_what_differs_and_only_into_its_own_home() {
        let home = temp("extract");
        assert_eq!(extract(&home).unwrap(), FILES.len());
        assert!(home.join(MARKER).is_file());
        assert_eq!(
            extract(&home).unwrap(),
            0,
            "an unchanged home is left alone"
        );
        fs::write(home.join("conf/solr.xml"), "edited").unwrap();
        assert_eq!(extract(&home).unwrap(), 1);
        assert_eq!(fs::read(home.join("conf/solr.xml")).unwrap(), FILES[2].1);

        // A folder the harness did not make: a differing file is an error, never overwritten.
        fs::remove_file(home.join(MARKER)).unwrap();
        fs::write(home.join("solr.sh"), "echo mine").unwrap();
        match extract(&home) {
            Err(Error::ForeignHome { path, .. }) => assert_eq!(path, home.join("solr.sh")),
            other => panic!("expected ForeignHome: {other:?}"),
        }
        assert_eq!(
            fs::read_to_string(home.join("solr.sh")).unwrap(),
            "echo mine"
        );
        fs::remove_dir_all(&home).unwrap();
    }
}
