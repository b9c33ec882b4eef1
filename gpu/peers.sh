#!/usr/bin/env bash
# Java ranks in a Python job: for each Python library of PEERS (CuPy; PyTorch with NCCL through ctypes), each job size
# N of RANKS, whoever makes the unique id (a Python rank or a Java rank) and each registration mode of the Java ranks
# (NONE, LOCAL, GRAPH), N processes form one NCCL communicator from a unique id passed through a file, with no
# rendezvous: ranks 0..N/2-1 run the Python library (gpu/peers/<peer>_rank.py), ranks N/2..N-1 run Collectives (the
# tools' hidden 'peers-rank': the id from COLLECTIVES_UNIQUE_ID, with COLLECTIVES_RANK and COLLECTIVES_WORLD_SIZE).
# The id is made by Python's rank 0 or by Java's first rank (Backend.uniqueId()), written as hex to a file; the others
# start once it is there. Every rank then runs, twice, the seed examples' two allreduces, an allgather, a
# reducescatter and a broadcast of weights from rank 0, and compares every result element by element. Then, at 2
# ranks, a CuPy rank beside a Java rank whose communicator bytedeco's NCCL binding made ('peers-rank --wrap'), the
# pipeline running on that handle, wrapped. Prints a line per case, a line such as 'peers: cupy 4 processes agree,
# torch 4 processes agree, wrapped handle agrees' and 'peers: a/b as expected'; exits 0 when every case passed.
# Every process runs on device 0 with its own NCCL_HOSTID and NCCL_SOCKET_IFNAME=lo, so that NCCL connects them through
# its socket transport: a setup that proves behaviour, never speed. The Java ranks load the NCCL that the Python side
# loads (from the nvidia-nccl-cu* package): COLLECTIVES_NCCL_CCL_LIBRARY is set to it (<peer>_rank.py --print-nccl),
# whatever the caller's environment names (PEERS_NCCL names another), and LD_LIBRARY_PATH leads bytedeco's binding
# to the same file.
# Staged by gpu/stage.sh (MODULES=runtime,tools) into .gpu/ beside job-devices.sh, .gpu/lib and .gpu/jre; run there:
#   bash .gpu/peers.sh
# Variables: PEERS (cupy,torch), RANKS (2,4), MODES (NONE,LOCAL,GRAPH), MAKERS (python,java), WRAP (1: the wrapped
# handle's cases; 0 leaves them out), PEERS_NCCL (the NCCL every rank loads; the first Python library's), PYTHON
# (python3, with CuPy, PyTorch and NumPy), JOB_TIMEOUT (180: seconds a process may run), OUT (/tmp/collectives-peers:
# every process's log), JAVA (the staged runtime), CLASS_PATH (the staged jars).
set -u
here=$(cd "$(dirname "$0")" && pwd)
backend=nccl
out=${OUT:-/tmp/collectives-peers}
. "$here/java-setup.sh"
python=${PYTHON:-python3}
job_timeout=${JOB_TIMEOUT:-180}
IFS=, read -r -a peers <<< "${PEERS:-cupy,torch}"
# every side must load the same NCCL: the first Python library's
if ! peer_nccl=$("$python" "$here/peers/${peers[0]}_rank.py" --print-nccl 2>&1); then
  echo "peers: $python cannot load ${peers[0]}'s NCCL: $peer_nccl"
  exit 2
fi
# not the caller's COLLECTIVES_NCCL_CCL_LIBRARY: a script that sourced job-devices.sh before exports the system's
# NCCL, and two versions in one job refuse each other ("NCCL version mismatch with remote peer")
export COLLECTIVES_NCCL_CCL_LIBRARY=${PEERS_NCCL:-$peer_nccl}
. "$here/job-devices.sh"
export LD_LIBRARY_PATH="$(dirname "$COLLECTIVES_NCCL_CCL_LIBRARY")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export COLLECTIVES_BACKEND=nccl COLLECTIVES_DEVICE=0 NCCL_SOCKET_IFNAME=lo NCCL_IB_DISABLE=1 NCCL_NVLS_ENABLE=0
# every side on the library's connection default, with nothing exported: the Java ranks leave it alone as CuPy and
# PyTorch do, and their GRAPH steps warm up eagerly before they are captured
unset NCCL_RUNTIME_CONNECT
echo "peers: ${peers[0]}'s NCCL is $peer_nccl; the Java ranks load $COLLECTIVES_NCCL_CCL_LIBRARY"
mkdir -p "$out"
passed=0
cases=0
verdicts=()

side_of() { [ "$1" -lt "$half" ] && echo "$peer" || echo java; }

# starts rank $1 of $2 in Java mode $3, making the id into $4 when $5 is 'make' (else reading it), logging to $6;
# the Java ranks take the options in java_args
start_rank() {
  local rank=$1 size=$2 mode=$3 idfile=$4 make=$5 log=$6
  if [ "$(side_of "$rank")" != java ]; then
    local idarg=(--id-file "$idfile")
    [ "$make" = make ] && idarg=(--make-id "$idfile")
    NCCL_HOSTID=peers-$rank timeout "$job_timeout" "$python" "$here/peers/${peer}_rank.py" --rank "$rank" \
      --size "$size" "${idarg[@]}" > "$log" 2>&1 &
  else
    local vars=(NCCL_HOSTID=peers-$rank COLLECTIVES_RANK=$rank COLLECTIVES_WORLD_SIZE=$size) idarg=()
    if [ "$make" = make ]; then idarg=(--make-id "$idfile"); else vars+=(COLLECTIVES_UNIQUE_ID="$(cat "$idfile")"); fi
    env "${vars[@]}" timeout "$job_timeout" "$java" --enable-native-access=ALL-UNNAMED -cp "$classpath" \
      dev.collectives.tools.Tools peers-rank --mode "$mode" "${java_args[@]}" "${idarg[@]}" > "$log" 2>&1 &
  fi
  pids+=($!)
}

# runs one job of $1 ranks, the id made by $2 (python or java), the Java ranks in mode $3, logs under $4; says how it went
run_case() {
  local size=$1 maker=$2 mode=$3 dir=$4 label=$5
  rm -rf "$dir" && mkdir -p "$dir"
  local idfile="$dir/unique-id.hex" maker_rank
  maker_rank=$([ "$maker" = python ] && echo 0 || echo "$half")
  pids=()
  start_rank "$maker_rank" "$size" "$mode" "$idfile" make "$dir/rank-$maker_rank.log"
  for _ in $(seq 1 600); do [ -s "$idfile" ] || ! kill -0 "${pids[0]}" 2> /dev/null && break; sleep 0.1; done
  local why=""
  if [ -s "$idfile" ]; then
    for ((r = 0; r < size; r++)); do
      [ "$r" = "$maker_rank" ] || start_rank "$r" "$size" "$mode" "$idfile" wait "$dir/rank-$r.log"
    done
  else
    why="rank $maker_rank made no unique id"
  fi
  local statuses=() pid status
  for pid in "${pids[@]}"; do wait "$pid"; statuses+=($?); done
  for ((r = 0; r < size; r++)); do
    if ! grep -q "every result right" "$dir/rank-$r.log" 2> /dev/null; then
      why="${why:+$why; }rank $r ($(side_of "$r")): $(grep -m1 'WRONG\|FAILED\|Error\|error' "$dir/rank-$r.log" \
        2> /dev/null || tail -n 1 "$dir/rank-$r.log" 2> /dev/null)"
    fi
  done
  for status in "${statuses[@]}"; do [ "$status" = 0 ] || why="${why:-a process exited with $status}"; done
  # the Java ranks' describe() must say that the checks across ranks are off, since the other ranks are foreign
  grep -q "checks across ranks .* are off" "$dir/rank-$half.log" 2> /dev/null \
    || why="${why:-describe() did not say that the checks across ranks are off}"
  cases=$((cases + 1))
  local versions
  versions="$(grep -h -o 'nccl [0-9][0-9.]*' "$dir"/rank-*.log 2> /dev/null | sort -u | tr '\n' ' ')"
  if [ -z "$why" ]; then
    passed=$((passed + 1))
    echo "peers: $label: OK (${versions% })"
    return 0
  fi
  echo "peers: $label: NOT OK: $why (logs in $dir)"
  return 1
}

IFS=, read -r -a sizes <<< "${RANKS:-2,4}"
IFS=, read -r -a makers <<< "${MAKERS:-python,java}"
IFS=, read -r -a modes <<< "${MODES:-NONE,LOCAL,GRAPH}"
java_args=()
for peer in "${peers[@]}"; do
  for size in "${sizes[@]}"; do
    half=$((size / 2))
    all=0
    ok=0
    for maker in "${makers[@]}"; do
      for mode in "${modes[@]}"; do
        all=$((all + 1))
        run_case "$size" "$maker" "$mode" "$out/$peer/$size-ranks/id-from-$maker/$mode" \
          "$size ranks ($peer 0..$((half - 1)), java $half..$((size - 1))), id from $maker, java $mode" \
          && ok=$((ok + 1))
      done
    done
    [ "$ok" = "$all" ] && verdicts+=("$peer $size processes agree") || verdicts+=("$peer $size processes: $ok/$all")
  done
done
if [ "${WRAP:-1}" = 1 ]; then
  peer=${peers[0]} size=2 half=1 java_args=(--wrap) all=0 ok=0
  for mode in "${modes[@]}"; do
    all=$((all + 1))
    run_case 2 python "$mode" "$out/wrapped/$mode" "2 ranks ($peer 0, java 1 on a handle bytedeco's binding made), java $mode" \
      && ok=$((ok + 1))
  done
  [ "$ok" = "$all" ] && verdicts+=("wrapped handle agrees") || verdicts+=("wrapped handle: $ok/$all")
fi
(IFS=','; echo "peers: ${verdicts[*]}" | sed 's/,/, /g')
echo "peers: $passed/$cases as expected"
[ "$passed" = "$cases" ]
