#!/usr/bin/env bash
# One GPU call's worth of the figures on the flight recorder and on connecting as the library does:
#  1. bench overhead (OverheadBenchmark) on nccl at 1 rank, ROUNDS (400) rounds, the flight recorder off and then on
#     in the same process, the card named: Java − native per op, eager and per graph launch;
#  2. gpu/peers.sh: jobs of CuPy and PyTorch ranks beside Java ranks in every mode (NONE, LOCAL, GRAPH), every side
#     on NCCL's connection default, nothing exported;
#  3. gpu/connect-memory.sh: NCCL's device memory per rank at 2, 4 and 8 ranks, connected at init and lazily.
# Staged by gpu/stage.sh (MODULES=runtime,tools) into .gpu/; run there: bash .gpu/overhead-and-peers.sh
# Writes into RESULTS (default /tmp/collectives-results) at most 6 files: summary.txt, overhead.log, overhead.csv,
# peers.log, connect-memory.log and logs.tar.gz (every process's log); prints the summary last. Each part runs under
# its own time limit (OVERHEAD_LIMIT 150, PEERS_LIMIT 280, MEMORY_LIMIT 100 seconds; a peers job's processes
# JOB_TIMEOUT 60), under 10 minutes in all.
set -u
here=$(cd "$(dirname "$0")" && pwd)
results=${RESULTS:-/tmp/collectives-results}
work=/tmp/collectives-overhead-and-peers
mkdir -p "$results" "$work"
. "$here/java-setup.sh"
backend=nccl
. "$here/job-devices.sh"
export NCCL_NVLS_ENABLE=0
unset NCCL_RUNTIME_CONNECT # the library's default everywhere
summary=$results/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
note "card: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tr '\n' ';'); nccl: $COLLECTIVES_NCCL_CCL_LIBRARY"

timeout -k 5 "${OVERHEAD_LIMIT:-150}" "$java" -Xss16m -cp "$classpath" dev.collectives.tools.bench.OverheadBenchmark \
  --ranks 1 --rounds "${ROUNDS:-400}" --recorder off,on --csv "$results/overhead.csv" > "$results/overhead.log" 2>&1
note "overhead: rc=$? $(grep -E '^# (card|(none|local|graph) +recorder)' "$results/overhead.log" | tr -s ' ' | tr '\n' ';')"

OUT=$work/peers JOB_TIMEOUT=${JOB_TIMEOUT:-60} timeout -k 5 "${PEERS_LIMIT:-280}" bash "$here/peers.sh" > "$results/peers.log" 2>&1
note "peers: rc=$? $(grep -E '^peers: .*(agree|as expected|processes:|NOT OK)' "$results/peers.log" | tr '\n' ';')"

OUT=$work/connect-memory timeout -k 5 "${MEMORY_LIMIT:-100}" bash "$here/connect-memory.sh" \
  > "$results/connect-memory.log" 2>&1
note "connect-memory: rc=$? $(grep -E '^connect-memory: [0-9]+ ranks' "$results/connect-memory.log" | cut -d'(' -f1 \
  | tr '\n' ';')"

tar -czf "$results/logs.tar.gz" -C "$work" . 2> /dev/null
echo "==== summary"
cat "$summary"
