#!/usr/bin/env bash
# Sizes at call time on one GPU (1 rank, nccl): ShapesBenchmark beside the native baseline (a C loop in this
# process), again with COLLECTIVES_CHECK=calls, the gradient-buckets example, and DeviceShapesGpuTest. Staged like run-all.sh
# (gpu/stage.sh with MODULES=runtime,tools); JAVA overrides the staged runtime. Logs to $OUT; a summary last.
set -u
export NCCL_NVLS_ENABLE=0
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/out}; mkdir -p "$out"
lib() { ldconfig -p | awk -v n="$1" '$1==n {print $NF; exit}'; }
nccl=$(lib libnccl.so.2); cudart=$(lib libcudart.so.13); [ -n "$cudart" ] || cudart=$(find / -name 'libcudart.so.13' 2>/dev/null | head -1)
cuda=$(lib libcuda.so.1)
export COLLECTIVES_NCCL_CCL_LIBRARY=$nccl COLLECTIVES_NCCL_RUNTIME_LIBRARY=$cudart COLLECTIVES_NCCL_DRIVER_LIBRARY=$cuda
echo "libraries: $nccl $cudart $cuda" | tee "$out/summary.txt"
java="${JAVA:-$here/jre/bin/java} -Xss16m"
cp="$here/lib/*"
timeout -k 5 150 $java -cp "$cp" dev.collectives.tools.bench.ShapesBenchmark --backend nccl --ranks 1 \
  > "$out/shapes.txt" 2>&1
echo "bench rc=$?" >> "$out/summary.txt"
COLLECTIVES_CHECK=calls timeout -k 5 60 $java -cp "$cp" dev.collectives.tools.bench.ShapesBenchmark \
  --backend nccl --ranks 1 --iters 2000 > "$out/shapes-check.txt" 2>&1
echo "bench with COLLECTIVES_CHECK=calls rc=$?" >> "$out/summary.txt"
timeout -k 5 60 $java -cp "$cp" dev.collectives.examples.Runner --backend nccl --ranks 1 --example gradient-buckets \
  > "$out/example.txt" 2>&1
echo "example rc=$? $(grep -E '^(check|examples):' "$out/example.txt" | tr '\n' ' ')" >> "$out/summary.txt"
jars=$(ls "$here"/lib/*.jar | grep -v console-standalone | tr '\n' ':')
timeout -k 5 90 $java -jar "$here"/lib/junit-platform-console-standalone-1.14.4.jar execute --class-path "$jars" \
  --select-class dev.collectives.backend.device.DeviceShapesGpuTest --include-tag gpu --disable-banner --details=tree \
  > "$out/gpu-test.log" 2>&1
echo "gpu test rc=$? $(grep -E 'tests (successful|failed)' "$out/gpu-test.log" | tr -s ' ' | tr '\n' ' ')" >> "$out/summary.txt"
tail -20 "$out/shapes.txt"; grep -E 'step|checks|over' "$out/shapes-check.txt" | tail -8
cat "$out/summary.txt"
