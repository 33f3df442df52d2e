#!/bin/sh
# expect_stderr.sh STATUS EXPECTED COMMAND...: runs COMMAND and fails unless it exits with
# STATUS and writes exactly EXPECTED (a printf format: \n for newlines) on stderr.
want_status=$1
want=$(printf "$2")
shift 2
err=$("$@" 2>&1 >/dev/null)
status=$?
if [ "$status" -ne "$want_status" ] || [ "$err" != "$want" ]; then
  echo "exit status $status (expected $want_status); stderr:"
  printf '%s\n' "$err"
  echo "expected:"
  printf '%s\n' "$want"
  exit 1
fi
echo "stderr as expected, exit status $status"
