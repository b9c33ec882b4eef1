package dev.collectives.processor.validation;

import dev.collectives.processor.model.PipelineModel;
import java.util.HashMap;
import java.util.Map;
import javax.lang.model.element.TypeElement;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * [DSL duplicate]: the generated class's name is the pipeline's own. Another pipeline ({@code Outer.Inner} and
 * {@code Outer_Inner}) may already have taken it, or the package may already hold a type of that name. Keeps the
 * names handed out over every round of the compilation.
 */
final class DslGeneratedNameValidator implements Validator {
    private final Elements elements;
    private final Types types;
    /** Generated class names handed out so far, with the pipeline each was generated for. */
    private final Map<String, TypeElement> claimed = new HashMap<>();

    DslGeneratedNameValidator(Elements elements, Types types) {
        this.elements = elements;
        this.types = types;
    }

    @Override
    public void validate(PipelineModel model, Diagnostics diagnostics) {
        TypeElement type = model.type();
        String name = elements.getPackageOf(type).getQualifiedName() + "." + model.generatedName();
        TypeElement first = claimed.putIfAbsent(name, type);
        if (first != null && !first.equals(type)) {
            diagnostics.error(
                    Tag.DUPLICATE,
                    model.site(),
                    "pipelines `" + first.getQualifiedName() + "` and `" + type.getQualifiedName()
                            + "` would both generate " + name + "; rename one of them");
            return;
        }
        // unqualified, as the Filer's own check of the same name does next: javac keeps the answer for the round, so
        // the Filer finds it kept; asked per module, javac would look the name up twice
        TypeElement existing = elements.getTypeElement(name);
        if (first == null && existing != null && !types.isAssignable(existing.asType(), types.erasure(type.asType()))) {
            diagnostics.error(
                    Tag.DUPLICATE,
                    model.site(),
                    "the class generated for `" + type.getSimpleName() + "` would be " + name
                            + ", but a type of that name already exists; rename one of them");
            claimed.remove(name);
        }
    }
}
