package dev.collectives.processor.writer;

import java.util.List;

import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.NameAllocator;
import com.palantir.javapoet.TypeSpec;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.Registration;
import dev.collectives.processor.model.BufferDecl;
import dev.collectives.processor.model.OpDecl;
import dev.collectives.processor.model.PipelineModel;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Fingerprint;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.PipelineSupport;
import dev.collectives.runtime.Rule;
import dev.collectives.runtime.Stream;

/** A part of the writer: one concern of the generated class, written into the {@link Generation} it shares. */
abstract class GenerationPart {
    // made once: JavaPoet turns a Class argument into a ClassName anew at every use, and these are used per op
    static final ClassName DATA_TYPE = ClassName.get(DataType.class);
    static final ClassName PEER = ClassName.get(Peer.class);
    static final ClassName DEVICE_BUFFER = ClassName.get(DeviceBuffer.class);
    static final ClassName RULE = ClassName.get(Rule.class);
    static final ClassName SUPPORT = ClassName.get(PipelineSupport.class);
    static final ClassName COMMUNICATOR = ClassName.get(Communicator.class);
    static final ClassName STREAM = ClassName.get(Stream.class);
    static final ClassName FINGERPRINT = ClassName.get(Fingerprint.class);
    static final ClassName GRAPH = ClassName.get(Graph.class);
    static final ClassName GRAPH_EXEC = ClassName.get(GraphExec.class);
    static final ClassName STRING = ClassName.get(String.class);
    /** Every accessor and step overrides: one spec for all of them. */
    static final AnnotationSpec OVERRIDE = AnnotationSpec.builder(Override.class).build();

    final Generation generation;
    final PipelineModel model;
    final Registration registration;
    final ClassName className;
    final NameAllocator methods;
    final TypeSpec.Builder type;
    final CodeBlock.Builder open;
    final List<String> graphs;
    final List<String> registrations;
    final List<String> windows;
    final List<String> roots;
    final List<MethodSpec> windowAccessors;

    GenerationPart(Generation generation) {
        this.generation = generation;
        this.model = generation.model;
        this.registration = generation.registration;
        this.className = generation.className;
        this.methods = generation.methods;
        this.type = generation.type;
        this.open = generation.open;
        this.graphs = generation.graphs;
        this.registrations = generation.registrations;
        this.windows = generation.windows;
        this.roots = generation.roots;
        this.windowAccessors = generation.windowAccessors;
    }

    String name(Object tag) {
        return generation.name(tag);
    }

    String name(BufferDecl b) {
        return generation.name(b);
    }

    String newName(String suggestion) {
        return generation.newName(suggestion);
    }

    List<BufferDecl> externals() {
        return generation.externals();
    }

    DataType typeOf(OpDecl o) {
        return generation.typeOf(o);
    }

    CodeBlock support(String method, String format, Object... args) {
        return generation.support(method, format, args);
    }

    List<Side> sides(OpDecl o) {
        return generation.sides(o);
    }
}
