package dev.collectives.tools.differential;

import dev.collectives.examples.Example;
import dev.collectives.examples.mistakes.Mistake;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What the harness runs, in the order every process runs it: the examples, the mistakes, the corpus, framework
 * memory, each if chosen.
 *
 * @param parts    the parts chosen
 * @param examples the examples
 * @param mistakes the mistakes
 * @param corpus         the corpus
 * @param corpusPrepared whether the corpus was compiled beforehand, or is to be compiled here
 * @param results        where sim's outcomes, the verdicts and the logs go
 */
record Work(
        Set<Part> parts,
        List<Example> examples,
        List<Mistake> mistakes,
        Corpus corpus,
        boolean corpusPrepared,
        Path results) {
    List<Item> items() {
        List<Item> items = new ArrayList<>();
        if (parts.contains(Part.EXAMPLES)) {
            examples.forEach(e -> items.add(new ExampleItem(e)));
        }
        if (parts.contains(Part.MISTAKES)) {
            mistakes.forEach(m -> items.add(new MistakeItem(m)));
        }
        if (parts.contains(Part.CORPUS) && corpus.size() > 0) {
            items.addAll(corpus.items());
        }
        if (parts.contains(Part.WRAP)) {
            items.addAll(WrapItem.all());
        }
        return items;
    }
}
