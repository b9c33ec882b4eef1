/**
 * Apache Spark barrier stages as communicators: {@link dev.collectives.spark.SparkRanks#join} makes each task of a
 * stage one rank, meeting the others through the stage's {@code BarrierTaskContext}; {@link
 * dev.collectives.spark.BarrierStages#mapPartitions} starts such a stage from Java.
 */
package dev.collectives.spark;
