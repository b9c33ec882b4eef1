package dev.collectives.processor.model;

import com.sun.source.tree.AnnotationTree;
import com.sun.source.tree.AssignmentTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.Tree;
import com.sun.source.util.TreePath;
import com.sun.source.util.Trees;
import java.util.List;
import java.util.Map;
import javax.annotation.processing.ProcessingEnvironment;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.ExecutableElement;
import javax.tools.Diagnostic;

/**
 * Points diagnostics at one of several repeated annotations ({@code @AllReduce @AllReduce}). javac keeps them in a
 * synthesized container and, given one of them, points at the whole method; here the k-th annotation of that type
 * written on the method (and the attribute in it) is found in javac's trees instead.
 */
public interface RepeatedAnnotations {
    /** Reports {@code message} at the site's annotation within its container; false when it cannot tell where. */
    boolean print(Diagnostic.Kind kind, String message, Site site);

    static RepeatedAnnotations of(ProcessingEnvironment env) {
        Trees trees;
        try {
            trees = Trees.instance(env);
        } catch (IllegalArgumentException | LinkageError e) {
            return (kind, message, site) -> false;
        }
        return (kind, message, site) -> {
            if (site.mirror() == null || site.element().getAnnotationMirrors().contains(site.mirror())) {
                return false;
            }
            int index = indexInContainer(site);
            TreePath path = trees.getPath(site.element());
            if (index < 0 || path == null || !(path.getLeaf() instanceof com.sun.source.tree.MethodTree method)) {
                return false;
            }
            String simpleName = site.mirror()
                    .getAnnotationType()
                    .asElement()
                    .getSimpleName()
                    .toString();
            int seen = 0;
            for (AnnotationTree annotation : method.getModifiers().getAnnotations()) {
                String written = annotation.getAnnotationType().toString();
                if (written.substring(written.lastIndexOf('.') + 1).equals(simpleName) && seen++ == index) {
                    trees.printMessage(kind, message, attribute(annotation, site), path.getCompilationUnit());
                    return true;
                }
            }
            return false;
        };
    }

    /** Which of its container's annotations the site's mirror is; -1 when it is in none. */
    private static int indexInContainer(Site site) {
        ExecutableElement method = (ExecutableElement) site.element();
        for (AnnotationMirror container : method.getAnnotationMirrors()) {
            List<AnnotationValue> inner =
                    Mirrors.list(Mirrors.explicitValues(container).get("value"));
            for (int i = 0; i < inner.size(); i++) {
                if (inner.get(i).getValue() == site.mirror()) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** The {@code name = value} argument holding the site's value, else the annotation itself. */
    private static Tree attribute(AnnotationTree annotation, Site site) {
        if (site.value() == null) {
            return annotation;
        }
        for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> e :
                site.mirror().getElementValues().entrySet()) {
            if (e.getValue() != site.value()) {
                continue;
            }
            String name = e.getKey().getSimpleName().toString();
            for (ExpressionTree argument : annotation.getArguments()) {
                if (argument instanceof AssignmentTree assignment
                        && assignment.getVariable() instanceof IdentifierTree id
                        && id.getName().contentEquals(name)) {
                    return assignment;
                }
            }
        }
        return annotation;
    }
}
