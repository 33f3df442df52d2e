#!/bin/sh
# one_message.sh COMMAND...: each malformed variable below gets exactly one line on stderr,
# naming it, from one layer (under the launcher: not libgomp's as well; linked: not the core
# library's as well), and the program still runs.
fail=0
for setting in OMP_NUM_THREADS=abc OMP_SCHEDULE=sometimes OMP_DYNAMIC=maybe OMP_NESTED=perhaps \
  OMP_MAX_ACTIVE_LEVELS=-2 OMP_THREAD_LIMIT=0 OMP_STACKSIZE=huge OMP_WAIT_POLICY=lazy \
  OMP_CANCELLATION=sometimes OMP_MAX_TASK_PRIORITY=-1 OMP_PROC_BIND=sideways 'OMP_PLACES={0' \
  OMP_DISPLAY_ENV=loud OMP_NUM_TEAMS=-1 OMP_TEAMS_THREAD_LIMIT=x OMP_DEFAULT_DEVICE=-3 \
  OMP_TARGET_OFFLOAD=bogus OMP_DISPLAY_AFFINITY=often OMP_AFFINITY_FORMAT=%Q FORKJOIN_NUM_THREADS=lots; do
  name=${setting%%=*}
  err=$(env "$setting" "$@" 2>&1 >/dev/null)
  status=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [ "$status" -ne 0 ] || [ "$lines" -ne 1 ] || ! printf '%s\n' "$err" | grep -q "$name"; then
    echo "$setting: exit status $status, $lines lines on stderr (expected 1 naming $name):"
    printf '%s\n' "$err"
    fail=1
  fi
done
[ "$fail" -eq 0 ] && echo "one_message: one line for each malformed variable"
exit "$fail"
