//! Command lines as reports show them: secrets replaced by `***`. A process's arguments
//! often carry them (`-Djavax.net.ssl.trustStorePassword=...`, `--password x`,
//! `http://user:pass@host`, `-H "Authorization: Bearer ..."`, `-u user:pass`), and a report
//! is shared more widely than the host it was made on.

/// The mark that stands for a removed secret.
pub const REDACTED: &str = "***";

/// Parts of a name that mark its value as a secret (compared in lower case).
const SECRET_WORDS: &[&str] = &[
    "pass",
    "pwd",
    "secret",
    "token",
    "credential",
    "apikey",
    "api-key",
    "api_key",
    "private",
    "auth",
];

/// Whether a flag, property or variable name names a secret.
fn is_secret_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    SECRET_WORDS.iter().any(|w| lower.contains(w))
}

/// What an argument says of the one after it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    /// An ordinary argument.
    Plain,
    /// A secret (`--password x`).
    Secret,
    /// `user:password` (`-u`, `--user`): the user is kept.
    UserPassword,
}

/// The arguments joined by spaces, each secret replaced by [`REDACTED`].
pub fn redacted(args: &[String]) -> String {
    let mut out = Vec::with_capacity(args.len());
    let mut next = Next::Plain;
    for arg in args {
        let text = match next {
            Next::Secret => REDACTED.to_string(),
            Next::UserPassword => match arg.split_once(':') {
                Some((user, _)) => format!("{user}:{REDACTED}"),
                None => arg.clone(),
            },
            Next::Plain => {
                let (text, after) = redact_arg(arg);
                next = after;
                out.push(text);
                continue;
            }
        };
        out.push(text);
        next = Next::Plain;
    }
    out.join(" ")
}

/// One argument redacted, and what it says of the next one.
fn redact_arg(arg: &str) -> (String, Next) {
    let arg = redact_url_user_info(arg);
    if let Some(flag) = arg.strip_prefix('-') {
        let name = flag.trim_start_matches('-');
        if let Some((key, _)) = name.split_once('=') {
            if is_secret_name(key) {
                let cut = arg.len() - name.len() + key.len() + 1;
                return (format!("{}{REDACTED}", &arg[..cut]), Next::Plain);
            }
            return (arg, Next::Plain);
        }
        let next = if name == "u" || name == "user" {
            Next::UserPassword
        } else if is_secret_name(name) {
            Next::Secret
        } else {
            Next::Plain
        };
        return (arg, next);
    }
    if let Some((name, _)) = arg.split_once(':') {
        let header = name.trim().to_ascii_lowercase();
        if header == "authorization" || header == "proxy-authorization" || is_secret_name(&header) {
            return (format!("{name}: {REDACTED}"), Next::Plain);
        }
    }
    if let Some((key, _)) = arg.split_once('=') {
        if !key.is_empty() && !key.contains(' ') && is_secret_name(key) {
            return (format!("{key}={REDACTED}"), Next::Plain);
        }
    }
    (arg, Next::Plain)
}

/// `scheme://user:pass@host` as `scheme://user:***@host`, anywhere in the argument.
fn redact_url_user_info(arg: &str) -> String {
    let Some(start) = arg.find("://") else {
        return arg.to_string();
    };
    let rest = &arg[start + 3..];
    let authority_end = rest.find(['/', '?', '#', ' ']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let Some(at) = authority.rfind('@') else {
        return arg.to_string();
    };
    let user = authority[..at].split(':').next().unwrap_or("");
    format!("{}://{user}:{REDACTED}@{}", &arg[..start], &rest[at + 1..])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(line: &str) -> String {
        let args: Vec<String> = line.split(' ').map(str::to_string).collect();
        redacted(&args)
    }

    #[test]
    fn java_properties_flags_urls_and_headers_lose_their_secrets() {
        let cases = [
            (
                "java -Djavax.net.ssl.trustStorePassword=changeit -Dsolr.port=8983 -jar start.jar",
                "java -Djavax.net.ssl.trustStorePassword=*** -Dsolr.port=8983 -jar start.jar",
            ),
            (
                "app --password hunter2 --port 80",
                "app --password *** --port 80",
            ),
            (
                "app --api-key=abc123 --verbose",
                "app --api-key=*** --verbose",
            ),
            (
                "curl http://solr:SolrRocks@127.0.0.1:8983/solr/bench/select?q=*:*",
                "curl http://solr:***@127.0.0.1:8983/solr/bench/select?q=*:*",
            ),
            (
                "curl -u solr:SolrRocks http://h/",
                "curl -u solr:*** http://h/",
            ),
            (
                "env SOLR_AUTH_TOKEN=xyz php app.php",
                "env SOLR_AUTH_TOKEN=*** php app.php",
            ),
            ("ruby app.rb --token s3cr3t", "ruby app.rb --token ***"),
        ];
        for (line, want) in cases {
            assert_eq!(r(line), want, "{line}");
        }
    }

    #[test]
    fn a_header_argument_keeps_its_name_only() {
        let args = vec![
            "curl".to_string(),
            "-H".to_string(),
            "Authorization: Bearer eyJhbGciOi".to_string(),
            "http://h/".to_string(),
        ];
        let out = redacted(&args);
        assert_eq!(out, "curl -H Authorization: *** http://h/");
        assert!(!out.contains("eyJ"));
    }

    #[test]
    fn ordinary_command_lines_are_unchanged() {
        for line in [
            "python3 client.py --rows 10 http://127.0.0.1:8983/solr",
            "php -d memory_limit=1G app.php",
            "java -Xmx512m -cp a.jar Main q=title:solr",
        ] {
            assert_eq!(r(line), line);
        }
    }
}
