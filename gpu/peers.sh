#!/usr/bin/env bash
# Java ranks in a CuPy job: for each job size N of RANKS, whoever makes the unique id (a CuPy rank or a Java rank) and
# each registration mode of the Java ranks (NONE, LOCAL, GRAPH), N processes form one NCCL communicator from a unique
# id passed through a file, with no rendezvous: ranks 0..N/2-1 run CuPy (gpu/peers/cupy_rank.py), ranks N/2..N-1 run
# Collectives (the tools' hidden 'peers-rank': the id from COLLECTIVES_UNIQUE_ID, with COLLECTIVES_RANK and
# COLLECTIVES_WORLD_SIZE). The id is made by CuPy's rank 0 (cupy.cuda.nccl.get_unique_id()) or by Java's first rank
# (Backend.uniqueId()), written as hex to a file; the others start once it is there. Every rank then runs, twice, the
# seed examples' two allreduces, an allgather, a reducescatter and a broadcast of weights from CuPy's rank 0, and
# compares every result element by element. Prints a line per case and 'peers: a/b as expected'; exits 0 when every
# case passed.
# Every process runs on device 0 with its own NCCL_HOSTID and NCCL_SOCKET_IFNAME=lo, so that NCCL connects them through
# its socket transport: a setup that proves behaviour, never speed. The Java ranks load the NCCL that CuPy loads (from
# the nvidia-nccl-cu* package): COLLECTIVES_NCCL_CCL_LIBRARY is set to it (cupy_rank.py --print-nccl) unless given.
# Staged by gpu/stage.sh (MODULES=runtime,tools) into .gpu/ beside job-devices.sh, .gpu/lib and .gpu/jre; run there:
#   bash .gpu/peers.sh
# Variables: RANKS (2,4), MODES (NONE,LOCAL,GRAPH), MAKERS (cupy,java), PYTHON (python3, with CuPy and NumPy),
# JOB_TIMEOUT (180: seconds a process may run), OUT (/tmp/collectives-peers: every process's log), JAVA (the staged
# runtime), CLASS_PATH (the staged jars).
set -u
here=$(cd "$(dirname "$0")" && pwd)
backend=nccl
out=${OUT:-/tmp/collectives-peers}
java=${JAVA:-$here/jre/bin/java}
classpath=${CLASS_PATH:-$(ls "$here"/lib/*.jar | grep -v console-standalone | tr '\n' ':')}
python=${PYTHON:-python3}
job_timeout=${JOB_TIMEOUT:-180}
if ! cupy_nccl=$("$python" "$here/peers/cupy_rank.py" --print-nccl 2>&1); then
  echo "peers: $python cannot load CuPy's NCCL: $cupy_nccl"
  exit 2
fi
export COLLECTIVES_NCCL_CCL_LIBRARY=${COLLECTIVES_NCCL_CCL_LIBRARY:-$cupy_nccl}
. "$here/job-devices.sh"
export COLLECTIVES_BACKEND=nccl COLLECTIVES_DEVICE=0 NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1 NCCL_NVLS_ENABLE=0
# every side connects its peers when the communicator is made, as the Java ranks do by default (GRAPH needs it)
export NCCL_RUNTIME_CONNECT=0
echo "peers: CuPy's NCCL is $cupy_nccl; the Java ranks load $COLLECTIVES_NCCL_CCL_LIBRARY"
mkdir -p "$out"
passed=0
cases=0

side_of() { [ "$1" -lt "$half" ] && echo cupy || echo java; }

# starts rank $1 of $2 in Java mode $3, making the id into $4 when $5 is 'make' (else reading it), logging to $6
start_rank() {
  local rank=$1 size=$2 mode=$3 idfile=$4 make=$5 log=$6
  if [ "$(side_of "$rank")" = cupy ]; then
    local idarg=(--id-file "$idfile")
    [ "$make" = make ] && idarg=(--make-id "$idfile")
    NCCL_HOSTID=peers-$rank timeout "$job_timeout" "$python" "$here/peers/cupy_rank.py" --rank "$rank" \
      --size "$size" "${idarg[@]}" > "$log" 2>&1 &
  else
    local vars=(NCCL_HOSTID=peers-$rank COLLECTIVES_RANK=$rank COLLECTIVES_WORLD_SIZE=$size) idarg=()
    if [ "$make" = make ]; then idarg=(--make-id "$idfile"); else vars+=(COLLECTIVES_UNIQUE_ID="$(cat "$idfile")"); fi
    env "${vars[@]}" timeout "$job_timeout" "$java" --enable-native-access=ALL-UNNAMED -cp "$classpath" \
      dev.collectives.tools.Tools peers-rank --mode "$mode" "${idarg[@]}" > "$log" 2>&1 &
  fi
  pids+=($!)
}

IFS=, read -r -a sizes <<< "${RANKS:-2,4}"
IFS=, read -r -a makers <<< "${MAKERS:-cupy,java}"
IFS=, read -r -a modes <<< "${MODES:-NONE,LOCAL,GRAPH}"
for size in "${sizes[@]}"; do
  half=$((size / 2))
  job="$size ranks (cupy 0..$((half - 1)), java $half..$((size - 1)))"
  for maker in "${makers[@]}"; do
    for mode in "${modes[@]}"; do
      dir="$out/$size-ranks/id-from-$maker/$mode"
      rm -rf "$dir" && mkdir -p "$dir"
      idfile="$dir/unique-id.hex"
      maker_rank=$([ "$maker" = cupy ] && echo 0 || echo "$half")
      pids=()
      start_rank "$maker_rank" "$size" "$mode" "$idfile" make "$dir/rank-$maker_rank.log"
      for _ in $(seq 1 600); do [ -s "$idfile" ] || ! kill -0 "${pids[0]}" 2> /dev/null && break; sleep 0.1; done
      why=""
      if [ -s "$idfile" ]; then
        for ((r = 0; r < size; r++)); do
          [ "$r" = "$maker_rank" ] || start_rank "$r" "$size" "$mode" "$idfile" wait "$dir/rank-$r.log"
        done
      else
        why="rank $maker_rank made no unique id"
      fi
      statuses=()
      for pid in "${pids[@]}"; do wait "$pid"; statuses+=($?); done
      for ((r = 0; r < size; r++)); do
        if ! grep -q "every result right" "$dir/rank-$r.log" 2> /dev/null; then
          why="${why:+$why; }rank $r ($(side_of "$r")): $(grep -m1 'WRONG\|FAILED\|Error\|error' "$dir/rank-$r.log" \
            2> /dev/null || tail -n 1 "$dir/rank-$r.log" 2> /dev/null)"
        fi
      done
      for status in "${statuses[@]}"; do [ "$status" = 0 ] || why="${why:-a process exited with $status}"; done
      # the Java ranks' describe() must say that the checks across ranks are off, since the CuPy ranks are foreign
      java_log="$dir/rank-$half.log"
      grep -q "checks across ranks .* are off" "$java_log" 2> /dev/null \
        || why="${why:-describe() did not say that the checks across ranks are off}"
      cases=$((cases + 1))
      versions="$(grep -h -o 'nccl [0-9][0-9.]*' "$dir"/rank-*.log 2> /dev/null | sort -u | tr '\n' ' ')"
      if [ -z "$why" ]; then
        passed=$((passed + 1))
        echo "peers: $job, id from $maker, java $mode: OK (${versions% })"
      else
        echo "peers: $job, id from $maker, java $mode: NOT OK: $why (logs in $dir)"
      fi
    done
  done
done
echo "peers: $passed/$cases as expected"
[ "$passed" = "$cases" ]
