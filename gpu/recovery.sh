#!/usr/bin/env bash
# Recovery from a dead rank on the real library (the runner's 'recovery'): in each registration mode of MODES, RANKS
# processes, one per rank, run a gradient allreduce; rank KILL dies as DEATH says: halt (the default), it halts its
# process as its step 2 begins (exit status 137, as if killed); kill, every rank steps on, each step checked, and once
# rank KILL says it is ready to die (after 20 steps) this script sends its process SIGKILL at a random moment within
# 0.3 s (mid-step; in GRAPH the others may be inside a launched graph); freeze, the same with SIGSTOP: the survivors
# must declare it dead when its heartbeats stop (HEARTBEAT_TIMEOUT), and once every survivor's step failed naming it
# the script resumes it (SIGCONT): its step must fail saying it was excluded from the job (exit status 1), and the
# script prints the time from the stop to each survivor's failure ('stop -> failure'). Every survivor's step must
# fail naming it; the survivors close the pipeline, shrink it away
# (on nccl: a new communicator formed among the survivors through the job's rendezvous), bind again on the child over
# the same gradients and stream, and run STEPS steps, each checked against the survivors' sum. No log may show error
# 700 (an illegal memory access: a device context poisoned by a free during the abort). Prints one line per mode and
# the line 'recovery: a/b modes as expected'; exits 0 when every mode is. Below each mode that recovered, the phases of
# the survivor slowest to its first checked step: death -> heard, heard -> new communicator, -> bound, -> first
# checked step, beside that process's own start -> bound (a fresh join and bind). With more ranks than GPUs the processes
# share the GPUs round-robin, each with its own NCCL_HOSTID, NCCL talking over the socket transport on lo: a setup that
# proves behaviour, never speed. BACKEND=sim needs no GPU.
# REPLACE=1 replaces the dead rank instead: once every survivor's step 2 failed naming it, a new process starts with
# its rank and COLLECTIVES_REPLACEMENT=1; the survivors reform the job with it (comm.reform: on nccl a communicator of
# the job's size from rank 0's new unique id), and all ranks run step 2 again and STEPS more, each checked against
# every rank's sum. The replacement's log is OUT/<mode>/rank-<KILL>-replacement.log.
# Staged by gpu/stage.sh (MODULES=runtime,tools) into .gpu/ beside job-devices.sh, .gpu/lib and .gpu/jre; run there:
#   bash .gpu/recovery.sh
# In a clone, after the build (mvn -B -q install -DskipTests), it runs from the build's jars with the JDK of JAVA_HOME
# or PATH: REPLACE=1 BACKEND=sim gpu/recovery.sh
# KILL=0 kills rank 0: the rendezvous then runs in a process of its own ('collectives rendezvous', its log
# OUT/<mode>/rendezvous.log), which every rank joins with COLLECTIVES_RENDEZVOUS_SERVER=standalone (SERVER=standalone
# does so for any KILL); it must end saying the job is over.
# Variables: BACKEND (nccl), RANKS (3), KILL (1), DEATH (halt, kill or freeze), HEARTBEAT_TIMEOUT (seconds a rank may
# be silent before it is declared dead; the library's default, 1.5, unless set), SERVER (rank0, or standalone: always
# with KILL=0), MODES (NONE,LOCAL,GRAPH), STEPS (100), REPLACE (0), SYNC_TIMEOUT (60: seconds a synchronize waits on nccl), JOB_TIMEOUT (300: seconds per process), OUT
# (/tmp/collectives-recovery: each process's log, OUT/<mode>/rank-<r>.log, and recovery.log), JAVA and CLASS_PATH
# (java-setup.sh says what they are when not set).
set -u
export NCCL_NVLS_ENABLE=0 MCCL_NVLS_ENABLE=0
here=$(cd "$(dirname "$0")" && pwd)
backend=${BACKEND:-nccl}
ranks=${RANKS:-3}
doomed=${KILL:-1}
death=${DEATH:-halt}
case "$death" in
  halt) fate="killed" ;;
  kill) fate="killed with SIGKILL" ;;
  freeze) fate="stopped with SIGSTOP" ;;
  *) echo "recovery.sh: DEATH is halt, kill or freeze, not '$death'" >&2; exit 2 ;;
esac
heartbeat=()
[ -n "${HEARTBEAT_TIMEOUT:-}" ] && heartbeat=(COLLECTIVES_HEARTBEAT_TIMEOUT="${HEARTBEAT_TIMEOUT}s")
server=${SERVER:-rank0}
[ "$doomed" -eq 0 ] && server=standalone
first_survivor=$((doomed == 0 ? 1 : 0))
steps=${STEPS:-100}
replace=${REPLACE:-0}
out=${OUT:-/tmp/collectives-recovery}
. "$here/java-setup.sh"
. "$here/job-devices.sh"
mkdir -p "$out"

# starts rank $1 of mode $2's job (port $3, token $4) in the background, its log in $5; more variables after them
start_rank() {
  local r=$1 mode=$2 port=$3 token=$4 log=$5
  shift 5
  env "${heartbeat[@]}" "$@" COLLECTIVES_BACKEND="$backend" COLLECTIVES_RANK="$r" COLLECTIVES_WORLD_SIZE="$ranks" \
    COLLECTIVES_RENDEZVOUS_SERVER="$server" \
    COLLECTIVES_JOB_TOKEN="$token" COLLECTIVES_RENDEZVOUS="tcp://127.0.0.1:$port" COLLECTIVES_DEVICE=$((r % devices)) \
    NCCL_HOSTID="recovery-$mode-rank-$r" NCCL_SOCKET_IFNAME="${NCCL_SOCKET_IFNAME:-lo}" \
    timeout "${JOB_TIMEOUT:-300}" "$java" --enable-native-access=ALL-UNNAMED \
    -Dcollectives.device.syncTimeoutSeconds="${SYNC_TIMEOUT:-60}" -cp "$classpath" dev.collectives.examples.Runner \
    recovery --kill "$doomed" --death "$death" --registration "$mode" --steps "$steps" "${replace_option[@]}" > "$log" 2>&1 &
}

# waits (up to JOB_TIMEOUT) until every survivor's log says its step failed: the job knows of the death by then
await_survivors_told() {
  local dir=$1 r waited=0
  for ((r = 0; r < ranks; r++)); do
    [ "$r" -eq "$doomed" ] && continue
    until grep -q "^step [0-9]* failed" "$dir/rank-$r.log" 2> /dev/null; do
      [ "$waited" -ge "$((${JOB_TIMEOUT:-300} * 10))" ] && return 1
      sleep 0.1; waited=$((waited + 1))
    done
  done
}

# once rank KILL's log ($1) says it is ready to die, waits a random moment (up to 0.3 s) and sends its process
# SIGKILL (kill) or SIGSTOP (freeze); sets struck_pid and struck_at (ms since the epoch); 1 when it never said so
strike() {
  local log=$1 waited=0
  struck_pid="" struck_at=""
  until [ -n "$struck_pid" ]; do
    struck_pid=$(sed -n 's/^ready to die: rank [0-9]* ran [0-9]* checked steps in process \([0-9]*\)$/\1/p' "$log" \
      2> /dev/null | head -1)
    [ -n "$struck_pid" ] && break
    [ "$waited" -ge "$((${JOB_TIMEOUT:-300} * 10))" ] && return 1
    sleep 0.1; waited=$((waited + 1))
  done
  sleep "0.$(printf '%03d' $((RANDOM % 300)))"
  struck_at=$(date +%s%3N)
  kill "-$([ "$death" = kill ] && echo KILL || echo STOP)" "$struck_pid"
}

# prints each survivor's time from the stop (at $2, ms since the epoch) to its failure, from its 'phases:' line
print_stop_to_failure() {
  local dir=$1 stopped=$2 r heard times=()
  for ((r = 0; r < ranks; r++)); do
    [ "$r" -eq "$doomed" ] && continue
    heard=$(sed -nE 's/^phases: heard at ([0-9]+) ms since the epoch.*/\1/p' "$dir/rank-$r.log" | head -1)
    [ -n "$heard" ] && times+=("rank $r $((heard - stopped)) ms")
  done
  local joined
  joined=$(printf '%s, ' "${times[@]}")
  echo "  stop -> failure: ${joined%, }"
}

# prints the phases of the survivor of $1's job slowest from its failure to its first checked step (each survivor's
# 'phases:' line), the death dated by the killed rank's 'halting' line; with a replacement, its start -> bound too
print_phases() {
  local dir=$1 died heard to_comm to_bound to_step start_bound most who
  if [ "$death" = halt ]; then
    died=$(sed -n 's/^halting rank .* at \([0-9]*\) ms since the epoch$/\1/p' "$dir/rank-$doomed.log" | head -1)
  else
    died=$struck_at
  fi
  read -r who heard to_comm to_bound to_step start_bound <<< "$(slowest_phases "$dir" "$ranks" "$doomed")"
  [ -z "$who" ] && return
  most=$((to_comm + to_bound + to_step))
  local replacement=""
  if [ "$replace" = 1 ]; then
    replacement=$(sed -n "s/^replacement: this process's start -> bound \([0-9]*\) ms$/; the replacement's start -> bound \1 ms/p" \
      "$dir/rank-$doomed-replacement.log" | head -1)
  fi
  local among="slowest of $((ranks - 1)) survivors"
  [ "$ranks" -eq 2 ] && among="the only survivor"
  echo "  phases: rank $who ($among): death -> heard $((heard - ${died:-$heard})) ms," \
    "heard -> new communicator $to_comm ms, -> bound $to_bound ms, -> first checked step $to_step ms" \
    "(failure -> first step $most ms); start -> bound $start_bound ms$replacement"
}

# runs one mode's job; prints its line; returns 0 when it went as expected
run_mode() {
  local mode=$1 dir=$out/$1 port token r problems=() status
  rm -rf "$dir"; mkdir -p "$dir"
  port=$(free_port)
  token=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
  local pids=() replacement_pid="" server_pid=""
  if [ "$server" = standalone ]; then
    COLLECTIVES_JOB_TOKEN="$token" timeout "${JOB_TIMEOUT:-300}" "$java" -cp "$classpath" \
      dev.collectives.examples.Runner rendezvous --ranks "$ranks" --port "$port" --timeout "${JOB_TIMEOUT:-300}" \
      ${HEARTBEAT_TIMEOUT:+--heartbeat-timeout "$HEARTBEAT_TIMEOUT"} > "$dir/rendezvous.log" 2>&1 &
    server_pid=$!
  fi
  for ((r = 0; r < ranks; r++)); do
    start_rank "$r" "$mode" "$port" "$token" "$dir/rank-$r.log"
    pids+=($!)
  done
  local after="$steps steps\\? among the survivors" what="after the shrink" told=1
  if [ "$death" != halt ] && ! strike "$dir/rank-$doomed.log"; then
    problems+=("rank $doomed never said it was ready to die")
  fi
  if [ "$death" = freeze ]; then
    # resumed once the others went on without it, it must learn that it was excluded
    if await_survivors_told "$dir"; then
      kill -CONT "$struck_pid"
    else
      told=0 problems+=("the survivors' step did not fail within ${JOB_TIMEOUT:-300} s")
    fi
    wait "${pids[$doomed]}"; status=$?
    [ "$status" -eq 1 ] || problems+=("rank $doomed, resumed, exited with $status, not 1")
    grep -q "was excluded from the job" "$dir/rank-$doomed.log" \
      || problems+=("rank $doomed, resumed, did not fail saying it was excluded")
  fi
  if [ "$replace" = 1 ]; then
    after="step 2 and $steps more with the replacement of rank $doomed" what="with the replacement"
    if [ "$death" != freeze ]; then
      wait "${pids[$doomed]}"; status=$?
      [ "$status" -eq 137 ] || problems+=("rank $doomed exited with $status, not 137")
      await_survivors_told "$dir" || told=0 problems+=("the survivors' step did not fail within ${JOB_TIMEOUT:-300} s")
    fi
    if [ "$told" = 1 ]; then
      start_rank "$doomed" "$mode" "$port" "$token" "$dir/rank-$doomed-replacement.log" COLLECTIVES_REPLACEMENT=1
      replacement_pid=$!
    fi
  fi
  for ((r = 0; r < ranks; r++)); do
    local log=$dir/rank-$r.log
    if [ "$r" -eq "$doomed" ]; then
      [ "$replace" = 1 ] || [ "$death" = freeze ] && continue
      wait "${pids[$r]}"; status=$?
      [ "$status" -eq 137 ] || problems+=("rank $r exited with $status, not 137")
      continue
    fi
    wait "${pids[$r]}"; status=$?
    [ "$status" -eq 0 ] || problems+=("rank $r exited with $status")
    grep -q "^step [0-9]* failed: .*rank $doomed at .* is gone" "$log" || problems+=("rank $r's step did not fail naming rank $doomed")
    grep -q "^recovered: $after" "$log" || problems+=("rank $r did not run $steps steps $what")
    grep -q "^check: OK on rank $r " "$log" || problems+=("rank $r's sums are wrong")
  done
  if [ -n "$replacement_pid" ]; then
    local log=$dir/rank-$doomed-replacement.log
    wait "$replacement_pid"; status=$?
    [ "$status" -eq 0 ] || problems+=("the replacement of rank $doomed exited with $status")
    grep -q "^recovered: $after" "$log" || problems+=("the replacement of rank $doomed did not run $steps steps")
    grep -q "^check: OK on rank $doomed " "$log" || problems+=("the replacement's sums are wrong")
  fi
  if [ -n "$server_pid" ]; then
    wait "$server_pid"; status=$?
    [ "$status" -eq 0 ] || problems+=("the rendezvous server exited with $status")
    grep -q "^rendezvous: the job is over" "$dir/rendezvous.log" || problems+=("the rendezvous server did not see the job end")
  fi
  local poisoned
  poisoned=$(grep -l "error 700\|illegal memory access" "$dir"/rank-*.log 2> /dev/null | xargs -r -n1 basename | tr '\n' ' ')
  [ -z "$poisoned" ] || problems+=("error 700 in ${poisoned% }")
  local path killed="rank $doomed killed in step 2" failed_step
  if [ "$death" != halt ]; then
    failed_step=$(sed -n 's/^step \([0-9]*\) failed: .*/\1/p' "$dir/rank-$first_survivor.log" | head -1)
    killed="rank $doomed $fate in step ${failed_step:-?}"
    [ "$death" = freeze ] && killed="$killed (resumed: excluded)"
  fi
  if [ "$replace" = 1 ]; then
    killed="$killed and replaced"
    path=$(grep -m1 -o "^reformed: .*" "$dir/rank-$first_survivor.log" | head -1)
    path="rank $first_survivor ${path:-?}; step 2 and $steps more"
  else
    path=$(grep -m1 -o "shrunk from [^)]*" "$dir/rank-$first_survivor.log" | head -1)
    path="rank $first_survivor's child: ${path:-?}; $steps"
  fi
  if [ ${#problems[@]} -eq 0 ]; then
    echo "recovery: $mode: $ranks ranks, $killed; $path steps with the right sums, no error 700: OK"
    print_phases "$dir"
    [ "$death" = freeze ] && print_stop_to_failure "$dir" "$struck_at"
    return 0
  fi
  local joined
  joined=$(printf '%s; ' "${problems[@]}")
  echo "recovery: $mode: $ranks ranks, $killed: NOT OK: ${joined%; } (logs in $dir)"
  return 1
}

replace_option=()
[ "$replace" = 1 ] && replace_option=(--replace)
{
  passed=0 total=0
  IFS=, read -r -a chosen <<< "${MODES:-NONE,LOCAL,GRAPH}"
  for mode in "${chosen[@]}"; do
    total=$((total + 1))
    run_mode "$mode" && passed=$((passed + 1))
  done
  killed="rank $doomed $fate"
  [ "$replace" = 1 ] && killed="$killed and replaced"
  [ "$server" = standalone ] && killed="$killed, the rendezvous served apart"
  echo "recovery: $passed/$total modes as expected ($backend, $ranks ranks, $killed, $steps steps after)"
  [ "$passed" -eq "$total" ]
} 2>&1 | tee "$out/recovery.log"
exit "${PIPESTATUS[0]}"
