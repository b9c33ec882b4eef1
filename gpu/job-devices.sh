# Sourced by the scripts that start one process per rank on this host (differential, faults, peers, recovery, grow).
# For BACKEND nccl, exports the paths of NCCL, the CUDA runtime and the driver, where not set already (ldconfig, else
# the usual places); sets devices to the GPUs the processes share round-robin (nvidia-smi), 1 on sim; defines
# free_port, for a job that serves its own rendezvous, and slowest_phases, which reads its ranks' phases.
devices=1
if [ "$backend" = nccl ]; then
  libfile() { local p; p=$(ldconfig -p 2>/dev/null | awk -v n="$1" '$1==n {print $NF; exit}')
    [ -n "$p" ] || p=$(find /usr/lib /usr/local /opt /lib -name "$1" 2>/dev/null | head -1); echo "$p"; }
  cudart=$(libfile libcudart.so.13); [ -n "$cudart" ] || cudart=$(libfile libcudart.so.12)
  export COLLECTIVES_NCCL_CCL_LIBRARY=${COLLECTIVES_NCCL_CCL_LIBRARY:-$(libfile libnccl.so.2)}
  export COLLECTIVES_NCCL_RUNTIME_LIBRARY=${COLLECTIVES_NCCL_RUNTIME_LIBRARY:-$cudart}
  export COLLECTIVES_NCCL_DRIVER_LIBRARY=${COLLECTIVES_NCCL_DRIVER_LIBRARY:-$(libfile libcuda.so.1)}
fi
if [ "$backend" != sim ]; then
  devices=$(nvidia-smi -L | grep -c '^GPU')
fi

# a port on 127.0.0.1 that nothing listens on
free_port() {
  local p
  for p in $(seq $((29500 + RANDOM % 2000)) 31999); do
    (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null || { echo "$p"; return; }
  done
}

# of the ranks below $2 of the job whose logs are in $1 (rank-R.log), but rank $3: the one slowest from its failure
# (or grow's call) to its first checked step, by its 'phases:' line; echoes its rank, heard at, heard -> new
# communicator, -> bound, -> first checked step and start -> bound, or nothing where no rank printed phases
slowest_phases() {
  local dir=$1 ranks=$2 skip=${3:--1} r fields heard to_comm to_bound to_step start_bound most=-1 slowest=""
  for ((r = 0; r < ranks; r++)); do
    [ "$r" -eq "$skip" ] && continue
    fields=$(sed -nE 's/^phases: heard at ([0-9]+) .*communicator ([0-9]+) ms, -> bound ([0-9]+) ms, .*step ([0-9]+) ms; .* ([0-9]+) ms$/\1 \2 \3 \4 \5/p' \
      "$dir/rank-$r.log" | head -1)
    [ -z "$fields" ] && continue
    read -r heard to_comm to_bound to_step start_bound <<< "$fields"
    if [ $((to_comm + to_bound + to_step)) -gt "$most" ]; then
      most=$((to_comm + to_bound + to_step)) slowest="$r $fields"
    fi
  done
  [ -n "$slowest" ] && echo "$slowest"
  return 0
}
