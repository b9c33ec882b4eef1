#!/usr/bin/env bash
# Builds the project and stages what gpu/run-all.sh needs into DEST/.gpu (default: the repository root), to be
# copied to a GPU machine that has no Java and no Maven: a Java runtime image (gpu/jre.sh), the jars (modules,
# test-jar, dependencies, the JUnit console), the C sources, the scripts (the examples runner and the benchmarks
# of run-all.sh, shapes.sh, differential.sh, faults.sh and peers.sh need MODULES=runtime,tools, which builds the examples too)
# and the differential harness's compiled corpus.
# Usage: [MODULES=runtime,tools] gpu/stage.sh [DEST]   then, on the GPU machine: bash DEST/.gpu/run-all.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dest=${1:-$root}/.gpu
modules=${MODULES:-runtime}
mkdir -p "$dest/lib"
rm -f "$dest"/lib/*.jar
# the jars, and beside them every module's runtime dependencies but the project's own and other platforms' natives
mvn -B -q -pl "$modules" -am package dependency:copy-dependencies -DskipTests -Dmaven.javadoc.skip=true \
  -Dmaven.source.skip=true -DincludeScope=runtime -DexcludeGroupIds=dev.collectives -DoutputDirectory="$dest/lib" \
  -DexcludeClassifiers=linux-arm64,linux-ppc64le,macosx-arm64,macosx-x86_64,windows-x86_64
[ -x "$dest/jre/bin/java" ] || gpu/jre.sh "$dest/jre"
[ -f tools/target/collectives/collectives.jar ] && cp tools/target/collectives/collectives.jar "$dest/lib/collectives-tools.jar"
for m in api processor runtime examples; do
  if [ -d "$m/target" ]; then
    find "$m/target" -maxdepth 1 -name 'collectives-*.jar' ! -name '*-sources.jar' ! -name '*-javadoc.jar' \
      -exec cp {} "$dest/lib/" \;
  fi
done
[ -f "$dest"/lib/junit-platform-console-standalone-1.14.4.jar ] || mvn -B -q dependency:copy \
  -Dartifact=org.junit.platform:junit-platform-console-standalone:1.14.4 -DoutputDirectory="$dest/lib"
# the differential harness's corpus (CORPUS, SEED, MAX_COUNT as differential.sh takes them), compiled here with the
# annotation processor: the runtime image has no compiler
if [ -f "$dest"/lib/collectives-tools.jar ]; then
  "${JAVA_HOME:+$JAVA_HOME/bin/}java" -cp "$dest/lib/*" dev.collectives.tools.Tools differential \
    --prepare-corpus "$dest/corpus.jar" --corpus "${CORPUS:-300}" --seed "${SEED:-1}" --max-count "${MAX_COUNT:-1048576}"
fi
cp gpu/run-all.sh gpu/shapes.sh gpu/failure-paths.sh gpu/differential.sh gpu/faults.sh gpu/peers.sh \
  gpu/recovery.sh gpu/grow.sh gpu/job-devices.sh gpu/java-setup.sh gpu/missing-rank.sh gpu/nonblocking.sh \
  gpu/connect-memory.sh gpu/overhead-and-peers.sh gpu/detection.sh gpu/mccl_forward.c gpu/native_bench.c "$dest/"
mkdir -p "$dest/peers" && cp gpu/peers/*.py "$dest/peers/"
du -sh "$dest"; ls "$dest/lib"
