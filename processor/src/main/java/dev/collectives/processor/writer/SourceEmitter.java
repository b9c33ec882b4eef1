package dev.collectives.processor.writer;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import javax.lang.model.element.Modifier;

import com.palantir.javapoet.AnnotationSpec;
import com.palantir.javapoet.ArrayTypeName;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.CodeBlock;
import com.palantir.javapoet.FieldSpec;
import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.MethodSpec;
import com.palantir.javapoet.ParameterSpec;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeSpec;

/**
 * Writes a generated class's JavaPoet specs as source text, the same text as JavaPoet's {@code JavaFile} (imports
 * sorted, java.lang not imported, 4-space indent, wrapped at column 100), but in one text pass: JavaPoet emits the
 * whole file twice, the first time only to learn what to import, and splits every token on line breaks with a
 * regular expression; that was about 40 % of the processor's time. Here a first walk only looks the type names up
 * (no text), then the text is written once into a {@link StringBuilder}, handed to the Filer in one write.
 *
 * <p>Covers what the writer builds: classes (nested too) without initializer blocks, fields, constructors and
 * methods, annotations with at most a {@code value}, code blocks; anything else is an internal error, not a silent
 * difference.
 */
final class SourceEmitter {
    private static final int COLUMN_LIMIT = 100;
    private static final String INDENT = "    ";
    private static final String[] INDENTS = new String[16];
    private static final String[] KEYWORDS = new String[Modifier.values().length];
    /**
     * JavaPoet keeps a code block's parts to itself, so they are read through a private look-up; its version is
     * pinned in the pom, and the text by the golden tests and {@code SourceEmitterTest}. Where a build puts another
     * JavaPoet on the processor path without them, both are null and JavaPoet's own {@code JavaFile} writes the
     * same text, in its two passes.
     */
    private static final MethodHandle FORMAT_PARTS;
    private static final MethodHandle ARGS;

    static {
        for (int level = 0; level < INDENTS.length; level++) {
            INDENTS[level] = INDENT.repeat(level);
        }
        for (Modifier m : Modifier.values()) {
            KEYWORDS[m.ordinal()] = m.name().toLowerCase(Locale.US);
        }
        MethodHandle formatParts = null;
        MethodHandle args = null;
        try {
            MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(CodeBlock.class, MethodHandles.lookup());
            formatParts = lookup.findVirtual(CodeBlock.class, "formatParts", MethodType.methodType(List.class));
            args = lookup.findVirtual(CodeBlock.class, "args", MethodType.methodType(List.class));
        } catch (ReflectiveOperationException | SecurityException e) {
            formatParts = null;
        }
        FORMAT_PARTS = formatParts;
        ARGS = formatParts == null ? null : args;
    }

    /**
     * A class being written: its simple and canonical names, and its nested classes' canonical names by simple name,
     * made once per class rather than a ClassName per look-up.
     */
    private record Scope(String name, String canonicalName, Map<String, String> nested) {
    }

    private enum Pending { SPACE, NOTHING }

    private final String packageName;
    private final Set<String> alwaysQualify;
    /** True in the first walk: only type names are looked up, to learn the imports; no text. */
    private final boolean collecting;
    private final Map<String, ClassName> imported;
    private final Map<String, ClassName> importable = new LinkedHashMap<>();
    private final Set<String> samePackageNames = new HashSet<>();
    private final List<Scope> scopes = new ArrayList<>();

    private final StringBuilder out;
    /** Text after a wrapping point not yet known to fit the line. */
    private final StringBuilder pendingText = new StringBuilder();
    private Pending pending;
    private int wrapIndentLevel = -1;
    private int column;

    private int indentLevel;
    private boolean javadoc;
    private boolean comment;
    private boolean lineStart;
    /** The line of the statement being written (continuation lines are indented twice), -1 outside one. */
    private int statementLine = -1;

    private SourceEmitter(String packageName, Set<String> alwaysQualify, Map<String, ClassName> imported,
            StringBuilder out) {
        this.packageName = packageName;
        this.alwaysQualify = alwaysQualify;
        this.collecting = out == null;
        this.imported = imported;
        this.out = out;
    }

    /** The source file of {@code type} in {@code packageName}, headed by {@code fileComment}. */
    static String emit(String packageName, CodeBlock fileComment, TypeSpec type) {
        if (FORMAT_PARTS == null) {
            return JavaFile.builder(packageName, type).addFileComment("$L", fileComment).indent(INDENT)
                    .skipJavaLangImports(true).build().toString();
        }
        Set<String> alwaysQualify = new HashSet<>();
        alwaysQualified(type, alwaysQualify);
        SourceEmitter collector = new SourceEmitter(packageName, alwaysQualify, Map.of(), null);
        collector.file(fileComment, type);
        Map<String, ClassName> imports = new LinkedHashMap<>(collector.importable);
        imports.keySet().removeAll(collector.samePackageNames);
        SourceEmitter writer = new SourceEmitter(packageName, alwaysQualify, imports, new StringBuilder(16384));
        writer.file(fileComment, type);
        writer.flushPending(false);
        return writer.out.toString();
    }

    private static void alwaysQualified(TypeSpec type, Set<String> names) {
        names.addAll(type.alwaysQualifiedNames());
        type.typeSpecs().forEach(nested -> alwaysQualified(nested, names));
    }

    private void file(CodeBlock fileComment, TypeSpec type) {
        if (!fileComment.isEmpty()) {
            lineStart = true;
            comment = true;
            code(fileComment, false);
            text("\n");
            comment = false;
        }
        if (!packageName.isEmpty()) {
            text("package " + packageName + ";\n");
            text("\n");
        }
        int count = 0;
        for (ClassName c : new TreeSet<>(imported.values())) {
            if (c.packageName().equals("java.lang") && !alwaysQualify.contains(c.simpleName())) {
                continue;
            }
            text("import " + c.canonicalName() + ";\n");
            count++;
        }
        if (count > 0) {
            text("\n");
        }
        type(type);
    }

    private void type(TypeSpec type) {
        if (type.kind() != TypeSpec.Kind.CLASS || type.anonymousTypeArguments() != null
                || !type.typeVariables().isEmpty() || !type.enumConstants().isEmpty()
                || !type.staticBlock().isEmpty() || !type.initializerBlock().isEmpty()) {
            throw unsupported("type " + type.name());
        }
        int enclosingStatementLine = statementLine;
        statementLine = -1;
        String canonicalName = scopes.isEmpty()
                ? (packageName.isEmpty() ? type.name() : packageName + "." + type.name())
                : scopes.get(scopes.size() - 1).canonicalName() + "." + type.name();
        // the header sees the class itself, not its nested classes
        scopes.add(new Scope(type.name(), canonicalName, Map.of()));
        javadoc(type.javadoc());
        annotations(type.annotations(), false);
        modifiers(type.modifiers());
        text("class ");
        text(type.name());
        if (!type.superclass().equals(ClassName.OBJECT)) {
            text(" extends ");
            type(type.superclass());
        }
        for (int i = 0; i < type.superinterfaces().size(); i++) {
            text(i == 0 ? " implements " : ", ");
            type(type.superinterfaces().get(i));
        }
        scopes.remove(scopes.size() - 1);
        text(" {\n");
        Map<String, String> nestedNames = new HashMap<>();
        for (String simpleName : type.nestedTypesSimpleNames()) {
            nestedNames.put(simpleName, canonicalName + "." + simpleName);
        }
        scopes.add(new Scope(type.name(), canonicalName, nestedNames));
        indentLevel++;
        boolean first = true;
        for (boolean statics : new boolean[] {true, false}) { // static fields first, as JavaPoet writes them
            for (FieldSpec f : type.fieldSpecs()) {
                if (f.modifiers().contains(Modifier.STATIC) == statics) {
                    first = member(first);
                    field(f);
                }
            }
        }
        for (boolean constructors : new boolean[] {true, false}) { // then constructors, then methods
            for (MethodSpec m : type.methodSpecs()) {
                if (m.isConstructor() == constructors) {
                    first = member(first);
                    method(m, type.name());
                }
            }
        }
        for (TypeSpec nested : type.typeSpecs()) {
            first = member(first);
            type(nested);
        }
        indentLevel--;
        scopes.remove(scopes.size() - 1);
        text("}\n");
        statementLine = enclosingStatementLine;
    }

    /** A blank line before every member but the first. */
    private boolean member(boolean first) {
        if (!first) {
            text("\n");
        }
        return false;
    }

    private void field(FieldSpec f) {
        javadoc(f.javadoc());
        annotations(f.annotations(), false);
        modifiers(f.modifiers());
        type(f.type());
        text(" ");
        text(f.name());
        if (!f.initializer().isEmpty()) {
            text(" = ");
            code(f.initializer(), false);
        }
        text(";\n");
    }

    private void method(MethodSpec m, String enclosingName) {
        if (collecting) { // checked once: the second walk writes the same specs
            checkSupported(m);
        }
        javadoc(m.javadoc());
        annotations(m.annotations(), false);
        modifiers(m.modifiers());
        if (m.isConstructor()) {
            text(enclosingName);
        } else {
            type(m.returnType());
            text(" ");
            text(m.name());
        }
        parameters(m.parameters(), m.varargs());
        if (!m.exceptions().isEmpty()) {
            wrappingSpace();
            text("throws");
            for (int i = 0; i < m.exceptions().size(); i++) {
                if (i > 0) {
                    text(",");
                }
                wrappingSpace();
                type(m.exceptions().get(i));
            }
        }
        if (m.modifiers().contains(Modifier.ABSTRACT)) {
            text(";\n");
            return;
        }
        text(" {\n");
        indentLevel++;
        code(m.code(), true);
        indentLevel--;
        text("}\n");
    }

    private static void checkSupported(MethodSpec m) {
        boolean parameterJavadoc = false;
        for (ParameterSpec p : m.parameters()) {
            parameterJavadoc |= !p.javadoc().isEmpty();
        }
        if (!m.typeVariables().isEmpty() || (m.defaultValue() != null && !m.defaultValue().isEmpty())
                || parameterJavadoc || m.modifiers().contains(Modifier.NATIVE)) {
            throw unsupported("method " + m.name());
        }
    }

    private void parameters(List<ParameterSpec> parameters, boolean varargs) {
        text("(");
        zeroWidthSpace();
        for (int i = 0; i < parameters.size(); i++) {
            ParameterSpec p = parameters.get(i);
            if (i > 0) {
                text(",");
                wrappingSpace();
            }
            annotations(p.annotations(), true);
            modifiers(p.modifiers());
            if (varargs && i == parameters.size() - 1) {
                type(((ArrayTypeName) p.type()).componentType());
                text("...");
            } else {
                type(p.type());
            }
            text(" ");
            text(p.name());
        }
        text(")");
    }

    private void javadoc(CodeBlock block) {
        if (block.isEmpty()) {
            return;
        }
        text("/**\n");
        javadoc = true;
        code(block, true);
        javadoc = false;
        text(" */\n");
    }

    private void annotations(List<AnnotationSpec> annotations, boolean inline) {
        for (AnnotationSpec a : annotations) {
            text("@");
            type(a.type());
            Map<String, List<CodeBlock>> members = a.members();
            if (!members.isEmpty()) {
                List<CodeBlock> value = members.get("value");
                if (members.size() != 1 || value == null || value.size() != 1) {
                    throw unsupported("annotation " + a.type());
                }
                text("(");
                indentLevel += 2;
                code(value.get(0), false);
                indentLevel -= 2;
                text(")");
            }
            text(inline ? " " : "\n");
        }
    }

    /** In the enum's order, as JavaPoet writes them. */
    private void modifiers(Set<Modifier> modifiers) {
        if (collecting || modifiers.isEmpty()) {
            return;
        }
        for (Modifier m : EnumSet.copyOf(modifiers)) {
            text(KEYWORDS[m.ordinal()]);
            text(" ");
        }
    }

    private void type(TypeName type) {
        if (type.isAnnotated()) {
            throw unsupported("annotated type " + type);
        }
        if (type instanceof ClassName c) {
            text(name(c));
        } else if (type instanceof ArrayTypeName array) {
            type(array.componentType());
            text("[]");
        } else if (type.isPrimitive() || type.equals(TypeName.VOID)) {
            text(type.toString());
        } else {
            throw unsupported("type " + type);
        }
    }

    /** The shortest name of {@code c} here: nested, imported, of this package, else qualified (and importable). */
    private String name(ClassName c) {
        boolean resolved = false;
        for (ClassName k = c; k != null; k = k.enclosingClassName()) {
            String found = resolve(k.simpleName());
            resolved = found != null;
            if (found != null && found.equals(k.canonicalName())) {
                if (k == c) {
                    return c.simpleName(); // the common case, without making the list of names
                }
                List<String> names = c.simpleNames();
                return String.join(".", names.subList(k.simpleNames().size() - 1, names.size()));
            }
        }
        if (resolved) {
            return c.canonicalName();
        }
        if (packageName.equals(c.packageName())) {
            samePackageNames.add(c.topLevelClassName().simpleName());
            return String.join(".", c.simpleNames());
        }
        // a Javadoc link imports its class too, as JavaPoet's does; the first class of a simple name takes it
        if (!c.packageName().isEmpty() && !alwaysQualify.contains(c.simpleName())) {
            ClassName top = c.topLevelClassName();
            importable.putIfAbsent(top.simpleName(), top);
        }
        return c.canonicalName();
    }

    /** The canonical name of the class {@code simpleName} means here, or null. */
    private String resolve(String simpleName) {
        for (int i = scopes.size() - 1; i >= 0; i--) {
            String nested = scopes.get(i).nested().get(simpleName);
            if (nested != null) {
                return nested;
            }
        }
        if (!scopes.isEmpty() && scopes.get(0).name().equals(simpleName)) {
            return scopes.get(0).canonicalName();
        }
        ClassName c = imported.get(simpleName);
        return c == null ? null : c.canonicalName();
    }

    @SuppressWarnings("unchecked")
    private void code(CodeBlock block, boolean endLine) {
        List<String> parts;
        List<Object> args;
        try {
            args = (List<Object>) ARGS.invoke(block);
            if (collecting && args.isEmpty()) {
                return; // text and placeholders without arguments name no type
            }
            parts = (List<String>) FORMAT_PARTS.invoke(block);
        } catch (Throwable e) {
            throw new IllegalStateException("cannot read a JavaPoet code block", e);
        }
        int a = 0;
        for (String part : parts) {
            // a placeholder is a part of two characters starting with $ (a literal $ in text is the part "$$")
            if (part.length() != 2 || part.charAt(0) != '$') {
                text(part);
                continue;
            }
            switch (part.charAt(1)) {
                case 'L' -> literal(args.get(a++));
                case 'N' -> text((String) args.get(a++));
                case 'S' -> string((String) args.get(a++));
                case 'T' -> type((TypeName) args.get(a++));
                case '$' -> text("$");
                case '>' -> indentLevel++;
                case '<' -> indentLevel--;
                case '[' -> statementLine = 0;
                case ']' -> {
                    if (statementLine > 0) {
                        indentLevel -= 2;
                    }
                    statementLine = -1;
                }
                case 'W' -> wrappingSpace();
                case 'Z' -> zeroWidthSpace();
                default -> throw unsupported("placeholder " + part);
            }
        }
        if (endLine && !collecting && (out.isEmpty() || out.charAt(out.length() - 1) != '\n')) {
            text("\n");
        }
    }

    private void literal(Object value) {
        if (value instanceof CodeBlock block) {
            code(block, false);
        } else if (value instanceof TypeSpec || value instanceof AnnotationSpec) {
            throw unsupported("literal " + value.getClass().getSimpleName());
        } else if (!collecting) {
            text(String.valueOf(value));
        }
    }

    /** A {@code $S} argument; the first walk, which only learns the imports, does not quote it. */
    private void string(String s) {
        if (!collecting) {
            text(s == null ? "null" : quoted(s));
        }
    }

    /** {@code s} as a Java string literal; a line break inside it continues the literal on the next line. */
    private static String quoted(String s) {
        int plain = 0;
        while (plain < s.length() && s.charAt(plain) != '"' && s.charAt(plain) != '\\'
                && !Character.isISOControl(s.charAt(plain))) {
            plain++;
        }
        if (plain == s.length()) {
            return '"' + s + '"';
        }
        StringBuilder b = new StringBuilder(s.length() + 16).append('"').append(s, 0, plain);
        for (int i = plain; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\'' -> b.append('\'');
                case '\\' -> b.append("\\\\");
                case '\b' -> b.append("\\b");
                case '\t' -> b.append("\\t");
                case '\f' -> b.append("\\f");
                case '\r' -> b.append("\\r");
                case '\n' -> {
                    b.append("\\n");
                    if (i + 1 < s.length()) {
                        b.append("\"\n").append(INDENT).append(INDENT).append("+ \"");
                    }
                }
                default -> {
                    if (Character.isISOControl(c)) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /**
     * Writes {@code s}, line by line: indentation (and a Javadoc or comment prefix) only before a line's first
     * text, so that blank lines carry no trailing spaces; inside a statement, lines after its first are indented
     * twice more.
     */
    private void text(String s) {
        if (collecting) {
            return;
        }
        int length = s.length();
        int start = 0;
        while (true) {
            int end = nextLineBreak(s, start);
            if (end > start) {
                if (lineStart) {
                    indentation();
                    if (javadoc) {
                        append(" * ");
                    } else if (comment) {
                        append("// ");
                    }
                }
                // most pieces hold no line break: appended whole, no substring
                append(start == 0 && end == length ? s : s.substring(start, end));
                lineStart = false;
            }
            if (end == length) {
                return;
            }
            // \r\n is one line break
            start = s.charAt(end) == '\r' && end + 1 < length && s.charAt(end + 1) == '\n' ? end + 2 : end + 1;
            breakLine();
        }
    }

    /**
     * The index of the first line terminator of {@code \R} in a regular expression ({@code \n}, {@code \u000B},
     * {@code \f}, {@code \r}, {@code \u0085}, {@code \u2028}, {@code \u2029}) in {@code s} from {@code from}, else
     * its length; ordinary characters, between {@code \r} and {@code \u0085}, take two comparisons.
     */
    private static int nextLineBreak(String s, int from) {
        int length = s.length();
        for (int i = from; i < length; i++) {
            char c = s.charAt(i);
            if (c <= '\r' ? c >= '\n' : c >= '\u0085' && (c == '\u0085' || c == '\u2028' || c == '\u2029')) {
                return i;
            }
        }
        return length;
    }

    /** A line break in the text: the prefix of an empty Javadoc or comment line, and a statement's indentation. */
    private void breakLine() {
        if ((javadoc || comment) && lineStart) {
            indentation();
            append(javadoc ? " *" : "//");
        }
        newline();
        lineStart = true;
        if (statementLine != -1) {
            if (statementLine == 0) {
                indentLevel += 2;
            }
            statementLine++;
        }
    }

    private void indentation() {
        if (indentLevel > 0) {
            append(indent(indentLevel));
        }
    }

    /** {@code level} indents, one string (made once for the usual levels) rather than one append each. */
    private static String indent(int level) {
        return level < INDENTS.length ? INDENTS[level] : INDENT.repeat(level);
    }

    /** A space, or a line break when the text up to the next wrapping point would pass the column limit. */
    private void wrappingSpace() {
        if (collecting) {
            return;
        }
        flushPending(false);
        column++;
        pending = Pending.SPACE;
        wrapIndentLevel = indentLevel + 2;
    }

    /** Nothing, or a line break when the text up to the next wrapping point would pass the column limit. */
    private void zeroWidthSpace() {
        if (collecting || column == 0) {
            return;
        }
        flushPending(false);
        pending = Pending.NOTHING;
        wrapIndentLevel = indentLevel + 2;
    }

    /**
     * Appends text without line breaks ({@link #text} splits them off, so no scan for them here), held back while a
     * wrapping point is pending and the line still has room.
     */
    private void append(String s) {
        if (pending != null) {
            if (column + s.length() <= COLUMN_LIMIT) {
                pendingText.append(s);
                column += s.length();
                return;
            }
            flushPending(true);
        }
        out.append(s);
        column += s.length();
    }

    /** Ends the line; text held after a wrapping point stays on it unless the line already passed the limit. */
    private void newline() {
        flushPending(column > COLUMN_LIMIT);
        out.append('\n');
        column = 0;
    }

    /** Writes the text held after a wrapping point: on a new line when {@code wrap}, else after the space, if any. */
    private void flushPending(boolean wrap) {
        if (pending == null) {
            return;
        }
        if (wrap) {
            out.append('\n').append(indent(wrapIndentLevel));
            column = wrapIndentLevel * INDENT.length() + pendingText.length();
        } else if (pending == Pending.SPACE) {
            out.append(' ');
        }
        if (pendingText.length() > 0) {
            out.append(pendingText);
            pendingText.setLength(0);
        }
        wrapIndentLevel = -1;
        pending = null;
    }

    private static IllegalStateException unsupported(String what) {
        return new IllegalStateException("the source emitter does not write this " + what);
    }
}
