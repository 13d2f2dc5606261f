# Sourced by the test scripts: one rule for a step that cannot run here.
#   skip_step WHO WHAT...   with CI=true: fails (exit 1) naming what is missing; otherwise says
#                           "SKIPPED", records the step in $FE_SKIPPED (a file the test command
#                           reads for its last line) and returns 0, so the caller decides whether
#                           to stop (`skip_step ... ; exit 0`) or go on without that part.
skip_step() {
    local who=$1
    shift
    if [ "${CI:-}" = true ]; then
        printf '%s: FAIL: cannot run under CI=true: %s\n' "$who" "$*" >&2
        exit 1
    fi
    printf '%s: SKIPPED: %s\n' "$who" "$*" >&2
    if [ -n "${FE_SKIPPED:-}" ]; then
        printf '%s: %s\n' "$who" "$*" >>"$FE_SKIPPED"
    fi
    return 0
}
