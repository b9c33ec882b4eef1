package dev.collectives.spark;

import java.io.Serializable;
import java.util.Iterator;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.rdd.RDD;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.runtime.AbstractFunction1;

/**
 * {@code rdd.barrier().mapPartitions(f)} for Java, whose {@link JavaRDD} has no barrier stages: {@code f} runs in
 * every task of one barrier stage, all of them started together, one task per partition. Call
 * {@link SparkRanks#join} in it.
 */
public final class BarrierStages {
    private BarrierStages() {}

    /**
     * The partitions of {@code rdd}, each mapped by {@code f} in one task of a barrier stage. The cluster must have a
     * task slot for every partition at once (Spark fails the job otherwise).
     */
    public static <T, R> JavaRDD<R> mapPartitions(JavaRDD<T> rdd, FlatMapFunction<Iterator<T>, R> f) {
        ClassTag<R> anything = anyRef();
        RDD<R> mapped = rdd.rdd().barrier().mapPartitions(new PartitionFunction<>(f), false, anything);
        return new JavaRDD<>(mapped, anything);
    }

    /** Elements of any reference type: the RDD holds objects, whatever {@code R} is. */
    @SuppressWarnings("unchecked")
    private static <R> ClassTag<R> anyRef() {
        return (ClassTag<R>) (ClassTag<?>) ClassTag.AnyRef();
    }

    /** {@code f} as the Scala function a barrier stage takes; serialized to the tasks with it. */
    private static final class PartitionFunction<T, R>
            extends AbstractFunction1<scala.collection.Iterator<T>, scala.collection.Iterator<R>>
            implements Serializable {
        private static final long serialVersionUID = 1L;
        private final FlatMapFunction<Iterator<T>, R> f;

        PartitionFunction(FlatMapFunction<Iterator<T>, R> f) {
            this.f = f;
        }

        @Override
        public scala.collection.Iterator<R> apply(scala.collection.Iterator<T> rows) {
            try {
                return CollectionConverters.asScala(f.call(CollectionConverters.asJava(rows)));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e.getMessage(), e);
            }
        }
    }
}
