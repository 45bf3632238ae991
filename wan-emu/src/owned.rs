//! Network namespaces this process created for its client alone, so that a kernel counter
//! read inside one counts that client and nobody else (the bench's kernel witness asks
//! [`thread_is_isolated`]).

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::Mutex;

use anyhow::{Context, Result};

/// Network namespaces this process created for its client, by (device, inode) of their
/// nsfs file.
static OWNED: Mutex<Option<HashSet<(u64, u64)>>> = Mutex::new(None);

/// The (device, inode) id of the namespace file at `path`.
pub fn ns_id(path: &Path) -> Result<(u64, u64)> {
    let m = std::fs::metadata(path).with_context(|| format!("cannot stat {}", path.display()))?;
    Ok((m.dev(), m.ino()))
}

/// Records the namespace at `path` (e.g. `/run/netns/NAME`) as one only this process's
/// client uses: a kernel counter read by a thread inside it is isolated.
pub fn register_owned(path: &Path) -> Result<()> {
    let id = ns_id(path)?;
    let mut g = OWNED.lock().unwrap_or_else(|e| e.into_inner());
    g.get_or_insert_with(HashSet::new).insert(id);
    Ok(())
}

/// Forgets a namespace registered with [`register_owned`] (before it is deleted: its
/// inode number may be reused).
pub fn forget_owned_path(path: &Path) {
    if let Ok(id) = ns_id(path) {
        forget_owned(id);
    }
}

/// Forgets a namespace by its (device, inode) id.
pub fn forget_owned(id: (u64, u64)) {
    let mut g = OWNED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(set) = g.as_mut() {
        set.remove(&id);
    }
}

/// Whether the calling thread runs in a namespace registered with [`register_owned`], so
/// that its `/proc/thread-self/net` counters count this process's client only.
pub fn thread_is_isolated() -> bool {
    let Ok(id) = ns_id(Path::new("/proc/thread-self/ns/net")) else {
        return false;
    };
    OWNED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .is_some_and(|s| s.contains(&id))
}
