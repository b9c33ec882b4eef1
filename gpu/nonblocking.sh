#!/usr/bin/env bash
# What non-blocking communicators cost and what they bound, on nccl, in one GPU call: bench overhead (Java minus the
# same calls from C, per op) on the default, non-blocking communicators and on blocking ones
# (-Dcollectives.device.blocking=true), one after the other with the same jars, then gpu/missing-rank.sh (a job
# formed from a unique id with a rank missing must fail within its timeout). Writes the logs to $OUT (default
# /tmp/collectives-out) and prints the end of each.
# Usage (staged by gpu/stage.sh with MODULES=runtime,tools): bash .gpu/nonblocking.sh [ROUNDS, default 60]
set -u
export NCCL_NVLS_ENABLE=0
here=$(cd "$(dirname "$0")" && pwd)
java=${JAVA:-$here/jre/bin/java}
out=${OUT:-/tmp/collectives-out}
mkdir -p "$out"
classpath=$(ls "$here"/lib/*.jar | grep -v console-standalone | tr '\n' ':')
for blocking in false true; do
  timeout -k 5 120 "$java" -Xss16m -Dcollectives.device.blocking=$blocking -cp "$classpath" \
    dev.collectives.tools.bench.OverheadBenchmark --rounds "${1:-60}" > "$out/overhead-blocking-$blocking.log" 2>&1
  echo "overhead, blocking=$blocking: rc=$? (per cell: Java and native time per op, then the summary)"
  tail -n 40 "$out/overhead-blocking-$blocking.log"
done
bash "$here/missing-rank.sh" 10
