package dev.collectives.annotation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.lang.annotation.Repeatable;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The catalogue says of each op what its annotation declares, so that what derives from it fits the annotation. */
class OpKindTest {
    @ParameterizedTest
    @EnumSource(OpKind.class)
    void theAnnotationHasEveryAttributeTheCatalogueNames(OpKind kind) {
        Set<String> attributes = attributes(kind.annotationType());
        for (String numeric : kind.numericAttributes()) {
            assertTrue(attributes.contains(numeric), numeric);
            assertTrue(attributes.contains(OpKind.exprTwin(numeric)), OpKind.exprTwin(numeric));
        }
        assertTrue(attributes.contains(kind.countExprAttribute()));
        if (kind.hasSend()) {
            assertTrue(attributes.contains(kind.sendAttribute()), kind.sendAttribute());
        }
        if (kind.hasRecv()) {
            assertTrue(attributes.contains(kind.recvAttribute()), kind.recvAttribute());
        }
        assertEquals(kind.reduces(), attributes.contains("op"));
        assertEquals(kind.hasRoot(), attributes.contains("root"));
        assertEquals(kind.isPointToPoint(), attributes.contains("peer"));
    }

    @ParameterizedTest
    @EnumSource(OpKind.class)
    void theContainerHoldsTheAnnotationsRepeats(OpKind kind) throws NoSuchMethodException {
        assertSame(
                kind.containerType(),
                kind.annotationType().getAnnotation(Repeatable.class).value());
        assertSame(
                kind.annotationType(),
                kind.containerType().getMethod("value").getReturnType().getComponentType());
        assertSame(kind, OpKind.byAnnotation(kind.qualifiedName()));
        assertSame(kind, OpKind.byContainer(kind.containerName()));
        String simpleName = kind.annotationType().getSimpleName();
        assertEquals(simpleName.substring(0, 1).toLowerCase(Locale.ROOT) + simpleName.substring(1), kind.method());
        assertTrue(simpleName.equalsIgnoreCase(kind.cName()), kind.cName());
    }

    @Test
    void namesAreTheAnnotationsAndTheirContainers() {
        assertEquals("dev.collectives.annotation.AllGather", OpKind.ALL_GATHER.qualifiedName());
        assertEquals("dev.collectives.annotation.AllGather.List", OpKind.ALL_GATHER.containerName());
        assertEquals("@AllGather", OpKind.ALL_GATHER.annotation());
        assertEquals("AlltoAll", OpKind.ALL_TO_ALL.cName());
        assertEquals("sendCountExpr", OpKind.ALL_GATHER.countExprAttribute());
        assertEquals(List.of("count", "offset"), OpKind.SEND.numericAttributes());
        assertNull(OpKind.byAnnotation("dev.collectives.annotation.Buffer"));
        assertNull(OpKind.byContainer("dev.collectives.annotation.Capture.List"));
    }

    @Test
    void everyOpAnnotationIsInTheCatalogue() throws Exception {
        // an op annotation repeats on a step and takes a count; @Buffer, @View and @External take theirs once
        Set<Class<?>> ops = new HashSet<>();
        Path classes = Path.of(OpKind.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                .resolve(OpKind.class.getPackageName().replace('.', '/'));
        try (Stream<Path> files = Files.list(classes)) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString();
                if (name.endsWith(".class") && !name.contains("$")) {
                    Class<?> type = Class.forName(OpKind.class.getPackageName() + "." + name.replace(".class", ""));
                    boolean counts = Arrays.stream(type.getDeclaredMethods())
                            .anyMatch(m -> m.getName().endsWith("ountExpr"));
                    if (type.isAnnotation() && type.isAnnotationPresent(Repeatable.class) && counts) {
                        ops.add(type);
                    }
                }
            }
        }
        assertTrue(ops.contains(AllReduce.class), "the scan finds the annotations: " + ops);
        assertEquals(
                ops, Arrays.stream(OpKind.values()).map(OpKind::annotationType).collect(Collectors.toSet()));
    }

    @Test
    void extentsCountElementsPerRanksCall() {
        assertEquals(8, OpKind.ALL_GATHER.sendExtent().elements(8, 4));
        assertEquals(32, OpKind.ALL_GATHER.recvExtent().elements(8, 4));
        assertEquals(0, OpKind.SEND.recvExtent().elements(8, 4));
        assertTrue(OpKind.ALL_REDUCE.inPlaceAtSameOffset());
        assertFalse(OpKind.ALL_TO_ALL.inPlaceAtSameOffset());
        assertFalse(OpKind.SEND.inPlaceAtSameOffset());
    }

    @Test
    void onlyTheRootUsesTheSideOfARootedOpThatOnlyItNeeds() {
        assertTrue(OpKind.BROADCAST.sendOnlyAtRoot());
        assertTrue(OpKind.REDUCE.recvOnlyAtRoot());
        assertTrue(OpKind.GATHER.recvOnlyAtRoot());
        assertTrue(OpKind.SCATTER.sendOnlyAtRoot());
        assertFalse(OpKind.GATHER.usesRecv(0, 1));
        assertTrue(OpKind.GATHER.usesRecv(1, 1));
        assertTrue(OpKind.GATHER.usesSend(0, 1));
        assertFalse(OpKind.SEND.usesRecv(0, 1));
        for (OpKind kind : OpKind.values()) {
            assertEquals(kind.sendOnlyAtRoot() || kind.recvOnlyAtRoot(), kind.hasRoot(), kind.name());
        }
        assertEquals(32, OpKind.GATHER.recvExtent().elements(8, 4));
        assertEquals(32, OpKind.SCATTER.sendExtent().elements(8, 4));
    }

    @Test
    void onlyOpsOfCountOnBothSidesAreElementwise() {
        assertEquals(
                Set.of(OpKind.ALL_REDUCE, OpKind.BROADCAST, OpKind.REDUCE),
                Arrays.stream(OpKind.values()).filter(OpKind::elementwise).collect(Collectors.toSet()));
    }

    private static Set<String> attributes(Class<? extends Annotation> annotation) {
        return Arrays.stream(annotation.getDeclaredMethods())
                .map(Method::getName)
                .collect(Collectors.toSet());
    }
}
