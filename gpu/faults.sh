#!/usr/bin/env bash
# The failure-path harness (the runner's 'faults'): at each rank count N of RANKS, in each registration mode (NONE,
# LOCAL, GRAPH) and for each fault (kill, abort, silent, shapes), N processes, one per rank, bind a one-allreduce
# pipeline and run its steps; at step 3 rank N-1 (never rank 0, whose process serves the rendezvous) halts, aborts its
# communicator, stops calling, or calls with another size (every rank then checks its calls: COLLECTIVES_CHECK=calls).
# Every other rank must fail, naming that rank and the cause; for silent and shapes, the tools' 'trace' on the ranks'
# flight records (OUT/<N>-ranks/<mode>/<fault>/flight) must name that rank too. Prints per rank count a table (mode x
# fault: OK or NOT OK) and the line 'faults: N ranks: kill a/b, abort c/d, silent e/f, shapes g/h as expected'. With
# more ranks than GPUs the processes share the GPUs round-robin, each with its own NCCL_HOSTID, so that NCCL connects
# them through its socket transport: a setup that proves behaviour, never speed. BACKEND=sim needs no GPU (the build's
# tests run it that way at 2 ranks).
# Then, at each rank count and in each mode, the recoveries of RECOVERIES: rank N/2 dies as DEATH says (the runner's
# 'recovery --death'): halt, it halts its process as its step 2 begins; kill, once it ran 20 steps the driver sends it
# SIGKILL at a random moment (mid-step); freeze, SIGSTOP at such a moment: the survivors declare it dead when its
# heartbeats stop (after 4 s here), and once they did the driver resumes it (SIGCONT), and it must fail saying it was
# excluded (below the phases, 'stop -> failure': each survivor's time from the stop to its failure); the survivors
# shrink it away, or (replace) reform the job with a process started
# in its place once their step 2 failed naming it; (rank-0) rank 0 halts while the driver serves the rendezvous in
# its own process, which every rank joins, and the survivors shrink it away; every process must run its steps with
# the right sums. Prints per rank count the line 'recovery: N ranks: shrink a/b, replace c/d, rank-0 e/f as expected'.
# Staged by gpu/stage.sh (MODULES=runtime,tools) into .gpu/ beside job-devices.sh (the GPUs and NCCL), .gpu/lib
# and .gpu/jre; run there:
#   RANKS=2,4,8 bash .gpu/faults.sh
# Variables: BACKEND (nccl; mccl needs COLLECTIVES_MCCL_* set), RANKS (2,4,8), MODES (NONE,LOCAL,GRAPH), FAULTS
# (kill,abort,silent,shapes), RECOVERIES (shrink,replace,rank-0), DEATH (halt, kill or freeze), SYNC_TIMEOUT (10: seconds a synchronize waits on nccl/mccl, which bounds the silent
# fault), SIM_TIMEOUT (5: the same on sim), JOB_TIMEOUT (180), OUT (/tmp/collectives-faults: the log of every
# process, and faults.log), JAVA (the staged runtime), CLASS_PATH (the staged jars).
set -u
export NCCL_NVLS_ENABLE=0 MCCL_NVLS_ENABLE=0
here=$(cd "$(dirname "$0")" && pwd)
backend=${BACKEND:-nccl}
out=${OUT:-/tmp/collectives-faults}
. "$here/java-setup.sh"
. "$here/job-devices.sh"
mkdir -p "$out"
"$java" -cp "$classpath" dev.collectives.tools.Tools faults --backend "$backend" --ranks "${RANKS:-2,4,8}" \
  --devices "$devices" --modes "${MODES:-NONE,LOCAL,GRAPH}" --faults "${FAULTS:-kill,abort,silent,shapes}" \
  --recoveries "${RECOVERIES:-shrink,replace,rank-0}" --death "${DEATH:-halt}" \
  --sync-timeout "${SYNC_TIMEOUT:-10}" --sim-timeout "${SIM_TIMEOUT:-5}" --job-timeout "${JOB_TIMEOUT:-180}" \
  --out "$out" 2>&1 | tee "$out/faults.log"
exit "${PIPESTATUS[0]}"
