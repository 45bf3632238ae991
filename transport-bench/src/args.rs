//! Range-checked parsers of command-line numbers (clap `value_parser`s). A value out of range
//! is rejected with the range it must be in, never clamped; the arguments that use them also
//! allow negative numbers, so `--rtt -5` gets this message rather than clap's "unexpected
//! argument".

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

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
