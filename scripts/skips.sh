#!/usr/bin/env bash
# The skip ledger: what the checks did not check, and why. scripts/test.sh creates the file
# and names it in SKIP_LEDGER; every script and test that skips a check appends one line
#   WHAT <TAB> WHY <TAB> INSTALLABLE
# (the Rust tests through tests/tests/support/skip.rs). INSTALLABLE is `yes` when
# scripts/setup.sh installs what the check needs (the skip then means the set-up did not do
# its job) and `no` when nothing this machine can reach provides it. test.sh's last line
# lists every skip; with CI=true an installable skip fails the run.
#
#   source scripts/skips.sh
#   skip_record WHAT WHY yes|no     append one line (and say SKIPPED on stderr)
#   skip_summary LEDGER             the closing line; status 1 when CI=true and a skip was
#                                   installable

# skip_record WHAT WHY yes|no: records one skipped check (no ledger: stderr only).
skip_record() {
  local what="${1//$'\t'/ }" why="${2//$'\t'/ }" installable="$3"
  case "$installable" in
    yes | no) ;;
    *) echo "skip_record: INSTALLABLE must be yes or no, not '$installable'" >&2; return 2 ;;
  esac
  echo "SKIPPED: $what: $why" >&2
  if [ -n "${SKIP_LEDGER:-}" ]; then
    printf '%s\t%s\t%s\n' "$what" "$why" "$installable" >>"$SKIP_LEDGER"
  fi
}

# skip_list LEDGER [yes]: the distinct skips as `what (why); what (why)` (only the
# installable ones with `yes`), in the order they were recorded.
skip_list() {
  awk -F'\t' -v only="${2:-}" '
    NF && !seen[$0]++ && (only == "" || $3 == only) {
      printf "%s%s (%s)", (n++ ? "; " : ""), $1, $2
    }' "$1"
}

# skip_count LEDGER [yes]: how many distinct skips (installable ones only with `yes`).
skip_count() {
  awk -F'\t' -v only="${2:-}" 'NF && !seen[$0]++ && (only == "" || $3 == only) { n++ }
    END { print n + 0 }' "$1"
}

# skip_summary LEDGER: prints `done: all checks passed, N skipped: what (why); ...` (or
# `..., 0 skipped`). With CI=true and a skip whose prerequisite scripts/setup.sh installs,
# prints why the run fails instead and returns 1.
skip_summary() {
  local ledger="$1" n bad
  n=$(skip_count "$ledger")
  bad=$(skip_count "$ledger" yes)
  if [ "${CI:-}" = true ] && [ "$bad" -gt 0 ]; then
    echo "FAILED: CI=true and $bad check(s) skipped although scripts/setup.sh installs what they need: $(skip_list "$ledger" yes)"
    echo "all $n skipped: $(skip_list "$ledger")"
    return 1
  fi
  if [ "$n" -eq 0 ]; then
    echo "done: all checks passed, 0 skipped"
  else
    echo "done: all checks passed, $n skipped: $(skip_list "$ledger")"
  fi
}
