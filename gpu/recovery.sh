#!/usr/bin/env bash
# Recovery from a dead rank on the real library (the runner's 'recovery'): in each registration mode of MODES, RANKS
# processes, one per rank, run a gradient allreduce; rank KILL halts its process as its step 2 begins (exit status
# 137, as if killed). Every survivor's step 2 must fail naming it; the survivors close the pipeline, shrink it away
# (on nccl: a new communicator formed among the survivors through the job's rendezvous), bind again on the child over
# the same gradients and stream, and run STEPS steps, each checked against the survivors' sum. No log may show error
# 700 (an illegal memory access: a device context poisoned by a free during the abort). Prints one line per mode and
# the line 'recovery: a/b modes as expected'; exits 0 when every mode is. With more ranks than GPUs the processes
# share the GPUs round-robin, each with its own NCCL_HOSTID, NCCL talking over the socket transport on lo: a setup that
# proves behaviour, never speed. BACKEND=sim needs no GPU.
# Staged by gpu/stage.sh (MODULES=runtime,tools) into .gpu/ beside job-devices.sh, .gpu/lib and .gpu/jre; run there:
#   bash .gpu/recovery.sh
# Variables: BACKEND (nccl), RANKS (3), KILL (1; not 0, whose process serves the rendezvous), MODES (NONE,LOCAL,GRAPH),
# STEPS (100), SYNC_TIMEOUT (60: seconds a synchronize waits on nccl), JOB_TIMEOUT (300: seconds per process), OUT
# (/tmp/collectives-recovery: each process's log, OUT/<mode>/rank-<r>.log, and recovery.log), JAVA, CLASS_PATH.
set -u
export NCCL_NVLS_ENABLE=0 MCCL_NVLS_ENABLE=0
here=$(cd "$(dirname "$0")" && pwd)
backend=${BACKEND:-nccl}
ranks=${RANKS:-3}
doomed=${KILL:-1}
steps=${STEPS:-100}
out=${OUT:-/tmp/collectives-recovery}
java=${JAVA:-$here/jre/bin/java}
classpath=${CLASS_PATH:-$(ls "$here"/lib/*.jar | grep -v console-standalone | tr '\n' ':')}
. "$here/job-devices.sh"
mkdir -p "$out"

# a port on 127.0.0.1 that nothing listens on
free_port() {
  local p
  for p in $(seq $((29500 + RANDOM % 2000)) 31999); do
    (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null || { echo "$p"; return; }
  done
}

# runs one mode's job; prints its line; returns 0 when it went as expected
run_mode() {
  local mode=$1 dir=$out/$1 port token r problems=() status
  rm -rf "$dir"; mkdir -p "$dir"
  port=$(free_port)
  token=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
  local pids=()
  for ((r = 0; r < ranks; r++)); do
    COLLECTIVES_BACKEND=$backend COLLECTIVES_RANK=$r COLLECTIVES_WORLD_SIZE=$ranks COLLECTIVES_JOB_TOKEN=$token \
      COLLECTIVES_RENDEZVOUS=tcp://127.0.0.1:$port COLLECTIVES_DEVICE=$((r % devices)) \
      NCCL_HOSTID=recovery-$mode-rank-$r NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo} \
      timeout "${JOB_TIMEOUT:-300}" "$java" --enable-native-access=ALL-UNNAMED \
      -Dcollectives.device.syncTimeoutSeconds="${SYNC_TIMEOUT:-60}" -cp "$classpath" dev.collectives.examples.Runner \
      recovery --kill "$doomed" --registration "$mode" --steps "$steps" > "$dir/rank-$r.log" 2>&1 &
    pids+=($!)
  done
  for ((r = 0; r < ranks; r++)); do
    wait "${pids[$r]}"; status=$?
    local log=$dir/rank-$r.log
    if [ "$r" -eq "$doomed" ]; then
      [ "$status" -eq 137 ] || problems+=("rank $r exited with $status, not 137")
      continue
    fi
    [ "$status" -eq 0 ] || problems+=("rank $r exited with $status")
    grep -q "^step 2 failed: .*rank $doomed at .* is gone" "$log" || problems+=("rank $r's step 2 did not fail naming rank $doomed")
    grep -q "^recovered: $steps steps\? among the survivors" "$log" || problems+=("rank $r did not run $steps steps after the shrink")
    grep -q "^check: OK on rank $r " "$log" || problems+=("rank $r's sums are wrong")
  done
  local poisoned
  poisoned=$(grep -l "error 700\|illegal memory access" "$dir"/rank-*.log 2> /dev/null | xargs -r -n1 basename | tr '\n' ' ')
  [ -z "$poisoned" ] || problems+=("error 700 in ${poisoned% }")
  local path
  path=$(grep -m1 -o "shrunk from [^)]*" "$dir/rank-0.log" | head -1)
  if [ ${#problems[@]} -eq 0 ]; then
    echo "recovery: $mode: $ranks ranks, rank $doomed killed in step 2; rank 0's child: ${path:-?}; $steps steps with the right sums, no error 700: OK"
    return 0
  fi
  local joined
  joined=$(printf '%s; ' "${problems[@]}")
  echo "recovery: $mode: $ranks ranks, rank $doomed killed in step 2: NOT OK: ${joined%; } (logs in $dir)"
  return 1
}

{
  passed=0 total=0
  IFS=, read -r -a chosen <<< "${MODES:-NONE,LOCAL,GRAPH}"
  for mode in "${chosen[@]}"; do
    total=$((total + 1))
    run_mode "$mode" && passed=$((passed + 1))
  done
  echo "recovery: $passed/$total modes as expected ($backend, $ranks ranks, rank $doomed killed, $steps steps after)"
  [ "$passed" -eq "$total" ]
} 2>&1 | tee "$out/recovery.log"
exit "${PIPESTATUS[0]}"
