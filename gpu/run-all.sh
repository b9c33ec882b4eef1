#!/usr/bin/env bash
# Runs the native backends' proof on a CUDA GPU machine: library facts, the gpu-tagged suite with backend nccl,
# the same suite with backend mccl against a forwarding library built here from gpu/mccl_forward.c, and the
# benchmark (Java beside the native C baseline). Staged by gpu/stage.sh into .gpu/ of the repository root.
# Usage: bash .gpu/run-all.sh [info] [nccl] [mccl] [bench] [quickbench]   (no argument: all but quickbench)
# Writes logs to $OUT (or /tmp/collectives-out) and prints a summary last. NVLink SHARP stays off.
set -u
export NCCL_NVLS_ENABLE=0 MCCL_NVLS_ENABLE=0 # the MCCL name too: the backend reads <PREFIX>_NVLS_ENABLE
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/collectives-out}
mkdir -p "$out"
stages=${*:-info nccl mccl bench}
java=$here/jre/bin/java
summary=$out/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
has() { [[ " $stages " == *" $1 "* ]]; }

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
selections="method:DeviceInitGpuTest#reportsVersionAndSymbols method:DeviceInitGpuTest#configWithCtaPolicyAndCollnetOffReduces
  method:DeviceInitGpuTest#captureAsTheFirstCollectiveOfAFreshCommunicator method:DeviceInitGpuTest#commInitAll
  method:DeviceInitGpuTest#commSplit class:DeviceCollectivesGpuTest class:DeviceMemoryGpuTest class:DeviceFailureGpuTest"
junit() { # $1 label
  local log=$out/tests-$1.log rc sel kind name
  : > "$log"
  for sel in $selections; do
    kind=${sel%%:*}; name=${sel#*:}
    echo "==== $name" >> "$log"
    timeout -k 10 240 "$java" -Xss16m -Dcollectives.device.syncTimeoutSeconds=60 \
      -jar "$here"/lib/junit-platform-console-standalone-*.jar execute --class-path "$classpath" \
      --select-$kind dev.collectives.backend.device.$name --include-tag gpu --disable-banner --details=tree \
      --reports-dir "$build/reports-$1-${name//#/-}" >> "$log" 2>&1
    rc=$?
    note "tests $1 $name: rc=$rc $(tail -20 "$log" | grep -E 'tests (successful|failed)' | tr -s ' ' | tr '\n' ' ')"
  done
}
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

if has mccl; then
  extra=""
  exported "$nccl" ncclAlltoAll && extra="$extra -DFORWARD_ALLTOALL"
  exported "$nccl" ncclWinGetUserPtr && extra="$extra -DFORWARD_WINDOW_HELPERS"
  if gcc -shared -fPIC -O2 $extra -o "$build/libmccl.so" "$here/mccl_forward.c" $links > "$out/builds.log" 2>&1; then
    export COLLECTIVES_MCCL_CCL_LIBRARY=$build/libmccl.so COLLECTIVES_MCCL_RUNTIME_LIBRARY=$build/libmccl.so \
      COLLECTIVES_MCCL_DRIVER_LIBRARY=$build/libmccl.so
    COLLECTIVES_BACKEND=mccl junit mccl
  else
    note "mccl forwarding library did not build: $(tail -5 "$out/builds.log")"
  fi
fi

if has native; then # the C baseline alone, a short sweep of each mode (a check that it builds and runs)
  gcc -O2 -o "$build/native_bench" "$here/native_bench.c" $links -lpthread >> "$out/builds.log" 2>&1
  for mode in none local graph window; do
    timeout -k 5 60 "$build/native_bench" allreduce $mode 8 33554432 2
  done > "$out/native.txt" 2>&1
  note "native: $(grep -E ' (8|33554432) ' "$out/native.txt" | tr '\n' ';')"
fi

if has bench || has quickbench; then
  if gcc -O2 -o "$build/native_bench" "$here/native_bench.c" $links -lpthread >> "$out/builds.log" 2>&1; then
    max=2147483648; has quickbench && max=33554432
    timeout -k 10 540 "$java" -Xss16m -cp "$classpath" dev.collectives.examples.bench.DeviceBenchmark \
      --native "$build/native_bench" --min 8 --max $max --ranks 2 --out "$out/bench.txt" > "$out/bench.log" 2>&1
    note "bench: rc=$? $(tail -3 "$out/bench.log" | tr '\n' ' ')"
  else
    note "native_bench did not build: $(tail -5 "$out/builds.log")"
  fi
fi
echo "==== summary"; cat "$summary"
