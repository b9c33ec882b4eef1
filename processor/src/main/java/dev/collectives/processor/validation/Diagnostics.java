package dev.collectives.processor.validation;

import javax.annotation.processing.Messager;
import javax.tools.Diagnostic;

import dev.collectives.processor.model.RepeatedAnnotations;
import dev.collectives.processor.model.Site;
import dev.collectives.runtime.Rule;

/**
 * Reports to javac: each message starts with its tag and ends with the docs/rules.md section that explains it,
 * and points at the annotation value when there is one.
 */
public final class Diagnostics {
    private final Messager messager;
    private final RepeatedAnnotations repeated;
    private int errors;

    public Diagnostics(Messager messager, RepeatedAnnotations repeated) {
        this.messager = messager;
        this.repeated = repeated;
    }

    public void error(Rule rule, Site site, String message) {
        report(Diagnostic.Kind.ERROR, Tag.of(rule), site, message);
    }

    public void warning(Rule rule, Site site, String message) {
        report(Diagnostic.Kind.WARNING, Tag.of(rule), site, message);
    }

    public void error(Tag tag, Site site, String message) {
        report(Diagnostic.Kind.ERROR, tag, site, message);
    }

    public void warning(Tag tag, Site site, String message) {
        report(Diagnostic.Kind.WARNING, tag, site, message);
    }

    public boolean hasErrors() {
        return errors > 0;
    }

    private void report(Diagnostic.Kind kind, Tag tag, Site site, String message) {
        if (kind == Diagnostic.Kind.ERROR) {
            errors++;
        }
        String text = tag.text() + " " + message + " (see " + tag.anchor() + ")";
        if (repeated.print(kind, text, site)) {
            return;
        }
        if (site.mirror() == null) {
            messager.printMessage(kind, text, site.element());
        } else if (site.value() == null) {
            messager.printMessage(kind, text, site.element(), site.mirror());
        } else {
            messager.printMessage(kind, text, site.element(), site.mirror(), site.value());
        }
    }
}
