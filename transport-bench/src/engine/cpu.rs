//! Client CPU time of this process, for the commands that report CPU per request or per
//! document.

use std::time::Duration;

/// CPU time (user + system) this process has used so far, every thread included
/// (`CLOCK_PROCESS_CPUTIME_ID`); zero when the clock cannot be read.
pub fn process_cpu() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_PROCESS_CPUTIME_ID)
        .map(Duration::from)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #[test]
    fn process_cpu_advances_with_work() {
        let a = super::process_cpu();
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        assert!(super::process_cpu() > a);
    }
}
