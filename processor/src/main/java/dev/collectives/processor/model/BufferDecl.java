package dev.collectives.processor.model;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.type.TypeMirror;

/**
 * An accessor: a {@code @Buffer} (a root allocation the pipeline makes), a {@code @View} into another accessor at
 * a byte offset, or an {@code @External} the user passes to bind. Attributes that could not be read are null.
 */
public final class BufferDecl extends Annotated {
    /** Which annotation declared it. */
    public enum Kind {
        BUFFER("@Buffer"),
        VIEW("@View"),
        EXTERNAL("@External");

        private final String annotation;

        Kind(String annotation) {
            this.annotation = annotation;
        }

        public String annotation() {
            return annotation;
        }
    }

    private final ExecutableElement method;
    private final Kind kind;
    private final String name;
    DataType type;
    boolean typeDefaulted;
    Long count;
    Allocator allocator;
    TypeMirror customAllocator;
    Boolean registered;
    String of;
    Long offsetBytes;
    AnnotationMirror windowMirror;
    Boolean windowSymmetric;
    final List<AnnotationMirror> stray = new ArrayList<>();

    BufferDecl(ExecutableElement method, AnnotationMirror mirror, Kind kind) {
        super(method, mirror);
        this.method = method;
        this.kind = kind;
        this.name = method.getSimpleName().toString();
    }

    public ExecutableElement method() {
        return method;
    }

    public Kind kind() {
        return kind;
    }

    public String name() {
        return name;
    }

    public DataType type() {
        return type;
    }

    /** Whether {@code type} was left out, so that it is the annotation's default ({@code @Buffer}: UINT8). */
    public boolean typeDefaulted() {
        return typeDefaulted;
    }

    /** Elements of {@link #type()}. */
    public Long count() {
        return count;
    }

    /** Null unless {@link Kind#BUFFER}. */
    public Allocator allocator() {
        return allocator;
    }

    public TypeMirror customAllocator() {
        return customAllocator;
    }

    /** The declared flag for {@link Kind#BUFFER}; views take their root's; externals count as registered. */
    public Boolean registeredFlag() {
        return registered;
    }

    /** For views: the accessor it lies in. */
    public String of() {
        return of;
    }

    public Long offsetBytes() {
        return offsetBytes;
    }

    /** The {@code @Window} beside it, or null. */
    public AnnotationMirror windowMirror() {
        return windowMirror;
    }

    public boolean isWindow() {
        return windowMirror != null;
    }

    public boolean windowSymmetric() {
        return windowSymmetric == null || windowSymmetric;
    }

    public Site windowSite() {
        return new Site(method, windowMirror, null);
    }

    /** Annotations of this project on the accessor that do not belong on an accessor (ops, a second kind). */
    public List<AnnotationMirror> stray() {
        return Collections.unmodifiableList(stray);
    }

    /** Bytes, or null when unknown or overflowing. */
    public Long sizeBytes() {
        if (type == null || count == null) {
            return null;
        }
        try {
            return Math.multiplyExact(count, (long) type.size());
        } catch (ArithmeticException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return kind.annotation() + " " + name + "()";
    }
}
