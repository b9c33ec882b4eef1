package dev.collectives.spark;

import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * The one Spark session of the tests, in local mode with four task slots (a barrier stage needs a slot for each of
 * its tasks), bound to loopback, without its web UI. Started by the first test that needs it; Spark stops it when
 * the JVM exits.
 */
final class LocalSpark {
    /** Tasks of every barrier stage of the tests. */
    static final int TASKS = 4;

    private static SparkSession session;

    private LocalSpark() {}

    static synchronized SparkSession session() {
        if (session == null) {
            session = SparkSession.builder()
                    .master("local[" + TASKS + "]")
                    .appName("collectives-spark-tests")
                    .config("spark.ui.enabled", "false")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.driver.bindAddress", "127.0.0.1")
                    .config("spark.sql.shuffle.partitions", String.valueOf(TASKS))
                    .getOrCreate();
        }
        return session;
    }

    static JavaSparkContext context() {
        return JavaSparkContext.fromSparkContext(session().sparkContext());
    }
}
