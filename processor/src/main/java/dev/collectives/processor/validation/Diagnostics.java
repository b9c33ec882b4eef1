package dev.collectives.processor.validation;

import dev.collectives.processor.model.RepeatedAnnotations;
import dev.collectives.processor.model.Site;
import dev.collectives.rules.Message;
import javax.annotation.processing.Messager;
import javax.tools.Diagnostic;

/**
 * Reports to javac: each message starts with its tag and ends with a pointer to the section of the rules page that
 * explains it ({@code docs/rules.md#r7-arena}, or a link where the rules page's address is given), and points at the
 * annotation value when there is one.
 */
public final class Diagnostics {
    private final Messager messager;
    /** The rules page's address, from the processor option; null: name the section in the project's docs. */
    private final String rulesUrl;

    private final RepeatedAnnotations repeated;
    private int errors;

    /**
     * Diagnostics whose pointers link to sections of the rules page at {@code rulesUrl} (null: none given), and that
     * point at repeated annotations through {@code repeated}.
     */
    public Diagnostics(Messager messager, String rulesUrl, RepeatedAnnotations repeated) {
        this.messager = messager;
        this.rulesUrl = rulesUrl == null || rulesUrl.isBlank() ? null : rulesUrl.strip();
        this.repeated = repeated;
    }

    /** The catalogue's {@code message} with {@code arguments}, tagged with its rule. */
    public void error(Message message, Site site, Object... arguments) {
        report(Diagnostic.Kind.ERROR, Tag.of(message.rule()), site, message.format(arguments));
    }

    public void warning(Message message, Site site, Object... arguments) {
        report(Diagnostic.Kind.WARNING, Tag.of(message.rule()), site, message.format(arguments));
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
        String text = tag.text() + " " + message + " (see " + pointer(tag) + ")";
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

    /** "docs/rules.md#r7-arena", or "URL#r7-arena" where the rules page's address is given. */
    private String pointer(Tag tag) {
        return rulesUrl == null
                ? tag.anchor()
                : rulesUrl + tag.anchor().substring(tag.anchor().indexOf('#'));
    }
}
