package dev.collectives.processor.model;

import java.util.ArrayList;
import java.util.List;

import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.ExecutableElement;

import com.sun.source.tree.AnnotationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.util.Trees;

/** The simple names of a method's annotations as written in its source, where the compiler exposes its trees. */
public interface SourceOrder {
    /** Simple names ("AllReduce", "List" for explicit containers) in source order; empty when unknown. */
    List<String> annotationNames(ExecutableElement method);

    /** javac's trees when this runs inside javac, else "unknown" (mirror order is then used as is). */
    static SourceOrder of(ProcessingEnvironment env) {
        Trees trees;
        try {
            trees = Trees.instance(env);
        } catch (IllegalArgumentException | LinkageError e) {
            return method -> List.of();
        }
        return method -> {
            MethodTree tree = trees.getTree(method);
            List<String> names = new ArrayList<>();
            if (tree != null) {
                for (AnnotationTree a : tree.getModifiers().getAnnotations()) {
                    String written = a.getAnnotationType().toString();
                    names.add(written.substring(written.lastIndexOf('.') + 1));
                }
            }
            return names;
        };
    }
}
