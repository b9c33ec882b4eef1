#!/usr/bin/env bash
# Runs the native backends' proof on a CUDA GPU machine: library facts, the examples runner (the generated
# pipelines) on backends nccl and mccl, the gpu-tagged suite with backend nccl, the same suite with backend mccl
# against a forwarding library built here from gpu/mccl_forward.c, and the benchmark (Java beside the native C
# baseline). Staged by gpu/stage.sh into .gpu/ of the repository root.
# Usage: bash .gpu/run-all.sh [info] [examples] [join] [mcclreg] [nccl] [mccl] [overhead] [memory] [fusion] [bench]
# [quickbench] (no argument: info examples nccl mccl bench). mcclreg: the mccl fixture reporting version 2.28.9, so
# registration and windows run. fusion: k adjacent allreduces per step, by hand, as a pipeline planned (fused) and
# as written, and from C one by one and fused (FusionBenchmark with native_bench); overhead: Java minus native per
# op; memory: device memory per communicator and
# per pipeline; join: the runner's examples and mistakes as a job of two processes (sharing the GPU where there is
# one). On a host with one GPU, the suite's tests of two ranks run as two processes sharing it (one rank each, over
# NCCL's sockets). BENCH_RANKS (default 1) sets the benchmarks' ranks; JAVA another java than the staged one.
# Stages run in that order. Everything ends within $DEADLINE seconds (default 380) of the start: each program's
# time limit is cut to what is left, and a stage with under 15 s left is skipped. Writes at most 7 logs to $OUT (or
# /tmp/collectives-out) and prints a summary last. NVLink SHARP stays off. The full benchmark sweep:
# BENCH_MAX=2147483648 BENCH_OPS=allreduce,allgather,reducescatter BENCH_MODES=none,local,graph,window.
set -u
export NCCL_NVLS_ENABLE=0 MCCL_NVLS_ENABLE=0 # the MCCL name too: the backend reads <PREFIX>_NVLS_ENABLE
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/collectives-out}
mkdir -p "$out"
stages=${*:-info examples nccl mccl bench}
deadline=${DEADLINE:-380}
java=${JAVA:-$here/jre/bin/java}
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
has() { [[ " $stages " == *" $1 "* ]]; }
limit() { # min($1, seconds left before the deadline less 5 for the kill); 0 when under 15 s are left
  local left=$((deadline - SECONDS - 5))
  if ((left < 15)); then echo 0; elif ((left < $1)); then echo $left; else echo "$1"; fi
}

exported() { nm -D --defined-only "$1" 2>/dev/null | grep -qE " $2(@.*)?\$"; }
libfile() { # the first path of a shared library: ldconfig, then the usual places, then pip's nvidia packages
  local p
  p=$(ldconfig -p 2>/dev/null | awk -v n="$1" '$1==n {print $NF; exit}')
  [ -n "$p" ] || p=$(find /usr/lib /usr/local /opt /lib -name "$1" 2>/dev/null | head -1)
  [ -n "$p" ] || p=$(python3 -c 'import nvidia,os;print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null \
    | xargs -I{} find {} -name "$1" 2>/dev/null | head -1)
  echo "$p"
}
nccl=$(libfile libnccl.so.2)
cudart=$(libfile libcudart.so.13); [ -n "$cudart" ] || cudart=$(libfile libcudart.so.12)
cuda=$(libfile libcuda.so.1)
export COLLECTIVES_NCCL_CCL_LIBRARY=$nccl COLLECTIVES_NCCL_RUNTIME_LIBRARY=$cudart COLLECTIVES_NCCL_DRIVER_LIBRARY=$cuda
note "libraries: nccl=$nccl cudart=$cudart cuda=$cuda"

build=/tmp/collectives-build; mkdir -p "$build"
links="-L$(dirname "$nccl") -L$(dirname "$cudart") -L$(dirname "$cuda") -l:$(basename "$nccl") -l:$(basename "$cudart") -l:$(basename "$cuda") -Wl,-rpath,$(dirname "$nccl"):$(dirname "$cudart"):$(dirname "$cuda")"

if has info; then
  { nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv
    nvidia-smi topo -m
    for s in ncclGetVersion ncclCommWindowRegister ncclWinGetUserPtr ncclGetLsaDevicePointer ncclAlltoAll ncclCommInitRankConfig ncclCommShrink; do
      if exported "$nccl" $s; then echo "$s present"; else echo "$s absent"; fi; done
    strings "$nccl" | grep -m1 -E "^NCCL version" ; } > "$out/info.txt" 2>&1
  note "$(grep -E 'GPU [0-9]|present|absent|NCCL version' "$out/info.txt" | tr '\n' ';')"
fi

classpath=$(ls "$here"/lib/*.jar | grep -v console-standalone | tr '\n' ':')
# Each selection runs in its own JVM (a crash stays in its selection), under a time limit.
# (SELECTIONS replaces the list; a test whose rank processes hang is reported after RANK_TIMEOUT s, default 90)
selections=${SELECTIONS:-"method:DeviceInitGpuTest#reportsVersionAndSymbols method:DeviceInitGpuTest#configWithCtaPolicyAndCollnetOffReduces
  method:DeviceInitGpuTest#captureAsTheFirstCollectiveOfAFreshCommunicator method:DeviceInitGpuTest#commInitAll
  method:DeviceInitGpuTest#commSplit class:DeviceSplitGpuTest class:DeviceCollectivesGpuTest class:DeviceMemoryGpuTest class:DeviceFailureGpuTest"}
junit() { # $1 label
  local log=$out/tests-$1.log rc sel kind name secs
  : > "$log"
  for sel in $selections; do
    kind=${sel%%:*}; name=${sel#*:}
    echo "==== $name" >> "$log"
    secs=$(limit 120)
    if ((secs == 0)); then note "tests $1 $name: skipped, out of time"; continue; fi
    timeout -k 5 "$secs" "$java" -Xss16m -Dcollectives.device.syncTimeoutSeconds=60 \
      -Dcollectives.test.rankTimeoutSeconds="${RANK_TIMEOUT:-90}" \
      -jar "$here"/lib/junit-platform-console-standalone-*.jar execute --class-path "$classpath" \
      --select-$kind dev.collectives.backend.device.$name --include-tag gpu --disable-banner --details=tree \
      --reports-dir "$build/reports-$1-${name//#/-}" >> "$log" 2>&1
    rc=$?
    note "tests $1 $name: rc=$rc $(tail -20 "$log" | grep -E 'tests (successful|failed)' | tr -s ' ' | tr '\n' ' ')"
  done
}
mccl_fixture() { # [$1 version code to report, e.g. 22809]: builds the forwarding library once and points the mccl
  # backend at it; 1 if it did not build
  local lib=$build/libmccl${1:+-$1}.so extra=""
  exported "$nccl" ncclAlltoAll && extra="$extra -DFORWARD_ALLTOALL"
  exported "$nccl" ncclGather && extra="$extra -DFORWARD_GATHER_SCATTER"
  exported "$nccl" ncclWinGetUserPtr && extra="$extra -DFORWARD_WINDOW_HELPERS"
  [ -n "${1:-}" ] && extra="$extra -DFIXTURE_VERSION=$1"
  if [ -f "$lib" ] || gcc -shared -fPIC -O2 $extra -o "$lib" "$here/mccl_forward.c" $links >> "$build/builds.log" 2>&1; then
    export COLLECTIVES_MCCL_CCL_LIBRARY=$lib COLLECTIVES_MCCL_RUNTIME_LIBRARY=$lib COLLECTIVES_MCCL_DRIVER_LIBRARY=$lib
  else
    note "mccl forwarding library did not build: $(tail -5 "$build/builds.log")"
    return 1
  fi
}

# the in-process runner takes one GPU per rank: 2 ranks where there are 2 GPUs, else 1 (the join stage runs 2 ranks
# as processes sharing one GPU)
runner_ranks=$(( $(nvidia-smi -L 2>/dev/null | grep -c '^GPU') >= 2 ? 2 : 1 ))
runner() { # $1 backend, $2 optional --mistakes: the examples runner, its summary line noted
  local log=$build/examples-$1${2:+-mistakes}.log secs rc
  secs=$(limit 100)
  if ((secs == 0)); then note "examples $1 ${2:-}: skipped, out of time"; return; fi
  timeout -k 5 "$secs" "$java" -Xss16m -Dcollectives.device.syncTimeoutSeconds=60 -cp "$classpath" \
    dev.collectives.examples.Runner --backend "$1" --ranks "$runner_ranks" ${2:-} > "$log" 2>&1
  rc=$?
  note "examples $1 ${2:-}: rc=$rc ${SECONDS}s $(grep -E '^(examples|mistakes): |^(FAILED|check: WRONG|error)' "$log" \
    | cut -c1-300 | tr '\n' ' ')"
  { echo "==== --backend $1 --ranks $runner_ranks ${2:-}: rc=$rc"; cat "$log"; } >> "$out/examples.log"
}
if has examples; then
  NCCL_LEGACY_CUDA_REGISTER=1 runner nccl; runner nccl --mistakes
  if mccl_fixture; then MCCL_LEGACY_MUSA_REGISTER=1 runner mccl; runner mccl --mistakes; fi
fi
joined() { # $1 backend, $2 optional --mistakes: the runner's `join` as a job of two processes, one GPU each; with a
  # single GPU both run on device 0, each with its own NCCL_HOSTID, so that NCCL connects them through its sockets
  local log=$build/join-$1${2:+-mistakes} secs r pids=() rcs="" port=$((29500 + RANDOM % 1000)) shared=()
  secs=$(limit 120)
  if ((secs == 0)); then note "join $1 ${2:-}: skipped, out of time"; return; fi
  (( $(nvidia-smi -L | grep -c '^GPU') < 2 )) && shared=(COLLECTIVES_DEVICE=0 NCCL_SOCKET_IFNAME=lo)
  for r in 0 1; do
    env COLLECTIVES_BACKEND="$1" COLLECTIVES_RANK=$r COLLECTIVES_WORLD_SIZE=2 COLLECTIVES_LOCAL_RANK=$r \
      COLLECTIVES_RENDEZVOUS=tcp://127.0.0.1:$port COLLECTIVES_JOB_TOKEN=a-two-process-job-on-this-machine \
      "${shared[@]}" ${shared:+NCCL_HOSTID=rank-$r} timeout -k 5 "$secs" "$java" -Xss16m \
      -Dcollectives.device.syncTimeoutSeconds=60 -cp "$classpath" dev.collectives.examples.Runner join ${2:-} \
      > "$log-$r.log" 2>&1 &
    pids+=($!)
  done
  for r in 0 1; do wait "${pids[$r]}"; rcs="$rcs $?"; done
  note "join $1 ${2:-} (2 processes${shared:+ on one GPU}): rc=$rcs $(grep -hE '^(examples|mistakes): ' "$log"-*.log \
    | tr '\n' ' ')"
  for r in 0 1; do { echo "==== join $1 ${2:-} rank $r: rc=$(echo $rcs | cut -d' ' -f$((r + 1)))"; cat "$log-$r.log"; } \
    >> "$out/join.log"; done
}
if has join; then NCCL_LEGACY_CUDA_REGISTER=1 joined nccl; joined nccl --mistakes; fi
if has mcclreg && mccl_fixture 22809; then # the MCCL dialect with its 2.28.9 gates open: registration and windows
  MCCL_LEGACY_MUSA_REGISTER=1 runner mccl; runner mccl --mistakes
  selections="class:DeviceMemoryGpuTest class:DeviceCollectivesGpuTest" COLLECTIVES_BACKEND=mccl junit mccl-22809
fi

if has nccl; then COLLECTIVES_BACKEND=nccl junit nccl; fi
if has connectcheck; then # the capture probe with lazy connections (the library's default)
  NCCL_RUNTIME_CONNECT=1 COLLECTIVES_BACKEND=nccl timeout -k 10 120 "$java" -Xss16m -jar "$here"/lib/junit-platform-console-standalone-*.jar \
    execute --class-path "$classpath" --include-tag gpu --disable-banner \
    --select-method dev.collectives.backend.device.DeviceInitGpuTest#captureAsTheFirstCollectiveOfAFreshCommunicator \
    > "$build/connectcheck.log" 2>&1
  note "connectcheck (NCCL_RUNTIME_CONNECT=1): rc=$? $(grep -E 'smashing|first collective|tests (successful|failed)' "$build/connectcheck.log" | cut -c1-400 | tr -s ' ' | tr '\n' ' ')"
fi
if has stackcheck; then # the collectives again with the JVM's default thread stack (1 MiB)
  COLLECTIVES_BACKEND=nccl timeout -k 10 120 "$java" -jar "$here"/lib/junit-platform-console-standalone-*.jar execute \
    --class-path "$classpath" --select-class dev.collectives.backend.device.DeviceCollectivesGpuTest --include-tag gpu --disable-banner \
    > "$build/stackcheck.log" 2>&1
  note "stackcheck (default -Xss): rc=$? $(grep -E 'smashing|tests (successful|failed)' "$build/stackcheck.log" | tr -s ' ' | tr '\n' ' ')"
fi

if has mccl && mccl_fixture; then COLLECTIVES_BACKEND=mccl junit mccl; fi

if has native; then # the C baseline alone, a short sweep of each mode (a check that it builds and runs)
  gcc -O2 -o "$build/native_bench" "$here/native_bench.c" $links -lpthread >> "$build/builds.log" 2>&1
  for mode in none local graph window; do
    timeout -k 5 60 "$build/native_bench" allreduce $mode 8 33554432 2
  done > "$out/native.txt" 2>&1
  note "native: $(grep -E ' (8|33554432) ' "$out/native.txt" | tr '\n' ';')"
fi

if has overhead; then # Java minus native per op, interleaved in one process (OverheadBenchmark)
  secs=$(limit ${OVERHEAD_LIMIT:-150})
  if ((secs == 0)); then note "overhead: skipped, out of time"; else
    timeout -k 5 "$secs" "$java" -Xss16m -cp "$classpath" dev.collectives.tools.bench.OverheadBenchmark \
      --ranks "${BENCH_RANKS:-1}" --rounds "${OVERHEAD_ROUNDS:-200}" --csv "$out/overhead.csv" > "$out/overhead.log" 2>&1
    note "overhead: rc=$? ${SECONDS}s $(grep -E '^# (none|local|graph|window) ' "$out/overhead.log" | tr '\n' ' ')"
  fi
fi
if has memory; then # device memory of a communicator and of bound pipelines (MemoryBenchmark), and the same from C
  gcc -O2 -o "$build/native_bench" "$here/native_bench.c" $links -lpthread >> "$build/builds.log" 2>&1
  n=${MEMORY_INSTANCES:-16}
  # each twice: NCCL connecting every peer at init (-Dcollectives.device.connectAtInit=true), and lazily (the
  # library's default, which the backend leaves alone)
  { echo "==== peers connected at init (NCCL_RUNTIME_CONNECT=0)"; NCCL_RUNTIME_CONNECT=0 timeout -k 5 60 "$build/native_bench" memory "$n"
    timeout -k 5 "$(limit 90)" "$java" -Xss16m -Dcollectives.device.connectAtInit=true -cp "$classpath" \
      dev.collectives.tools.bench.MemoryBenchmark --instances "$n"
    echo "==== lazy connections (the library's default)"
    timeout -k 5 60 "$build/native_bench" memory "$n"
    timeout -k 5 "$(limit 90)" "$java" -Xss16m -cp "$classpath" dev.collectives.tools.bench.MemoryBenchmark \
      --instances "$n"; } > "$out/memory.log" 2>&1
  note "memory: rc=$? $(grep -E '^====|communicator' "$out/memory.log" | tr -s ' ' | cut -c1-160 | tr '\n' ';')"
fi
if has fusion; then # what the processor's plan buys: k allreduces per step, fused or not, Java beside C
  gcc -O2 -o "$build/native_bench" "$here/native_bench.c" $links -lpthread >> "$build/builds.log" 2>&1
  secs=$(limit ${FUSION_LIMIT:-300})
  if ((secs == 0)); then note "fusion: skipped, out of time"; else
    timeout -k 5 "$secs" "$java" -Xss16m -cp "$classpath" dev.collectives.tools.bench.FusionBenchmark \
      --backend nccl --ranks "${BENCH_RANKS:-1}" --native-bench "$build/native_bench" --csv "$out/fusion.csv" \
      --json "$out/fusion.json" > "$out/fusion.log" 2>&1
    note "fusion: rc=$? ${SECONDS}s $(grep -E '^# k = ' "$out/fusion.log")"
  fi
fi
if has bench || has quickbench; then # nccl-tests-style tables, Java beside the same calls from C in this process
  max=${BENCH_MAX:-1073741824}; has quickbench && max=33554432
  secs=$(limit 540)
  if ((secs == 0)); then note "bench: skipped, out of time"; else
    timeout -k 5 "$secs" "$java" -Xss16m -cp "$classpath" dev.collectives.tools.bench.DeviceBenchmark \
      --min 8 --max "$max" --ranks "${BENCH_RANKS:-1}" --ops "${BENCH_OPS:-allreduce,allgather}" \
      --modes "${BENCH_MODES:-none,local,graph}" --csv "$out/bench.csv" --json "$out/bench.json" \
      --out "$build/bench.txt" > "$out/bench.log" 2>&1
    note "bench: rc=$? ${SECONDS}s (limit ${secs}s) $(tail -12 "$out/bench.log" | grep -E '^# ' | cut -c1-200 | tr '\n' ' ')"
  fi
fi
note "ended after ${SECONDS}s"
echo "==== summary"; cat "$summary"
