# Sourced by the scripts that start the project's Java programs (differential.sh, faults.sh, peers.sh, recovery.sh)
# after setting here (the script's folder): sets java and classpath. JAVA and CLASS_PATH, where set, win. Staged by
# gpu/stage.sh, they are the runtime image and the jars beside the script; in a clone, the command line's jar that the
# build makes (tools/target/collectives/collectives.jar, which names its libraries) and $JAVA_HOME/bin/java, else the
# java on PATH. Where it finds neither, it says what to set or build, and the script exits at once.
if [ -n "${JAVA:-}" ]; then
  java=$JAVA
elif [ -x "$here/jre/bin/java" ]; then
  java=$here/jre/bin/java
elif [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
  java=$JAVA_HOME/bin/java
elif command -v java > /dev/null; then
  java=$(command -v java)
else
  echo "$(basename "$0"): no Java: set JAVA (or JAVA_HOME) to a Java 17 or later, or stage one with gpu/stage.sh" >&2
  exit 2
fi
if [ -n "${CLASS_PATH:-}" ]; then
  classpath=$CLASS_PATH
elif compgen -G "$here/lib/*.jar" > /dev/null; then
  classpath=$(ls "$here"/lib/*.jar | grep -v console-standalone | tr '\n' ':')
elif [ -f "$here/../tools/target/collectives/collectives.jar" ]; then
  classpath=$(cd "$here/../tools/target/collectives" && pwd)/collectives.jar
else
  echo "$(basename "$0"): no jars: build them (in the repository: mvn -B -q install -DskipTests), stage them with" \
    "gpu/stage.sh, or set CLASS_PATH" >&2
  exit 2
fi
