//! A minimal ZIP writer (stored entries, no compression) for configset uploads: Solr's
//! `UPLOAD` takes a zip of the configset's files. No zip crate is in the build; a stored
//! archive needs only headers and a CRC-32 per file.

use std::path::Path;

use crate::error::{Error, Result};

/// Zips every file under `dir` (recursively, sorted, paths relative to `dir` with `/`) into
/// an in-memory archive of stored entries, as Solr's configset upload expects.
///
/// Errors ([`Error::InvalidInput`]): `dir` unreadable or not a directory, no file in it, a
/// path that is not UTF-8, a symbolic link (never followed, so nothing outside `dir` is
/// packed), or more than the plain ZIP format holds (65535 files, 4 GiB).
pub fn zip_directory(dir: impl AsRef<Path>) -> Result<Vec<u8>> {
    let dir = dir.as_ref();
    let mut files = Vec::new();
    collect(dir, dir, &mut files)?;
    if files.is_empty() {
        return Err(Error::invalid_input(format!(
            "{} holds no file to upload",
            dir.display()
        )));
    }
    files.sort();
    let mut entries = Vec::with_capacity(files.len());
    for name in files {
        let data = std::fs::read(dir.join(&name))
            .map_err(|e| Error::invalid_input(format!("cannot read {name}: {e}")))?;
        entries.push((name, data));
    }
    write_stored(&entries)
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<()> {
    let rd = std::fs::read_dir(dir).map_err(|e| {
        Error::invalid_input(format!("cannot read directory {}: {e}", dir.display()))
    })?;
    for entry in rd {
        let entry = entry
            .map_err(|e| Error::invalid_input(format!("cannot read {}: {e}", dir.display())))?;
        let path = entry.path();
        let ft = entry
            .file_type()
            .map_err(|e| Error::invalid_input(format!("cannot stat {}: {e}", path.display())))?;
        if ft.is_symlink() {
            return Err(Error::invalid_input(format!(
                "{} is a symbolic link; a configset upload packs regular files only",
                path.display()
            )));
        }
        if ft.is_dir() {
            collect(root, &path, out)?;
        } else if ft.is_file() {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            let mut name = String::new();
            for part in rel.components() {
                let s = part.as_os_str().to_str().ok_or_else(|| {
                    Error::invalid_input(format!("{} is not a UTF-8 path", path.display()))
                })?;
                if !name.is_empty() {
                    name.push('/');
                }
                name.push_str(s);
            }
            out.push(name);
        }
    }
    Ok(())
}

/// Writes `(name, data)` entries as a stored (uncompressed) ZIP archive.
pub(crate) fn write_stored(entries: &[(String, Vec<u8>)]) -> Result<Vec<u8>> {
    let too_big =
        |what: &str| Error::invalid_input(format!("configset too large for a zip: {what}"));
    if entries.len() > usize::from(u16::MAX) {
        return Err(too_big("more than 65535 files"));
    }
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = u32::try_from(out.len()).map_err(|_| too_big("over 4 GiB"))?;
        let size = u32::try_from(data.len()).map_err(|_| too_big("a file over 4 GiB"))?;
        let name_len = u16::try_from(name.len()).map_err(|_| too_big("a path over 64 KiB"))?;
        let crc = crc32fast::hash(data);
        // Local file header.
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        common_fields(&mut out, crc, size, name_len);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        // Central directory entry.
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // made by: 2.0
        common_fields(&mut central, crc, size, name_len);
        central.extend_from_slice(&0u16.to_le_bytes()); // comment length
        central.extend_from_slice(&0u16.to_le_bytes()); // disk number
        central.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
        central.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd_offset = u32::try_from(out.len()).map_err(|_| too_big("over 4 GiB"))?;
    let cd_size = u32::try_from(central.len()).map_err(|_| too_big("over 4 GiB"))?;
    out.extend_from_slice(&central);
    let n = entries.len() as u16;
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // this disk
    out.extend_from_slice(&0u16.to_le_bytes()); // disk with the central directory
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&cd_size.to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // comment length
    Ok(out)
}

/// The fields local header and central entry share, from "version needed" to "extra
/// length": version 2.0, UTF-8 names (bit 11), stored, 1980-01-01 00:00.
fn common_fields(out: &mut Vec<u8>, crc: u32, size: u32, name_len: u16) {
    out.extend_from_slice(&20u16.to_le_bytes()); // version needed: 2.0
    out.extend_from_slice(&0x0800u16.to_le_bytes()); // flags: UTF-8 names
    out.extend_from_slice(&0u16.to_le_bytes()); // method: stored
    out.extend_from_slice(&0u16.to_le_bytes()); // time
    out.extend_from_slice(&0x0021u16.to_le_bytes()); // date: 1980-01-01
    out.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes()); // compressed size
    out.extend_from_slice(&size.to_le_bytes()); // uncompressed size
    out.extend_from_slice(&name_len.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes()); // extra length
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u16_at(b: &[u8], at: usize) -> u16 {
        u16::from_le_bytes([b[at], b[at + 1]])
    }
    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
    }

    /// Reads the archive back through its central directory, as an unzipper does.
    fn read_back(z: &[u8]) -> Vec<(String, Vec<u8>)> {
        let eocd = z.len() - 22;
        assert_eq!(u32_at(z, eocd), 0x0605_4b50);
        let n = u16_at(z, eocd + 10) as usize;
        let mut at = u32_at(z, eocd + 16) as usize;
        let mut out = Vec::new();
        for _ in 0..n {
            assert_eq!(u32_at(z, at), 0x0201_4b50);
            let crc = u32_at(z, at + 16);
            let size = u32_at(z, at + 20) as usize;
            let name_len = u16_at(z, at + 28) as usize;
            let local = u32_at(z, at + 42) as usize;
            let name = String::from_utf8(z[at + 46..at + 46 + name_len].to_vec()).expect("utf8");
            assert_eq!(u32_at(z, local), 0x0403_4b50);
            let data_at = local + 30 + u16_at(z, local + 26) as usize;
            let data = z[data_at..data_at + size].to_vec();
            assert_eq!(crc32fast::hash(&data), crc);
            out.push((name, data));
            at += 46 + name_len;
        }
        out
    }

    #[test]
    fn a_directory_zips_to_sorted_relative_entries_that_read_back() {
        let dir = std::env::temp_dir().join(format!("solr-client-zip-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("lang")).expect("mkdir");
        std::fs::write(dir.join("solrconfig.xml"), b"<config/>").expect("write");
        std::fs::write(dir.join("lang/stopwords_en.txt"), b"a\nthe\n").expect("write");
        std::fs::write(dir.join("empty.txt"), b"").expect("write");
        let z = zip_directory(&dir).expect("zips");
        let entries = read_back(&z);
        assert_eq!(
            entries,
            vec![
                ("empty.txt".to_string(), Vec::new()),
                ("lang/stopwords_en.txt".to_string(), b"a\nthe\n".to_vec()),
                ("solrconfig.xml".to_string(), b"<config/>".to_vec()),
            ]
        );
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn an_empty_or_missing_directory_is_a_clear_error() {
        let dir =
            std::env::temp_dir().join(format!("solr-client-zip-empty-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("mkdir");
        let e = zip_directory(&dir).expect_err("empty");
        assert!(e.to_string().contains("no file"), "{e}");
        std::fs::remove_dir_all(&dir).expect("cleanup");
        let e = zip_directory(&dir).expect_err("missing");
        assert!(matches!(e, Error::InvalidInput(_)), "{e}");
    }

    #[test]
    fn crc_matches_the_zip_check_value() {
        // The CRC-32 check value of "123456789" (ISO-HDLC, as ZIP uses).
        assert_eq!(crc32fast::hash(b"123456789"), 0xCBF4_3926);
    }
}
