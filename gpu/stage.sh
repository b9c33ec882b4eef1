#!/usr/bin/env bash
# Builds here and stages what gpu/run-all.sh needs into DEST/.gpu (default /work/main/.gpu, the tree the
# device tool copies): a Java runtime image, the jars (modules, test-jar, dependencies, the JUnit console),
# and the C sources. Run from the repository root of this worktree.
set -euo pipefail
dest=${1:-/work/main}/.gpu
modules=${MODULES:-runtime}
mvn -B -q -pl "$modules" -am package -DskipTests
mkdir -p "$dest/lib"
rm -f "$dest"/lib/collectives-*.jar
[ -x "$dest/jre/bin/java" ] || /work/shared/gpu/jre.sh "$dest/jre"
for m in runtime examples; do
  if [ -d "$m/target" ]; then cp $m/target/collectives-*.jar "$dest/lib/" 2>/dev/null || true; fi
done
mvn -B -q -pl runtime dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$dest/lib"
[ -f "$dest"/lib/junit-platform-console-standalone-1.14.4.jar ] || mvn -B -q dependency:copy \
  -Dartifact=org.junit.platform:junit-platform-console-standalone:1.14.4 -DoutputDirectory="$dest/lib"
cp gpu/run-all.sh gpu/shapes.sh gpu/mccl_forward.c gpu/native_bench.c "$dest/"
du -sh "$dest"; ls "$dest/lib"
