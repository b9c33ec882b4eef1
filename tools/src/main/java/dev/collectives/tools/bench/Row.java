package dev.collectives.tools.bench;

/** One measured row of one side. */
record Row(long bytes, long count, double timeUs, double algbw, double busbw, double hostUs) {}
