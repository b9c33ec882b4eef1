#!/usr/bin/env bash
# One GPU call's worth of the figures on the op path and on connecting as the library does:
#  1. bench overhead (OverheadBenchmark) on nccl at 1 rank, ROUNDS (400) rounds, the flight recorder off and then on
#     in the same process, the card named: Java − native per op, eager and per graph launch;
#  2. gpu/peers.sh: jobs of CuPy and PyTorch ranks beside Java ranks in every mode (NONE, LOCAL, GRAPH), every side
#     on NCCL's connection default, nothing exported, every rank on the Python side's NCCL (PEERS_RANKS: 4 ranks);
#  3. gpu/connect-memory.sh: NCCL's device memory per rank at 2, 4 and 8 ranks, connected at init and lazily;
#  4. gpu/differential.sh at 4 and 8 processes (DIFF_RANKS), the examples and the staged corpus (stage it with
#     CORPUS=100 to fit the time).
# Staged by gpu/stage.sh into .gpu/:  MODULES=runtime,tools CORPUS=100 bash gpu/stage.sh
# then run there: bash .gpu/overhead-and-peers.sh
# Writes into RESULTS (default /tmp/collectives-results) at most 7 files: summary.txt, overhead.log, overhead.csv,
# peers.log, connect-memory.log, differential.log and logs.tar.gz (every process's log); prints the summary last.
# Each part runs under its own time limit (OVERHEAD_LIMIT 90, PEERS_LIMIT 160, MEMORY_LIMIT 80, DIFF_LIMIT 185
# seconds; a peers job's processes JOB_TIMEOUT 45), 8 min 55 s in all at most, the kills' grace included.
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
system_nccl=$COLLECTIVES_NCCL_CCL_LIBRARY
summary=$results/summary.txt
: > "$summary"
note() { echo "$*" | tee -a "$summary"; }
note "card: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tr '\n' ';'); nccl: $system_nccl"

timeout -k 5 "${OVERHEAD_LIMIT:-90}" "$java" -Xss16m -cp "$classpath" dev.collectives.tools.bench.OverheadBenchmark \
  --ranks 1 --rounds "${ROUNDS:-400}" --recorder off,on --csv "$results/overhead.csv" > "$results/overhead.log" 2>&1
note "overhead: rc=$? $(grep -E '^# (card|(none|local|graph) +recorder)' "$results/overhead.log" | tr -s ' ' | tr '\n' ';')"

# peers.sh picks the Python side's NCCL for every rank of its jobs; the system's exported above is not passed on
env -u COLLECTIVES_NCCL_CCL_LIBRARY OUT="$work/peers" RANKS="${PEERS_RANKS:-4}" JOB_TIMEOUT="${JOB_TIMEOUT:-45}" \
  timeout -k 5 "${PEERS_LIMIT:-160}" bash "$here/peers.sh" > "$results/peers.log" 2>&1
note "peers: rc=$? $(grep -E '^peers: .*(NCCL is|agree|as expected|processes:|NOT OK)' "$results/peers.log" \
  | tr '\n' ';')"

OUT=$work/connect-memory timeout -k 5 "${MEMORY_LIMIT:-80}" bash "$here/connect-memory.sh" \
  > "$results/connect-memory.log" 2>&1
note "connect-memory: rc=$? $(grep -E '^connect-memory: [0-9]+ ranks' "$results/connect-memory.log" | cut -d'(' -f1 \
  | tr '\n' ';')"

OUT=$work/differential RANKS=${DIFF_RANKS:-4,8} PARTS=examples,corpus CORPUS=${CORPUS:-100} \
  timeout -k 5 "${DIFF_LIMIT:-185}" bash "$here/differential.sh" > "$results/differential.log" 2>&1
note "differential: rc=$? $(grep -E '^differential: [0-9]+ ranks' "$results/differential.log" | tr '\n' ';')"

tar -czf "$results/logs.tar.gz" -C "$work" . 2> /dev/null
echo "==== summary"
cat "$summary"
