#!/usr/bin/env bash
# Builds the project and stages what gpu/run-all.sh needs into DEST/.gpu (default: the repository root), to be
# copied to a GPU machine that has no Java and no Maven: a Java runtime image (gpu/jre.sh), the jars (modules,
# test-jar, dependencies, the JUnit console) and the C sources.
# Usage: [MODULES=runtime,examples] gpu/stage.sh [DEST]   then, on the GPU machine: bash DEST/.gpu/run-all.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
dest=${1:-$root}/.gpu
modules=${MODULES:-runtime}
mvn -B -q -pl "$modules" -am package -DskipTests
mkdir -p "$dest/lib"
rm -f "$dest"/lib/collectives-*.jar
[ -x "$dest/jre/bin/java" ] || gpu/jre.sh "$dest/jre"
for m in runtime examples; do
  if [ -d "$m/target" ]; then
    find "$m/target" -maxdepth 1 -name 'collectives-*.jar' ! -name '*-sources.jar' ! -name '*-javadoc.jar' \
      -exec cp {} "$dest/lib/" \;
  fi
done
mvn -B -q -pl "$modules" dependency:copy-dependencies -DincludeScope=runtime -DexcludeGroupIds=dev.collectives -DoutputDirectory="$dest/lib"
[ -f "$dest"/lib/junit-platform-console-standalone-1.14.4.jar ] || mvn -B -q dependency:copy \
  -Dartifact=org.junit.platform:junit-platform-console-standalone:1.14.4 -DoutputDirectory="$dest/lib"
cp gpu/run-all.sh gpu/shapes.sh gpu/mccl_forward.c gpu/native_bench.c "$dest/"
du -sh "$dest"; ls "$dest/lib"
