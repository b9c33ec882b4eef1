#!/usr/bin/env bash
# The differential harness (the runner's 'differential'): every example, every mistake, a seeded random corpus of
# pipelines and framework memory, run on sim (threads of one JVM) and on BACKEND (one process per rank) at each rank
# count of RANKS, compared rank by rank; prints each difference with a reproducer, then per rank count a table and
# the line 'differential: N ranks: examples a/b, mistakes c/d, corpus e/f, wrap g/h agree'. With more ranks than
# GPUs the processes share the GPUs round-robin, each with its own NCCL_HOSTID, so that NCCL connects them through its
# socket transport: a setup that proves behaviour, never speed. BACKEND=sim compares sim's threads with sim's
# processes and needs no GPU (the build's tests run it that way).
# Staged by gpu/stage.sh (MODULES=runtime,tools) into .gpu/ beside job-devices.sh (the GPUs and NCCL), .gpu/lib,
# .gpu/jre and the corpus that stage.sh compiled, .gpu/corpus.jar (the runtime image has no compiler); run there:
#   bash .gpu/differential.sh
# Variables: BACKEND (nccl; mccl needs COLLECTIVES_MCCL_* set), RANKS (2,4,8), CORPUS (300), SEED (1), MAX_COUNT
# (1048576): the corpus staged must be the one asked for, PARTS (examples,mistakes,corpus,wrap), OUT
# (/tmp/collectives-differential), JAVA (the staged runtime), CLASS_PATH (the staged jars), CORPUS_JAR (the staged
# corpus; where there is none, a JDK compiles it).
set -u
export NCCL_NVLS_ENABLE=0 MCCL_NVLS_ENABLE=0
here=$(cd "$(dirname "$0")" && pwd)
backend=${BACKEND:-nccl}
out=${OUT:-/tmp/collectives-differential}
. "$here/java-setup.sh"
corpus_jar=${CORPUS_JAR:-$here/corpus.jar}
prepared=()
[ -f "$corpus_jar" ] && prepared=(--corpus-jar "$corpus_jar")
. "$here/job-devices.sh"
mkdir -p "$out"
"$java" -Xss16m -Dcollectives.device.syncTimeoutSeconds="${SYNC_TIMEOUT:-120}" -cp "$classpath" \
  dev.collectives.tools.Tools differential --backend "$backend" --ranks "${RANKS:-2,4,8}" --devices "$devices" \
  --corpus "${CORPUS:-300}" --seed "${SEED:-1}" --max-count "${MAX_COUNT:-1048576}" \
  --parts "${PARTS:-examples,mistakes,corpus,wrap}" --results "$out" ${prepared[@]+"${prepared[@]}"} 2>&1 \
  | tee "$out/differential.log"
exit "${PIPESTATUS[0]}"
