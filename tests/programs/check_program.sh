#!/bin/sh
# Runs a program and checks what it did, for the CLI tests:
#
#   check_program.sh EXIT REGEX [--then CHECK] [--limit-kb KB] [--skip-if REGEX] -- PROGRAM ARGS...
#
# Passes when PROGRAM exits with status EXIT, a line of its output (stdout and stderr) matches
# the extended regular expression REGEX, a failing run (EXIT != 0) says why in exactly one line
# on stderr, and the shell command CHECK (if given) succeeds afterwards. --limit-kb runs the
# program under `ulimit -v KB`. --skip-if prints "SKIPPED: ..." and passes when the output
# matches (a test that means nothing on this machine; CTest reports it as skipped).
expected_exit=$1
regex=$2
shift 2
then_check=
limit_kb=
skip_regex=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  case $1 in
    --then) then_check=$2; shift 2 ;;
    --limit-kb) limit_kb=$2; shift 2 ;;
    --skip-if) skip_regex=$2; shift 2 ;;
    *) echo "check_program.sh: unknown option $1"; exit 2 ;;
  esac
done
shift  # the --
stderr_file=$(mktemp)
trap 'rm -f "$stderr_file"' EXIT
output=$( (if [ -n "$limit_kb" ]; then ulimit -v "$limit_kb"; fi; exec "$@") 2>"$stderr_file")
status=$?
errors=$(cat "$stderr_file")
printf '%s\n' "$output" "$errors"
if [ -n "$skip_regex" ] && printf '%s\n%s\n' "$output" "$errors" | grep -Eq -- "$skip_regex"; then
  echo "SKIPPED: the output matches '$skip_regex'"
  exit 0
fi
if [ "$status" -ne "$expected_exit" ]; then
  echo "FAIL: exit status $status, expected $expected_exit"
  exit 1
fi
if ! printf '%s\n%s\n' "$output" "$errors" | grep -Eq -- "$regex"; then
  echo "FAIL: no line of the output matches: $regex"
  exit 1
fi
if [ "$expected_exit" -ne 0 ] && [ "$(printf '%s\n' "$errors" | grep -c .)" -ne 1 ]; then
  echo "FAIL: a failing run should say why in one line on stderr"
  exit 1
fi
if [ -n "$then_check" ] && ! sh -c "$then_check"; then
  echo "FAIL: $then_check"
  exit 1
fi
exit 0
