/* Which machine a stub driver library behaves like, chosen at build time with
 * -DSTUB_BEHAVIOUR=<n> (see tests/stubs/CMakeLists.txt, which builds one folder per behaviour):
 *
 *   healthy       one GPU (GeForce RTX 4090, CC 8.9), driver 580.65.06 / CUDA 13.0; honours
 *                 CUDA_VISIBLE_DEVICES like the real driver (empty, -1 or an unknown id: no device)
 *   old_driver    a working driver 470.256.02 that runs CUDA ≤ 11.4 (programs built with a newer
 *                 toolkit get cudaErrorInsufficientDriver, 35)
 *   rm_mismatch   user-space libraries newer than the loaded kernel module: nvmlInit_v2 answers
 *                 NVML_ERROR_LIB_RM_VERSION_MISMATCH (18), cuInit CUDA_ERROR_SYSTEM_DRIVER_MISMATCH (803)
 *   no_device     the driver is loaded but sees no GPU: cuInit 100, NVML counts 0 devices
 *   compat        a forward-compatibility libcuda on a GPU that does not support it: cuInit 804
 *   hang          cuInit, nvmlInit_v2 and cudnnCreate never return
 *   segfault      cuInit, nvmlInit_v2 and cudnnGetVersion dereference a null pointer
 *   wrong_result  healthy, but a launched kernel writes only the first half of its output
 */
#ifndef CUDOCTOR_STUB_BEHAVIOUR_H
#define CUDOCTOR_STUB_BEHAVIOUR_H

#include <signal.h>
#include <unistd.h>

#define STUB_HEALTHY      0
#define STUB_OLD_DRIVER   1
#define STUB_RM_MISMATCH  2
#define STUB_NO_DEVICE    3
#define STUB_COMPAT       4
#define STUB_HANG         5
#define STUB_SEGFAULT     6
#define STUB_WRONG_RESULT 7

#ifndef STUB_BEHAVIOUR
#error "build with -DSTUB_BEHAVIOUR=<n>"
#endif

/* What a hanging driver does: block forever (the doctor must kill it). */
static inline void stub_hang(void) {
    for (;;) pause();
}

/* What a crashing driver does: touch memory that is not there. */
static inline void stub_crash(void) {
    volatile int* nowhere = (volatile int*)0;
    *nowhere = 1;
}

#endif
