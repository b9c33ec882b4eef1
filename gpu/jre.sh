#!/usr/bin/env bash
# Builds a small Java runtime image (jlink) for a Linux x86-64 GPU machine that has no Java: the modules the
# runtime, the examples, the tools and the JUnit console need.
# Usage: gpu/jre.sh [OUTDIR]   (default .gpu/jre under the repository root). Needs a JDK 17+ here (JAVA_HOME, or the
# java on the PATH).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/.gpu/jre}
jdk=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
[ -x "$jdk/bin/jlink" ] || { echo "jre.sh: no jlink under $jdk; set JAVA_HOME to a JDK" >&2; exit 2; }
rm -rf "$out"
"$jdk/bin/jlink" --add-modules java.base,java.logging,java.management,java.xml,java.naming,jdk.jfr,jdk.unsupported,jdk.zipfs \
  --strip-debug --no-header-files --no-man-pages --compress=2 --output "$out"
du -sh "$out"
