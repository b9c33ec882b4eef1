package dev.collectives.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a DeviceAllocator that meets the allocator requirements of the NCCL/MCCL user-buffer-registration guide
 * (R11), with the handle types it exports.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface QualifiedAllocator {
    /**
     * The handle types the allocator's memory exports: {@link HandleType#POSIX_FILE_DESCRIPTOR}, and
     * {@link HandleType#FABRIC} where the GPU has it.
     */
    HandleType[] handleTypes();
}
