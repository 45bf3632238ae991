//! Range-checked parsers of command-line numbers (clap `value_parser`s). A value out of range
//! is rejected with the range it must be in, never clamped; the arguments that use them also
//! allow negative numbers, so `--rtt -5` gets this message rather than clap's "unexpected
//! argument". [`SolrUrl`] checks every `--url` without printing it back.
//!
//! The argument groups several commands share live beside them: [`groups`] (target, output,
//! run, capture, transports) and [`wan`] (the WAN options); [`json`] (`--json`, and the one
//! way a run's report is printed) and [`fail_on`] (`--fail-on`, exit code 3).

pub mod fail_on;
pub mod groups;
pub mod json;
pub mod wan;

/// A whole number in `MIN..=MAX`, as `T` (`usize`, `u64`, `u32`).
pub fn count<T: TryFrom<u64>, const MIN: u64, const MAX: u64>(s: &str) -> Result<T, String> {
    let range = || format!("must be a whole number from {MIN} to {MAX}");
    let v: i128 = s.trim().parse().map_err(|_| range())?;
    if v < i128::from(MIN) || v > i128::from(MAX) {
        return Err(format!("{v} is out of range: {}", range()));
    }
    T::try_from(v as u64).map_err(|_| range())
}

/// Milliseconds of emulated delay (`--rtt`, `--jitter`): a finite number from 0 to 10000.
pub fn delay_ms(s: &str) -> Result<f64, String> {
    real_in(s, 0.0, 10_000.0, "ms")
}

/// A share from 0 to 1 (`--write-ratio`).
pub fn ratio(s: &str) -> Result<f64, String> {
    real_in(s, 0.0, 1.0, "")
}

/// Seconds, from 0 to one day (`--duration`, `--cell-seconds`, timeouts).
pub fn seconds(s: &str) -> Result<f64, String> {
    real_in(s, 0.0, 86_400.0, "s")
}

fn real_in(s: &str, min: f64, max: f64, unit: &str) -> Result<f64, String> {
    let range = || format!("must be a number from {min} to {max}{}", unit_suffix(unit));
    let v: f64 = s.trim().parse().map_err(|_| range())?;
    if !(v.is_finite() && (min..=max).contains(&v)) {
        return Err(format!("{v} is out of range: {}", range()));
    }
    Ok(v)
}

fn unit_suffix(unit: &str) -> String {
    if unit.is_empty() {
        String::new()
    } else {
        format!(" {unit}")
    }
}

/// The parser of every `--url`: [`check_solr_url`], with an error that does not repeat the
/// value (clap's own "invalid value '...'" would print the password back).
#[derive(Debug, Clone, Copy)]
pub struct SolrUrl;

impl clap::builder::TypedValueParser for SolrUrl {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<String, clap::Error> {
        checked(cmd, "--url", value, check_solr_url)
    }
}

/// `check(value)`, its error a clap error that names `flag` and not the value.
fn checked(
    cmd: &clap::Command,
    flag: &str,
    value: &std::ffi::OsStr,
    check: fn(&str) -> std::result::Result<String, String>,
) -> std::result::Result<String, clap::Error> {
    let fail = |m: String| {
        clap::Error::raw(
            clap::error::ErrorKind::ValueValidation,
            format!("{flag}: {m}\n"),
        )
        .with_cmd(cmd)
    };
    let raw = value.to_str().ok_or_else(|| fail("not UTF-8".into()))?;
    check(raw).map_err(fail)
}

/// Checks a `--url` value: an http(s) URL without user info. Credentials in the URL would be
/// written into every report, JSON and CSV file of the run, so they are refused with a message
/// that does not repeat them and says where they go instead (`SOLR_BASIC_AUTH`, which every
/// command taking `--url` reads).
pub fn check_solr_url(raw: &str) -> std::result::Result<String, String> {
    let url = url::Url::parse(raw).map_err(|e| format!("not a URL ({e})"))?;
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!(
            "user info (user:password@) is refused: the URL is written into the run's \
             reports; give the URL without it and the credentials in the environment, \
             {}=user:password",
            solr_harness::auth::ENV
        ));
    }
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("must be http or https, not {}", url.scheme()));
    }
    Ok(raw.to_string())
}

/// The parser of `--proxy`: [`check_proxy_url`], with an error that does not repeat the value
/// (a proxy URL with `user:password@` would be printed back by clap's own message).
#[derive(Debug, Clone, Copy)]
pub struct ProxyUrl;

impl clap::builder::TypedValueParser for ProxyUrl {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        _arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> std::result::Result<String, clap::Error> {
        checked(cmd, "--proxy", value, check_proxy_url)
    }
}

/// Checks a `--proxy` value as [`solr_client::Proxy::new`] does (an `http://`, `socks5://`
/// or `socks5h://` proxy, user info allowed) and returns it as `scheme://[user:pw@]host:port`,
/// the port written out: the pcap witness watches that port. Reports name it by
/// [`proxy_phrase`], which never shows the password.
pub fn check_proxy_url(raw: &str) -> std::result::Result<String, String> {
    let proxy = solr_client::Proxy::new(raw).map_err(|e| e.to_string())?;
    let any_http_node = url::Url::parse("http://solr.invalid/").map_err(|e| e.to_string())?;
    let url = proxy
        .for_node(&any_http_node)
        .ok_or_else(|| "no proxy for http nodes".to_string())?;
    let port = url
        .port_or_known_default()
        .ok_or_else(|| "no port".to_string())?;
    let host = url.host_str().ok_or_else(|| "no host".to_string())?;
    let raw = raw.trim();
    let given = url::Url::parse(raw)
        .ok()
        .filter(|_| raw.contains("://"))
        .or_else(|| url::Url::parse(&format!("http://{raw}")).ok());
    let user_info = match given {
        Some(u) if !u.username().is_empty() || u.password().is_some() => match u.password() {
            Some(pw) => format!("{}:{pw}@", u.username()),
            None => format!("{}@", u.username()),
        },
        _ => String::new(),
    };
    Ok(format!("{}://{user_info}{host}:{port}", url.scheme()))
}

/// A proxy URL as reports show it: the password, if any, as `***`.
pub fn masked_proxy_url(proxy: &str) -> String {
    match url::Url::parse(proxy) {
        Ok(mut url) => {
            if url.password().is_some() {
                let _ = url.set_password(Some("***"));
            }
            url.as_str().trim_end_matches('/').to_string()
        }
        Err(_) => "(not a URL)".to_string(),
    }
}

/// "the HTTP proxy http://host:port" or "the SOCKS5 proxy socks5h://host:port", for
/// reports ([`masked_proxy_url`]).
pub fn proxy_phrase(proxy: &str) -> String {
    let kind = if proxy.starts_with("socks5") {
        "SOCKS5"
    } else {
        "HTTP"
    };
    format!("the {kind} proxy {}", masked_proxy_url(proxy))
}

/// Parses `extra` as the options of one command whose options are `A` (for tests of option
/// handling in the modules that own `A`, without the whole command line).
#[cfg(test)]
pub(crate) fn try_parse<A: clap::Args>(
    cmd: &'static str,
    extra: &[&str],
) -> Result<A, clap::Error> {
    let command = A::augment_args(clap::Command::new(cmd).no_binary_name(true));
    let matches = command.try_get_matches_from(extra.iter().copied())?;
    A::from_arg_matches(&matches)
}

/// Gzip settings to compare (`--gzip`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GzipChoice {
    /// Without and with gzip.
    Both,
    /// With gzip only.
    On,
    /// Without gzip only.
    Off,
}

impl GzipChoice {
    /// The option's value as written (`both`, `on`, `off`), as the reports record it.
    pub fn as_str(self) -> &'static str {
        match self {
            GzipChoice::Both => "both",
            GzipChoice::On => "on",
            GzipChoice::Off => "off",
        }
    }

    /// The settings to run, `false` (no gzip) first.
    pub fn settings(self) -> Vec<bool> {
        match self {
            GzipChoice::Both => vec![false, true],
            GzipChoice::On => vec![true],
            GzipChoice::Off => vec![false],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_urls_are_normalized_credentials_kept_and_shown_masked() {
        assert_eq!(
            check_proxy_url("127.0.0.1:3128"),
            Ok("http://127.0.0.1:3128".into())
        );
        assert_eq!(
            check_proxy_url("http://proxy.example/"),
            Ok("http://proxy.example:80".into())
        );
        let with_pw = check_proxy_url("http://me:pr0xy-pw@127.0.0.1:3128").expect("userinfo");
        assert_eq!(
            with_pw, "http://me:pr0xy-pw@127.0.0.1:3128",
            "credentials kept"
        );
        assert_eq!(
            proxy_phrase(&with_pw),
            "the HTTP proxy http://me:***@127.0.0.1:3128"
        );
        let socks = check_proxy_url("socks5h://u:p%40w@127.0.0.1:1080").expect("socks");
        assert_eq!(socks, "socks5h://u:p%40w@127.0.0.1:1080");
        assert_eq!(
            proxy_phrase(&socks),
            "the SOCKS5 proxy socks5h://u:***@127.0.0.1:1080"
        );
        let e = check_proxy_url("https://me:pr0xy-pw@127.0.0.1:3128").expect_err("https proxy");
        assert!(e.contains("http://") && !e.contains("pr0xy-pw"), "{e}");
    }

    #[test]
    fn counts_and_reals_are_range_checked_not_clamped() {
        assert_eq!(count::<usize, 1, 10>("3"), Ok(3));
        assert_eq!(
            count::<usize, 1, 10>("0"),
            Err("0 is out of range: must be a whole number from 1 to 10".into())
        );
        assert!(count::<usize, 1, 10>("-2")
            .unwrap_err()
            .contains("from 1 to 10"));
        assert!(count::<u32, 1, 10>("x")
            .unwrap_err()
            .contains("from 1 to 10"));
        assert_eq!(delay_ms("20"), Ok(20.0));
        assert_eq!(
            delay_ms("-5"),
            Err("-5 is out of range: must be a number from 0 to 10000 ms".into())
        );
        assert!(delay_ms("NaN").is_err() && delay_ms("inf").is_err());
        assert!(ratio("1.5").is_err() && ratio("0.25") == Ok(0.25));
        assert!(seconds("-1").is_err());
        assert_eq!(GzipChoice::Both.settings(), [false, true]);
        assert_eq!(GzipChoice::On.settings(), [true]);
        assert_eq!(GzipChoice::Off.settings(), [false]);
        assert_eq!(GzipChoice::Off.as_str(), "off");
    }
}
