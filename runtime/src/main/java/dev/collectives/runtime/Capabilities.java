package dev.collectives.runtime;

/**
 * What the library and fabric offer a communicator. Absent capabilities are reported, never crashed on.
 *
 * @param libraryVersion   e.g. "2.28.9"
 * @param mtlinkSharp      MTLink SHARP (NVLS) is usable
 * @param ibSharp          IB SHARP (CollNet) is enabled on this communicator
 * @param registration     user buffer registration is supported (any NCCL this project loads; MCCL 2.28.9 or
 *                         later)
 * @param symmetricWindows window registration yields symmetric windows
 * @param windowHelpers    {@code WinGetUserPtr} and {@code GetLsaDevicePointer} exist and work (R10)
 * @param fabricHandles    the device supports FABRIC VMM handles (R11)
 * @param cheapCallChecks  checking a step's arguments across ranks costs little next to each call (the sim,
 *                         whose ranks compare every op anyway), so every call is checked, not only on request
 * @param lsaPointersArePeerAddresses a peer's LSA device pointer is the address at which that peer sees its
 *                         window (the sim's memory is host memory), not a mapping of it into this rank
 */
public record Capabilities(
        String libraryVersion,
        boolean mtlinkSharp,
        boolean ibSharp,
        boolean registration,
        boolean symmetricWindows,
        boolean windowHelpers,
        boolean fabricHandles,
        boolean cheapCallChecks,
        boolean lsaPointersArePeerAddresses) {}
