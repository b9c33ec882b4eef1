package dev.collectives.processor.model;

import com.sun.source.tree.AnnotationTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.Trees;
import java.util.ArrayList;
import java.util.List;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.ExecutableElement;

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
                    names.add(simpleName(a.getAnnotationType()));
                }
            }
            return names;
        };
    }

    /** The last name of {@code AllReduce} or {@code Ops.AllReduce}, read off the tree, not printed from it. */
    private static String simpleName(Tree type) {
        if (type instanceof IdentifierTree identifier) {
            return identifier.getName().toString();
        }
        if (type instanceof MemberSelectTree select) {
            return select.getIdentifier().toString();
        }
        String written = type.toString();
        return written.substring(written.lastIndexOf('.') + 1);
    }
}
