# Every environment variable's accepted forms and its malformed values, run on omp_env_probe
# (included from CMakeLists.txt after forkjoin_omp_env_test). A good value is checked in the
# probe's line or, for what no omp_* query shows (stack size, wait policy, places), in the
# OMP_DISPLAY_ENV listing; a bad one by its one-line message, after which the program still
# runs with the default (the probe's line follows). FORKJOIN_OMP_CPUS (the launcher's list of
# usable CPUs) makes the place tests independent of the machine: CPUs it names that do not
# exist are never pinned to, and no test here binds.

# A regex that matches `text` literally.
function(forkjoin_regex_quote out text)
  string(REGEX REPLACE "([][+.*()^$?|\\\\])" "\\\\\\1" quoted "${text}")
  set(${out} "${quoted}" PARENT_SCOPE)
endfunction()

# VAR=VALUE is malformed: the message names both and the fallback, then the probe runs with
# `after` in its line (or anything).
function(forkjoin_omp_env_bad name var value fallback after)
  forkjoin_regex_quote(v "${value}")
  forkjoin_regex_quote(f "${fallback}")
  forkjoin_omp_env_test(${name} "${var}=${value}"
                        "variable ${var}: \"${v}\"; using ${f}\n(.*\n)?max_threads=[^\n]*${after}")
endfunction()

# A good value: `regex` matches and no variable is reported malformed.
function(forkjoin_omp_env_good name env regex)
  forkjoin_omp_env_test(${name} "${env}" "${regex}")
  set_tests_properties(omp_env_${name} PROPERTIES FAIL_REGULAR_EXPRESSION "invalid value for environment variable")
endfunction()

# A good value shown by OMP_DISPLAY_ENV as the line `NAME = 'value'`.
function(forkjoin_omp_env_shows name env display_name value)
  forkjoin_regex_quote(v "${value}")
  forkjoin_omp_env_good(${name} "OMP_DISPLAY_ENV=true;${env}" "\n  ${display_name} = '${v}'\n")
endfunction()

set(_procs "[0-9]+ \\(the number of processors\\)")

# OMP_NUM_THREADS: a list, each a positive count up to 2^20
forkjoin_omp_env_good(num_threads_blanks "OMP_NUM_THREADS= 3 , 2 " "max_threads=3 team=3 ")
forkjoin_omp_env_test(num_threads_zero "OMP_NUM_THREADS=0"
                      "variable OMP_NUM_THREADS: \"0\"; using ${_procs}\n")
forkjoin_omp_env_test(num_threads_huge "OMP_NUM_THREADS=99999999999999999999999"
                      "variable OMP_NUM_THREADS: \"99999999999999999999999\"; using ${_procs}\n")
forkjoin_omp_env_test(num_threads_over_limit "OMP_NUM_THREADS=2000000"
                      "variable OMP_NUM_THREADS: \"2000000\"; using ${_procs}\n")
forkjoin_omp_env_test(num_threads_list_bad "OMP_NUM_THREADS=2,x"
                      "variable OMP_NUM_THREADS: \"2,x\"; using ${_procs}\n")
forkjoin_omp_env_test(num_threads_separator "OMP_NUM_THREADS=2:3"
                      "variable OMP_NUM_THREADS: \"2:3\"; using ${_procs}\n")
forkjoin_omp_env_shows(num_threads_list_shown "OMP_NUM_THREADS=4,2,1" OMP_NUM_THREADS "4,2,1")

# OMP_SCHEDULE: [modifier:]kind[,chunk], any case, blanks ignored
forkjoin_omp_env_good(schedule_nonmonotonic "OMP_SCHEDULE=nonmonotonic:guided,4" "schedule=3,4 ")
forkjoin_omp_env_good(schedule_blanks_case "OMP_SCHEDULE= Dynamic , 3 " "schedule=2,3 ")
forkjoin_omp_env_good(schedule_auto "OMP_SCHEDULE=auto" "schedule=4,1 ")
forkjoin_omp_env_good(schedule_static "OMP_SCHEDULE=static" "schedule=1,0 ")
forkjoin_omp_env_shows(schedule_shown "OMP_SCHEDULE=monotonic:static,4" OMP_SCHEDULE "MONOTONIC:STATIC,4")
forkjoin_omp_env_shows(schedule_default_chunk_shown "OMP_SCHEDULE=guided" OMP_SCHEDULE "GUIDED")
forkjoin_omp_env_bad(schedule_chunk_zero OMP_SCHEDULE "dynamic,0" "dynamic,1" "schedule=2,1 ")
forkjoin_omp_env_bad(schedule_chunk_word OMP_SCHEDULE "dynamic,x" "dynamic,1" "schedule=2,1 ")
forkjoin_omp_env_bad(schedule_chunk_trailing OMP_SCHEDULE "guided,5x" "dynamic,1" "schedule=2,1 ")

# OMP_DYNAMIC, OMP_NESTED, OMP_CANCELLATION: true or false, any case, blanks around
forkjoin_omp_env_good(dynamic_case_blanks "OMP_DYNAMIC= TRUE " "dynamic=1 ")
forkjoin_omp_env_shows(dynamic_shown "OMP_DYNAMIC=true" OMP_DYNAMIC "TRUE")
forkjoin_omp_env_good(nested_true "OMP_NESTED=true" "max_active_levels=255 nested=1")
forkjoin_omp_env_good(nested_false "OMP_NESTED=false;OMP_NUM_THREADS=2,2" "max_active_levels=1 nested=0")
forkjoin_omp_env_bad(nested_bad OMP_NESTED "perhaps" "false" "max_active_levels=1 nested=0")
forkjoin_omp_env_shows(cancellation_shown "OMP_CANCELLATION=True" OMP_CANCELLATION "TRUE")
forkjoin_omp_env_bad(cancellation_bad OMP_CANCELLATION "yes" "false" "")

# OMP_MAX_ACTIVE_LEVELS (0 allowed), OMP_THREAD_LIMIT (0 not), OMP_MAX_TASK_PRIORITY
forkjoin_omp_env_good(max_active_levels_zero "OMP_MAX_ACTIVE_LEVELS=0" "max_active_levels=0 nested=0")
forkjoin_omp_env_bad(max_active_levels_trailing OMP_MAX_ACTIVE_LEVELS "4x" "1" "max_active_levels=1 ")
forkjoin_omp_env_bad(thread_limit_zero OMP_THREAD_LIMIT "0" "unlimited" "thread_limit=2147483647 ")
forkjoin_omp_env_bad(thread_limit_word OMP_THREAD_LIMIT "many" "unlimited" "thread_limit=2147483647 ")
forkjoin_omp_env_shows(thread_limit_shown "OMP_THREAD_LIMIT=4" OMP_THREAD_LIMIT "4")
forkjoin_omp_env_bad(max_task_priority_huge OMP_MAX_TASK_PRIORITY "4294967296" "0" "max_task_priority=0 ")

# OMP_STACKSIZE: a positive size in kilobytes, or with a B, K, M or G suffix (any case)
forkjoin_omp_env_shows(stacksize_default_kb "OMP_STACKSIZE=7" OMP_STACKSIZE "7168")
forkjoin_omp_env_shows(stacksize_bytes "OMP_STACKSIZE=100000B" OMP_STACKSIZE "100000")
forkjoin_omp_env_shows(stacksize_kilobytes "OMP_STACKSIZE= 512 k " OMP_STACKSIZE "524288")
forkjoin_omp_env_shows(stacksize_megabytes "OMP_STACKSIZE=4M" OMP_STACKSIZE "4194304")
forkjoin_omp_env_shows(stacksize_gigabytes "OMP_STACKSIZE=1g" OMP_STACKSIZE "1073741824")
forkjoin_omp_env_bad(stacksize_zero OMP_STACKSIZE "0" "the system default" "")
forkjoin_omp_env_bad(stacksize_unit OMP_STACKSIZE "12X" "the system default" "")
forkjoin_omp_env_bad(stacksize_word OMP_STACKSIZE "big" "the system default" "")

# OMP_WAIT_POLICY: active or passive, any case
forkjoin_omp_env_good(wait_policy_passive "OMP_DISPLAY_ENV=verbose;OMP_WAIT_POLICY=PASSIVE"
                      "  OMP_WAIT_POLICY = 'PASSIVE'\n.*  FORKJOIN_OMP_WAIT = 'park'\n")
forkjoin_omp_env_shows(wait_policy_active "OMP_WAIT_POLICY=active" OMP_WAIT_POLICY "ACTIVE")
forkjoin_omp_env_bad(wait_policy_bad OMP_WAIT_POLICY "lazy" "active then passive (spin, yield, park)" "")

# OMP_ALLOCATOR: a predefined allocator's name and nothing else
forkjoin_omp_env_shows(allocator_shown "OMP_ALLOCATOR=OMP_LARGE_CAP_MEM_ALLOC" OMP_ALLOCATOR "omp_large_cap_mem_alloc")
forkjoin_omp_env_bad(allocator_trailing OMP_ALLOCATOR "omp_default_mem_alloc2" "omp_default_mem_alloc" "")

# OMP_PROC_BIND: true, false, or a list of primary (master), close, spread
forkjoin_omp_env_good(proc_bind_master "OMP_PROC_BIND=master" "proc_bind=2 ")
forkjoin_omp_env_shows(proc_bind_primary_shown "OMP_PROC_BIND=primary" OMP_PROC_BIND "PRIMARY")
forkjoin_omp_env_shows(proc_bind_true_shown "OMP_PROC_BIND=TRUE" OMP_PROC_BIND "TRUE")
forkjoin_omp_env_good(proc_bind_false "OMP_PROC_BIND=false;OMP_PLACES=threads" "proc_bind=0 num_places=[1-9]")
forkjoin_omp_env_bad(proc_bind_list_bad OMP_PROC_BIND "close,outward" "false" "proc_bind=0 ")

# FORKJOIN_OMP_CPUS: the usable CPUs, /proc's list form; malformed parts end the list there
forkjoin_omp_env_good(cpus_list "FORKJOIN_OMP_CPUS=0,2-3" "num_procs=3 ")
forkjoin_omp_env_good(cpus_garbage "FORKJOIN_OMP_CPUS=4-6,x,7" "num_procs=3 ")
forkjoin_omp_env_good(cpus_open_range "FORKJOIN_OMP_CPUS=1,3-" "num_procs=1 ")

# OMP_PLACES: an abstract name with an optional count, or an explicit list (on CPUs 0-7)
set(_cpus "FORKJOIN_OMP_CPUS=0-7")
forkjoin_omp_env_shows(places_threads_count "${_cpus};OMP_PLACES=threads(3)" OMP_PLACES "{0},{1},{2}")
forkjoin_omp_env_good(places_cores "OMP_PLACES=cores" "proc_bind=1 num_places=[1-9]")
forkjoin_omp_env_good(places_sockets "OMP_PLACES=sockets(1)" "proc_bind=1 num_places=1 ")
forkjoin_omp_env_good(places_ll_caches "OMP_PLACES=ll_caches" "proc_bind=1 num_places=[1-9]")
forkjoin_omp_env_good(places_numa_domains "OMP_PLACES=numa_domains" "proc_bind=1 num_places=[1-9]")
forkjoin_omp_env_good(places_unbound "OMP_PROC_BIND=false;OMP_PLACES={0}" "proc_bind=0 num_places=1 ")
forkjoin_omp_env_shows(places_interval "${_cpus};OMP_PLACES={0:4:2}" OMP_PLACES "{0,2,4,6}")
forkjoin_omp_env_shows(places_replicated "${_cpus};OMP_PLACES={0,1}:3:2" OMP_PLACES "{0:2},{2:2},{4:2}")
forkjoin_omp_env_shows(places_excluded "${_cpus};OMP_PLACES={0:4,!1}" OMP_PLACES "{0,2:2}")
forkjoin_omp_env_shows(places_blanks "${_cpus};OMP_PLACES= { 5 : 2 } , {7} " OMP_PLACES "{5:2},{7}")
forkjoin_omp_env_test(places_unusable "${_cpus};OMP_PLACES={0},{9},{1}"
                      "number of places reduced from 3 to 2 because some places contain no usable CPU\n")
foreach(bad "threads(0)" "threads(x)" "cores(2" "{0:0}" "{0}:0" "{x}" "{-1}" "{0},junk" "{0} {1}" "{0:2:x}"
            "{0:2" "{0}:2:-1" "{0:2:-1}" "{99999999999999999999}" "{9}" "{0}:2:x")
  string(MAKE_C_IDENTIFIER "${bad}" _id)
  forkjoin_regex_quote(_quoted "${bad}")
  forkjoin_omp_env_test(places_bad_${_id} "${_cpus};OMP_PLACES=${bad}"
                        "variable OMP_PLACES: \"${_quoted}\"; using no places [^\n]*\n(.*\n)?max_threads=.* num_places=0 ")
endforeach()

# OMP_NUM_TEAMS, OMP_TEAMS_THREAD_LIMIT: positive counts (read when first needed)
forkjoin_omp_env_good(num_teams "OMP_NUM_TEAMS=4;OMP_TEAMS_THREAD_LIMIT=2"
                      "max_teams=4 teams_thread_limit=2 league=4 league_thread_limit=2\n")
forkjoin_omp_env_good(num_teams_unset "" "max_teams=0 teams_thread_limit=0 league=3 ")
forkjoin_omp_env_good(num_teams_blanks "OMP_NUM_TEAMS= 2 " "max_teams=2 .*league=2 ")
forkjoin_omp_env_shows(num_teams_shown "OMP_NUM_TEAMS=4" OMP_NUM_TEAMS 4)
forkjoin_omp_env_shows(teams_thread_limit_shown "OMP_TEAMS_THREAD_LIMIT=2" OMP_TEAMS_THREAD_LIMIT 2)
forkjoin_omp_env_shows(teams_unset_shown "" OMP_TEAMS_THREAD_LIMIT 0)
foreach(var OMP_NUM_TEAMS OMP_TEAMS_THREAD_LIMIT)
  foreach(bad "0" "-2" "x" "4x" "99999999999")
    string(MAKE_C_IDENTIFIER "${var}_${bad}" _id)
    string(TOLOWER "${_id}" _id)
    forkjoin_omp_env_bad(${_id} ${var} "${bad}" "unset" "max_teams=0 teams_thread_limit=0 league=3 ")
  endforeach()
endforeach()

# Constructs under ICVs that no other test sets: passive waiting (team threads park at once
# instead of spinning) and a stack size for team threads.
foreach(test tasks barrier loops critical)
  add_test(NAME omp_${test}_passive_3 COMMAND omp_${test})
  set_tests_properties(omp_${test}_passive_3 PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=3;OMP_WAIT_POLICY=passive"
                       TIMEOUT 60 LABELS omp)
endforeach()
add_test(NAME omp_tasks_stacksize_3 COMMAND omp_tasks)
set_tests_properties(omp_tasks_stacksize_3 PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=3;OMP_STACKSIZE=4M" TIMEOUT 60
                     LABELS omp)

# OMP_AFFINITY_FORMAT: each way a format can be malformed, named in the message; the program
# runs with the default format (omp_affinity checks it)
set(_default_format "using \"level %L thread %i affinity %A\"")
foreach(case "%0n|a leading 0 must be followed by '.'" "%99999n|field width too large"
             "%.n|'0.' or '.' needs a field width" "%0.L|'0.' or '.' needs a field width"
             "%{thread_num|unterminated field name" "%{thread_nums}|unknown field name 'thread_nums'"
             "x%|unknown field type in '%'" "%5Q|unknown field type in '%5Q'")
  string(REPLACE "|" ";" _parts "${case}")
  list(GET _parts 0 _format)
  list(GET _parts 1 _why)
  string(MAKE_C_IDENTIFIER "${_format}" _id)
  forkjoin_regex_quote(_f "${_format}")
  forkjoin_regex_quote(_w "${_why}")
  add_test(NAME omp_affinity_env_bad_${_id} COMMAND omp_affinity default)
  set_tests_properties(omp_affinity_env_bad_${_id} PROPERTIES ENVIRONMENT "OMP_AFFINITY_FORMAT=${_format}"
    PASS_REGULAR_EXPRESSION "variable OMP_AFFINITY_FORMAT: \"${_f}\"; ${_default_format} [(]${_w}[)]\naffinity: ok\n"
    TIMEOUT 30 LABELS omp)
endforeach()
