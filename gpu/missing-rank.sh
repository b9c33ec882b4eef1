#!/usr/bin/env bash
# A job formed from a unique id whose peers do not all come, on nccl: rank 0 of 2 makes the id and joins while rank 1
# never starts; then rank 1 joins alone with that id, whose rank 0 is gone. Each must fail within its bootstrap
# timeout, naming its rank, the rank count and the timeout. Each rank is a process of its own with its own
# NCCL_HOSTID (several ranks may share one GPU), over the loopback interface. Prints per rank its exit status, the
# seconds it took and its failure; the logs go to $OUT (default /tmp/collectives-out).
# Usage (staged by gpu/stage.sh with MODULES=runtime,tools): bash .gpu/missing-rank.sh [TIMEOUT_SECONDS, default 10]
set -u
export NCCL_NVLS_ENABLE=0 NCCL_SOCKET_IFNAME=lo COLLECTIVES_BACKEND=nccl
here=$(cd "$(dirname "$0")" && pwd)
java=${JAVA:-$here/jre/bin/java}
timeout_s=${1:-10}
out=${OUT:-/tmp/collectives-out}
mkdir -p "$out"
classpath=$(ls "$here"/lib/*.jar | grep -v console-standalone | tr '\n' ':')
id=$(mktemp -d)/unique-id

alone() { # RANK [peers-rank options...]: the rank of 2 alone, under a limit well past its timeout
  local rank=$1 start end rc
  shift
  start=$(date +%s.%N)
  COLLECTIVES_RANK=$rank COLLECTIVES_WORLD_SIZE=2 COLLECTIVES_BOOTSTRAP_TIMEOUT=$timeout_s \
    NCCL_HOSTID=missing-rank-$rank timeout -k 5 $((timeout_s + 60)) \
    "$java" -cp "$classpath" dev.collectives.tools.Tools peers-rank --mode NONE "$@" > "$out/missing-rank-$rank.log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  printf 'missing-rank: rank %s of 2 alone: rc=%s after %.1f s (bootstrap timeout %s s): %s\n' "$rank" "$rc" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "$timeout_s" "$(grep -m1 -E 'FAILED|joined:' "$out/missing-rank-$rank.log")"
}

alone 0 --make-id "$id"
[ -s "$id" ] && COLLECTIVES_UNIQUE_ID=$(cat "$id") alone 1
