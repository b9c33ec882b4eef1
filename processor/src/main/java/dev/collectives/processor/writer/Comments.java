package dev.collectives.processor.writer;

import com.palantir.javapoet.CodeBlock;
import java.util.ArrayList;
import java.util.List;

/**
 * Comments and Javadoc of the generated code, wrapped here: JavaPoet wraps code at column 100 but never a comment,
 * whose lines would lose their {@code //} if it did.
 */
final class Comments {
    /**
     * Columns of text per line. The writer does not know how deep a block lands, so every line fits the deepest
     * comment: four levels in (close's arguments), behind {@code //}, at column 99.
     */
    private static final int WIDTH = 80;
    /** Where a C call's arguments go on past its first line. */
    private static final String CALL_CONTINUATION = "    ";

    private Comments() {}

    /** A {@code //} comment of one or more lines. */
    static CodeBlock line(String text) {
        return CodeBlock.of("// $L\n", wrapped(text).replace("\n", "\n// "));
    }

    /** The comment over a native call: {@code // {nccl,mccl}AllReduce(sendbuff, recvbuff, ...)}. */
    static CodeBlock call(String function, List<String> arguments) {
        return call(function, arguments, "");
    }

    /** The same, then a note on the call: {@code // ...(comm, win, ...): collective, every rank (R12)}. */
    static CodeBlock call(String function, List<String> arguments, String note) {
        String end = ")" + (note.isEmpty() ? "" : ":");
        List<String> words = new ArrayList<>();
        for (int i = 0; i < arguments.size(); i++) {
            String argument = arguments.get(i);
            words.add((i == 0 ? function + "(" : "") + argument + (i == arguments.size() - 1 ? end : ","));
        }
        if (words.isEmpty()) {
            words.add(function + "(" + end);
        }
        if (!note.isEmpty()) {
            words.addAll(words(note));
        }
        return CodeBlock.of("// $L\n", String.join("\n// ", fill(words, CALL_CONTINUATION)));
    }

    /** Text (of a comment or Javadoc) wrapped into lines; its own line breaks stay. */
    static String wrapped(String text) {
        List<String> lines = new ArrayList<>();
        for (String line : text.split("\n", -1)) {
            lines.addAll(fill(words(line), ""));
        }
        return String.join("\n", lines);
    }

    /** The line's words, a Javadoc tag such as {@code {@code bind()}} kept whole. */
    private static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        int open = 0;
        for (String word : line.split(" ")) {
            if (open > 0) {
                words.set(words.size() - 1, words.get(words.size() - 1) + " " + word);
            } else {
                words.add(word);
            }
            open += word.chars().map(c -> c == '{' ? 1 : c == '}' ? -1 : 0).sum();
        }
        return words;
    }

    /** The words as lines of at most {@link #WIDTH} columns (a longer word alone), each after the first indented. */
    private static List<String> fill(List<String> words, String continuation) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder(words.get(0));
        for (String word : words.subList(1, words.size())) {
            if (line.length() + 1 + word.length() > WIDTH) {
                lines.add(line.toString());
                line = new StringBuilder(continuation).append(word);
            } else {
                line.append(' ').append(word);
            }
        }
        lines.add(line.toString());
        return lines;
    }
}
