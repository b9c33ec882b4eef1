#!/usr/bin/env bash
# Detection of a frozen rank on the real library, with the library's default heartbeat timeout: on one GPU, shared by
# RANKS processes as separate NCCL ranks (each its own NCCL_HOSTID, NCCL over its socket transport on lo), the
# middle rank (RANKS/2) is stopped with SIGSTOP at a random moment mid-step (gpu/recovery.sh, DEATH=freeze). Every
# survivor must fail naming it, then shrink it away (or, REPLACE=1, reform the job with a process started in its
# place) and run STEPS checked steps; resumed with SIGCONT, the stopped process must fail saying it was excluded.
# Runs that at 4 and 8 ranks, shrink and replace, in registration mode NONE, and prints for each job the time from
# the stop to each survivor's failure ('stop -> failure': the detection time, since a survivor fails as soon as the
# job declares the stopped rank dead).
# Staged by gpu/stage.sh (MODULES=runtime,tools) into .gpu/; run there: RESULTS=/some/dir bash .gpu/detection.sh
# Writes into RESULTS (default /tmp/collectives-results): summary.txt (one line per job: OK or NOT OK, and its
# stop -> failure times), detection.log (every job's report) and logs.tar.gz (every process's log); prints the
# summary last. Under 5 minutes: a job of N ranks is limited to 10 N + 10 seconds (50 at 4, 90 at 8; every JVM
# starting at once on one GPU takes most of it), each of its processes to 5 s less.
# Variables: SIZES (4,8), RECOVERIES (shrink,replace), STEPS (50), GPU (0: the one GPU the ranks share), RESULTS.
set -u
here=$(cd "$(dirname "$0")" && pwd)
results=${RESULTS:-/tmp/collectives-results}
work=/tmp/collectives-detection
rm -rf "$work"
mkdir -p "$results" "$work"
export CUDA_VISIBLE_DEVICES=${GPU:-0}
summary=$results/summary.txt
log=$results/detection.log
: > "$summary"
: > "$log"
note() { echo "$*" | tee -a "$summary"; }
note "card: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader -i 0 2> /dev/null || echo unknown);" \
  "CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES; heartbeat timeout: the library's default"

IFS=, read -r -a sizes <<< "${SIZES:-4,8}"
IFS=, read -r -a recoveries <<< "${RECOVERIES:-shrink,replace}"
for n in "${sizes[@]}"; do
  for recovery in "${recoveries[@]}"; do
    replace=0
    [ "$recovery" = replace ] && replace=1
    out=$work/$n-ranks-$recovery
    echo "==== $n ranks, $recovery, rank $((n / 2)) stopped" >> "$log"
    limit=$((10 * n + 10))
    OUT=$out BACKEND=nccl RANKS=$n KILL=$((n / 2)) DEATH=freeze REPLACE=$replace MODES=NONE STEPS=${STEPS:-50} \
      JOB_TIMEOUT=$((limit - 5)) timeout -k 5 "$limit" bash "$here/recovery.sh" > "$out.log" 2>&1
    rc=$?
    cat "$out.log" >> "$log"
    verdict=$(grep -E '^recovery: NONE: ' "$out.log" | sed 's/ (logs in .*//')
    times=$(grep -E '^  stop -> failure: ' "$out.log" | sed 's/^  //')
    note "$n ranks, $recovery: rc=$rc; ${verdict:-no verdict (see detection.log)}; ${times:-stop -> failure: none}"
  done
done

tar -czf "$results/logs.tar.gz" -C "$work" . 2> /dev/null
echo "==== summary"
cat "$summary"
