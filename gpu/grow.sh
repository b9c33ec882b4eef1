#!/usr/bin/env bash
# Growing a running job on the real library (the runner's 'recovery --grow'): for each job of JOBS (FROM:TO, e.g.
# 2:4) and each registration mode of MODES, FROM processes, one per rank, run a gradient allreduce; after step 1 they
# grow the job by TO - FROM processes that rank 0's process starts (the same command with COLLECTIVES_JOINING=1, their
# output in rank 0's log, each line prefixed 'joiner N: '), which join through the job's rendezvous and take the ranks
# after theirs (comm.grow: ncclCommGrow where the library has it, NCCL 2.29 and later; else a communicator of the new
# size from rank 0's new unique id). Every process then binds the pipeline on the grown communicator and runs STEPS
# steps, each checked against every rank's sum. Prints one line per job and mode and the line 'grow: a/b jobs as
# expected'; exits 0 when every one is. Below each job that grew: the grow's call -> new communicator, -> bound, ->
# first checked step of the rank slowest to its first checked step, beside the processes that joined (the slowest's
# own start -> bound: a fresh join and bind) and that rank's own start -> bound. With more processes than GPUs they
# share the GPUs round-robin (the processes that join share rank 0's), each with its own NCCL_HOSTID, NCCL talking
# over the socket transport on lo: a setup that proves behaviour, never speed. BACKEND=sim needs no GPU.
# Staged by gpu/stage.sh (MODULES=runtime,tools) into .gpu/ beside job-devices.sh, .gpu/lib and .gpu/jre; run there:
#   bash .gpu/grow.sh
# In a clone, after the build (mvn -B -q install -DskipTests), it runs from the build's jars with the JDK of JAVA_HOME
# or PATH: BACKEND=sim gpu/grow.sh
# Variables: BACKEND (nccl), JOBS (2:4,4:8), MODES (NONE,LOCAL,GRAPH), STEPS (100), SYNC_TIMEOUT (60: seconds a
# synchronize waits on nccl), JOB_TIMEOUT (300: seconds per process), OUT (/tmp/collectives-grow: each process's log,
# OUT/<from>-<to>/<mode>/rank-<r>.log, and grow.log), JAVA and CLASS_PATH (java-setup.sh says what they are when not set).
set -u
export NCCL_NVLS_ENABLE=0 MCCL_NVLS_ENABLE=0
here=$(cd "$(dirname "$0")" && pwd)
backend=${BACKEND:-nccl}
steps=${STEPS:-100}
out=${OUT:-/tmp/collectives-grow}
. "$here/java-setup.sh"
. "$here/job-devices.sh"
mkdir -p "$out"

# prints the phases of the rank of $1's job slowest from the grow's call to its first checked step (each rank's
# 'phases:' line, 'heard' being the grow's call), beside the slowest start -> bound of the processes that joined
print_phases() {
  local dir=$1 ranks=$2 heard to_comm to_bound to_step start_bound most who joined
  read -r who heard to_comm to_bound to_step start_bound <<< "$(slowest_phases "$dir" "$ranks")"
  [ -z "$who" ] && return
  most=$((to_comm + to_bound + to_step))
  joined=$(sed -n "s/^joiner [0-9]*: joiner: this process's start -> bound \([0-9]*\) ms$/\1/p" "$dir/rank-0.log" | sort -n | tail -1)
  echo "  phases: rank $who (slowest of $ranks): the grow's call -> new communicator $to_comm ms, -> bound $to_bound ms," \
    "-> first checked step $to_step ms (call -> first step $most ms); a new process's start -> bound ${joined:-?} ms" \
    "(the slowest); this rank's start -> bound $start_bound ms"
}

# runs job $1 (FROM:TO) in mode $2; prints its line; returns 0 when it went as expected
run_job() {
  local from=${1%%:*} to=${1##*:} mode=$2 dir port token r j problems=() status pids=()
  dir=$out/$from-$to/$mode
  rm -rf "$dir"; mkdir -p "$dir"
  port=$(free_port)
  token=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
  for ((r = 0; r < from; r++)); do
    env COLLECTIVES_BACKEND="$backend" COLLECTIVES_RANK="$r" COLLECTIVES_WORLD_SIZE="$from" \
      COLLECTIVES_JOB_TOKEN="$token" COLLECTIVES_RENDEZVOUS="tcp://127.0.0.1:$port" COLLECTIVES_DEVICE=$((r % devices)) \
      NCCL_HOSTID="grow-$from-$to-$mode-rank-$r" NCCL_SOCKET_IFNAME="${NCCL_SOCKET_IFNAME:-lo}" \
      timeout "${JOB_TIMEOUT:-300}" "$java" --enable-native-access=ALL-UNNAMED \
      -Dcollectives.device.syncTimeoutSeconds="${SYNC_TIMEOUT:-60}" -cp "$classpath" dev.collectives.examples.Runner \
      recovery --grow $((to - from)) --registration "$mode" --steps "$steps" > "$dir/rank-$r.log" 2>&1 &
    pids+=($!)
  done
  local after="recovered: $steps steps\\? on $to ranks after the growth"
  for ((r = 0; r < from; r++)); do
    local log=$dir/rank-$r.log
    wait "${pids[$r]}"; status=$?
    [ "$status" -eq 0 ] || problems+=("rank $r exited with $status")
    grep -q "^grown: rank $r of $to " "$log" || problems+=("rank $r did not grow to $to ranks")
    grep -q "^$after" "$log" || problems+=("rank $r did not run $steps steps after the growth")
    grep -q "^check: OK on rank $r " "$log" || problems+=("rank $r's sums are wrong")
  done
  for ((j = 1; j <= to - from; j++)); do
    grep -q "^joiner $j: $after" "$dir/rank-0.log" || problems+=("joiner $j did not run $steps steps after the growth")
    grep -q "^joiner $j: check: OK on rank " "$dir/rank-0.log" || problems+=("joiner $j's sums are wrong")
  done
  local poisoned
  poisoned=$(grep -l "error 700\|illegal memory access" "$dir"/rank-*.log 2> /dev/null | xargs -r -n1 basename | tr '\n' ' ')
  [ -z "$poisoned" ] || problems+=("error 700 in ${poisoned% }")
  local path
  path=$(grep -m1 -o "^grown: .*" "$dir/rank-0.log" | head -1)
  if [ ${#problems[@]} -eq 0 ]; then
    echo "grow: $mode: $from -> $to ranks; rank 0 ${path:-?}; $steps steps with the right sums, no error 700: OK"
    print_phases "$dir" "$from"
    return 0
  fi
  local joined
  joined=$(printf '%s; ' "${problems[@]}")
  echo "grow: $mode: $from -> $to ranks: NOT OK: ${joined%; } (logs in $dir)"
  return 1
}

{
  passed=0 total=0
  IFS=, read -r -a jobs <<< "${JOBS:-2:4,4:8}"
  IFS=, read -r -a chosen <<< "${MODES:-NONE,LOCAL,GRAPH}"
  for job in "${jobs[@]}"; do
    for mode in "${chosen[@]}"; do
      total=$((total + 1))
      run_job "$job" "$mode" && passed=$((passed + 1))
    done
  done
  echo "grow: $passed/$total jobs as expected ($backend, jobs ${JOBS:-2:4,4:8}, $steps steps after)"
  [ "$passed" -eq "$total" ]
} 2>&1 | tee "$out/grow.log"
exit "${PIPESTATUS[0]}"
