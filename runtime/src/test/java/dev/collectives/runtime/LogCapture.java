package dev.collectives.runtime;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** What the project logs to one logger while a body runs, at a level the test chooses, kept from the console. */
public final class LogCapture {
    private LogCapture() {}

    /** The records {@code body} logs to {@code loggerName} at {@code level} or above; ranks may log from threads. */
    public static List<LogRecord> capture(String loggerName, Level level, Runnable body) {
        Logger logger = Logger.getLogger(loggerName);
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Level before = logger.getLevel();
        boolean parents = logger.getUseParentHandlers();
        logger.setLevel(level);
        logger.addHandler(handler);
        logger.setUseParentHandlers(false);
        try {
            body.run();
        } finally {
            logger.setUseParentHandlers(parents);
            logger.removeHandler(handler);
            logger.setLevel(before);
        }
        return records;
    }
}
