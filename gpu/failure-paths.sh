#!/usr/bin/env bash
# The failure paths of the nccl backend: DeviceAbortGpuTest (abort during a pending graph launch, synchronize past
# collectives.device.syncTimeoutSeconds=2), then the multi-process jobs DeviceJoinGpuTest and DeviceKillGpuTest (a
# process killed during a step, and the survivor shrinking it away through the rendezvous) and DeviceSplitKillGpuTest
# (3 processes: a death named in a split child that holds the dead rank); on a host with fewer GPUs than processes they
# share them (-Dcollectives.test.sharedGpu=true: NCCL's socket transport between them). Each test class in its own JVM under a time limit; a summary last. Staged by
# gpu/stage.sh into .gpu/ beside .gpu/lib and the Java runtime image .gpu/jre; run there: bash .gpu/failure-paths.sh
set -u
export NCCL_NVLS_ENABLE=0
here=$(cd "$(dirname "$0")" && pwd); out=${OUT:-/tmp/out}; mkdir -p "$out"
java=${JAVA:-$here/jre/bin/java}
libfile() { local p; p=$(ldconfig -p 2>/dev/null | awk -v n="$1" '$1==n {print $NF; exit}')
  [ -n "$p" ] || p=$(find /usr/lib /usr/local /opt /lib -name "$1" 2>/dev/null | head -1); echo "$p"; }
nccl=$(libfile libnccl.so.2); cudart=$(libfile libcudart.so.13); [ -n "$cudart" ] || cudart=$(libfile libcudart.so.12)
cuda=$(libfile libcuda.so.1)
export COLLECTIVES_NCCL_CCL_LIBRARY=$nccl COLLECTIVES_NCCL_RUNTIME_LIBRARY=$cudart COLLECTIVES_NCCL_DRIVER_LIBRARY=$cuda
{ echo "libraries: $nccl $cudart $cuda"; nvidia-smi -L; strings "$nccl" | grep -m1 -E "^NCCL version"; } | tee "$out/summary.txt"
cp=$(ls "$here"/lib/*.jar | grep -v console | tr '\n' ':')
for t in abortDuringAPendingGraphLaunchEndsItAndEverythingCloses aSynchronizeOutlivingItsTimeoutAbortsTheCommunicatorAndThrows; do
  start=$SECONDS
  timeout -k 5 100 "$java" -Xss16m -Dcollectives.device.syncTimeoutSeconds=2 -jar "$here"/lib/junit-platform-console-standalone-1.14.4.jar \
    execute --class-path "$cp" --select-method "dev.collectives.backend.device.DeviceAbortGpuTest#$t" --include-tag gpu \
    --disable-banner --details=tree > "$out/$t.log" 2>&1
  rc=$?
  echo "$t: rc=$rc $((SECONDS - start))s $(grep -E '^(abort during|sync timeout|StreamQuery took)|tests (successful|failed)|Exception|expected' "$out/$t.log" | cut -c1-600 | tr -s ' ' | tr '\n' ' ')" | tee -a "$out/summary.txt"
done
# the two-process tests start their ranks with this JVM's class path, so the jars go on it, not to the launcher
gpus=$(nvidia-smi -L | grep -c '^GPU')
for t in DeviceJoinGpuTest DeviceKillGpuTest DeviceSplitKillGpuTest; do
  ranks=$([ "$t" = DeviceSplitKillGpuTest ] && echo 3 || echo 2)
  shared=$([ "$gpus" -lt "$ranks" ] && echo true || echo false)
  start=$SECONDS
  timeout -k 5 200 "$java" -Dcollectives.test.sharedGpu=$shared -cp "$cp:$(ls "$here"/lib/junit-platform-console-standalone-*.jar)" \
    org.junit.platform.console.ConsoleLauncher execute --select-class "dev.collectives.runtime.bootstrap.$t" \
    --include-tag gpu --disable-banner --details=tree > "$out/$t.log" 2>&1
  rc=$?
  echo "$t (shared GPU: $shared): rc=$rc $((SECONDS - start))s $(grep -E '^rank 0 |tests (successful|failed)|Exception|expected' "$out/$t.log" | cut -c1-600 | tr -s ' ' | tr '\n' ' ')" | tee -a "$out/summary.txt"
done
