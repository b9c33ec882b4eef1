#!/usr/bin/env bash
# Device memory that NCCL takes per rank for a communicator of 2, 4 and 8 ranks (RANKS), each way: peers connected
# when the communicator is made (NCCL_RUNTIME_CONNECT=0, what -Dcollectives.device.connectAtInit=true asks for) and
# lazily (the library's default, which the Java backend leaves alone), each after one allreduce of 1 float, which
# makes the lazy connections it needs. Every rank is a process of gpu/native_bench.c ('memory-rank') on device 0 with
# its own NCCL_HOSTID, NCCL connecting them over sockets on lo. The figure is, read from nvidia-smi while they hold
# everything: (device memory used with N processes holding a rank each − used with N processes holding the same
# context, stream and buffer without a communicator) / N. The communicator is the library's: the Java backend's takes
# what one made from C takes ('bench memory', one rank). Staged by gpu/stage.sh into .gpu/; run there:
#   bash .gpu/connect-memory.sh
# Prints 'connect-memory: N ranks: at init A MiB, lazily B MiB per rank' for each N; exits 0 when every job held.
# Variables: RANKS (2,4,8), OUT (/tmp/collectives-connect-memory: the processes' logs).
set -u
here=$(cd "$(dirname "$0")" && pwd)
backend=nccl
. "$here/job-devices.sh"
export NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1 NCCL_NVLS_ENABLE=0
unset NCCL_RUNTIME_CONNECT # the library's default, but where a job below asks for connections at init
out=${OUT:-/tmp/collectives-connect-memory}
mkdir -p "$out"
nccl=$COLLECTIVES_NCCL_CCL_LIBRARY cudart=$COLLECTIVES_NCCL_RUNTIME_LIBRARY cuda=$COLLECTIVES_NCCL_DRIVER_LIBRARY
bench=$out/native_bench
if ! gcc -O2 -o "$bench" "$here/native_bench.c" -L"$(dirname "$nccl")" -L"$(dirname "$cudart")" -L"$(dirname "$cuda")" \
  -l:"$(basename "$nccl")" -l:"$(basename "$cudart")" -l:"$(basename "$cuda")" \
  -Wl,-rpath,"$(dirname "$nccl")":"$(dirname "$cudart")":"$(dirname "$cuda")" -lpthread > "$out/build.log" 2>&1; then
  echo "connect-memory: native_bench did not build: $(tail -3 "$out/build.log")"
  exit 2
fi
echo "connect-memory: $(nvidia-smi --query-gpu=name --format=csv,noheader -i 0), NCCL $nccl"

# starts $1 processes, ranks of one communicator when $2 is 'ranks' (else baselines), in $3; echoes the device memory
# used (MiB) once every one holds, or nothing when one failed
held_memory() {
  local n=$1 kind=$2 dir=$3 pids=() r
  rm -rf "$dir" && mkdir -p "$dir"
  for ((r = 0; r < n; r++)); do
    NCCL_HOSTID=connect-memory-$r timeout 180 "$bench" memory-rank "$([ "$kind" = ranks ] && echo $r || echo $((-r - 1)))" \
      "$n" "$dir" > "$dir/process-$r.log" 2>&1 &
    pids+=($!)
  done
  local ready=0
  for _ in $(seq 1 1500); do
    ready=$(find "$dir" -name 'ready-*' | wc -l)
    [ "$ready" -ge "$n" ] && break
    local alive=0 pid
    for pid in "${pids[@]}"; do kill -0 "$pid" 2> /dev/null && alive=$((alive + 1)); done
    [ "$alive" = "$n" ] || break
    sleep 0.1
  done
  [ "$ready" -ge "$n" ] && { sleep 1; nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0; }
  touch "$dir/done"
  for pid in "${pids[@]}"; do wait "$pid"; done
}

per_rank() { # $1 ranks, $2 used with ranks, $3 used with baselines
  [ -n "$2" ] && [ -n "$3" ] && awk -v n="$1" -v a="$2" -v b="$3" 'BEGIN { printf "%.1f", (a - b) / n }' || echo "failed"
}

IFS=, read -r -a sizes <<< "${RANKS:-2,4,8}"
failed=0
for n in "${sizes[@]}"; do
  base=$(held_memory "$n" baseline "$out/$n-baseline")
  eager=$(NCCL_RUNTIME_CONNECT=0 held_memory "$n" ranks "$out/$n-at-init")
  lazy=$(held_memory "$n" ranks "$out/$n-lazily")
  at_init=$(per_rank "$n" "$eager" "$base")
  lazily=$(per_rank "$n" "$lazy" "$base")
  [ "$at_init" = failed ] || [ "$lazily" = failed ] && failed=1
  echo "connect-memory: $n ranks: at init $at_init MiB, lazily $lazily MiB per rank (used: baseline ${base:-?}," \
    "at init ${eager:-?}, lazily ${lazy:-?} MiB; logs in $out)"
done
exit $failed
