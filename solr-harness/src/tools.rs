//! The programs `solr.sh` runs, looked up on `PATH` before it starts: a missing one is
//! [`Error::MissingTool`] naming it, instead of a script failing halfway.

use std::ffi::OsStr;
use std::path::Path;

use crate::error::{Error, Result};

const JDK: &str = "a JDK 17 or later, e.g. apt-get install openjdk-17-jdk-headless";

/// (program, what for, how to install it), in the order they are needed.
const TOOLS: &[(&str, &str, &str)] = &[
    ("bash", "run solr.sh", "apt-get install bash"),
    ("java", "run Solr (Java 17 or later)", JDK),
    ("javac", "compile the small Solr launcher", JDK),
    ("keytool", "make the local TLS trust store", JDK),
    (
        "mvn",
        "fetch Solr's jars from Maven Central",
        "apt-get install maven",
    ),
    ("curl", "wait until Solr answers", "apt-get install curl"),
    (
        "openssl",
        "make the local TLS certificates",
        "apt-get install openssl",
    ),
    ("flock", "lock an instance", "apt-get install util-linux"),
];

/// Checks that every program `solr.sh` needs is an executable file in one of `path`'s
/// folders (`path` is a `PATH` value).
pub(crate) fn check(path: Option<&OsStr>) -> Result<()> {
    let dirs: Vec<_> = path
        .map(|p| std::env::split_paths(p).collect())
        .unwrap_or_default();
    for &(tool, purpose, install) in TOOLS {
        if !dirs.iter().any(|d| is_executable(&d.join(tool))) {
            return Err(Error::MissingTool {
                tool,
                purpose,
                install,
            });
        }
    }
    Ok(())
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_missing_tool_is_named() {
        let dir = std::env::temp_dir().join(format!("solr-harness-tools-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for (tool, _, _) in TOOLS.iter().filter(|(t, _, _)| *t != "mvn") {
            let f = dir.join(tool);
            std::fs::write(&f, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let err = check(Some(dir.as_os_str())).unwrap_err();
        assert!(
            matches!(err, Error::MissingTool { tool: "mvn", .. }),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "mvn not found on PATH: solr-harness needs it to fetch Solr's jars from Maven \
             Central (apt-get install maven)"
        );
        // Present but not executable is missing too.
        std::fs::write(dir.join("mvn"), "#!/bin/sh\n").unwrap();
        let err = check(Some(dir.as_os_str())).unwrap_err();
        assert!(
            matches!(err, Error::MissingTool { tool: "mvn", .. }),
            "{err:?}"
        );
        std::fs::set_permissions(dir.join("mvn"), std::fs::Permissions::from_mode(0o755)).unwrap();
        check(Some(dir.as_os_str())).expect("every tool present");

        let err = check(None).unwrap_err();
        assert!(
            matches!(err, Error::MissingTool { tool: "bash", .. }),
            "{err:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
