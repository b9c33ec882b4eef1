package dev.collectives.processor.writer;

import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.MethodSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * What one part of the writer adds to the generated class, for {@link PipelineWriter} to put in place: its piece of
 * {@code open()} (the bind sequence), the fields that piece sets, the methods that read them, and the resources it
 * makes, which {@code close()} releases.
 */
record Fragment(CodeBlock open, List<FieldSpec> fields, List<MethodSpec> methods, List<Resource> resources) {
    /** A resource a fragment makes: the field that holds it, and when {@code close()} releases it. */
    record Resource(Release release, String field) {}

    /** What {@code close()} releases, in its order: graphs before their buffers, memory last. */
    enum Release {
        GRAPH,
        REGISTRATION,
        WINDOW,
        MEMORY
    }

    Fragment {
        fields = List.copyOf(fields);
        methods = List.copyOf(methods);
        resources = List.copyOf(resources);
    }

    /** Nothing to add. */
    static final Fragment NONE = of(CodeBlock.of(""));

    /** Code of {@code open()} alone. */
    static Fragment of(CodeBlock open) {
        return new Fragment(open, List.of(), List.of(), List.of());
    }

    /** The fragments one after the other. */
    static Fragment join(List<Fragment> fragments) {
        CodeBlock.Builder open = CodeBlock.builder();
        List<FieldSpec> fields = new ArrayList<>();
        List<MethodSpec> methods = new ArrayList<>();
        List<Resource> resources = new ArrayList<>();
        for (Fragment f : fragments) {
            open.add(f.open);
            fields.addAll(f.fields);
            methods.addAll(f.methods);
            resources.addAll(f.resources);
        }
        return new Fragment(open.build(), fields, methods, resources);
    }

    /** The same fields, methods and resources, with {@code open} for code. */
    Fragment withOpen(CodeBlock code) {
        return new Fragment(code, fields, methods, resources);
    }
}
