// Built for aarch64 and run under qemu-user by NativeLibrariesTest: loads the runtime's linux-arm64 JNI libraries as
// an arm64 JVM would (dlopen, every symbol bound now, so their dependencies must be there) and calls one function of
// each. The two take no Java objects, so no JVM is needed: JavaCPP's wrappers touch the JNIEnv only to throw.
#include <dlfcn.h>
#include <cstdint>
#include <cstdio>

static void* symbol(const char* library, const char* name) {
    void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    void* found = handle != nullptr ? dlsym(handle, name) : nullptr;
    if (found == nullptr) std::fprintf(stderr, "%s\n", dlerror());
    return found;
}

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s libjniNativeKernels.so libjniNativeShim.so\n", argv[0]);
        return 2;
    }
    auto streamMinBytes = reinterpret_cast<int64_t (*)(void*, void*)>(
            symbol(argv[1], "Java_dev_collectives_backend_sim_internal_NativeKernels_streamMinBytes"));
    auto slotCount = reinterpret_cast<int32_t (*)(void*, void*)>(
            symbol(argv[2], "Java_dev_collectives_backend_device_NativeShim_slotCount"));
    if (streamMinBytes == nullptr || slotCount == nullptr) return 1;
    std::printf("streamMinBytes %lld\n", static_cast<long long>(streamMinBytes(nullptr, nullptr)));
    std::printf("slotCount %d\n", slotCount(nullptr, nullptr));
    return 0;
}
