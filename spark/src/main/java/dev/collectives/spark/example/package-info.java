/**
 * An example Spark application: {@link dev.collectives.spark.example.DataParallelTraining}, data-parallel training of
 * a small linear model whose gradients a GRAPH pipeline ({@link dev.collectives.spark.example.LinearGradients})
 * allreduces across the tasks of a barrier stage.
 */
package dev.collectives.spark.example;
