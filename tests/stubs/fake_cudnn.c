/* A stand-in libcudnn.so.9: cuDNN 9's real symbol names (cudnn_graph.h) answering as the
 * machine chosen by STUB_BEHAVIOUR would: version 9.19.0 built against CUDA 13.0; a handle can
 * be created only where the driver sees a GPU. */
#include <stddef.h>
#include <stdlib.h>

#include "stub_behaviour.h"

typedef int cudnnStatus_t;
typedef struct StubHandle* cudnnHandle_t;
struct StubHandle {
    int device;
};

enum { kSuccess = 0, kNotInitialized = 1001, kBadParam = 2000, kInternalError = 4000 };

size_t cudnnGetVersion(void) {
#if STUB_BEHAVIOUR == STUB_SEGFAULT
    stub_crash();
#endif
    return 91900;
}

size_t cudnnGetCudartVersion(void) { return 13000; }

size_t cudnnGetMaxDeviceVersion(void) { return 1210; }

const char* cudnnGetErrorString(cudnnStatus_t status) {
    switch (status) {
        case kSuccess: return "CUDNN_STATUS_SUCCESS";
        case kNotInitialized: return "CUDNN_STATUS_NOT_INITIALIZED";
        case kBadParam: return "CUDNN_STATUS_BAD_PARAM";
        default: return "CUDNN_STATUS_INTERNAL_ERROR";
    }
}

cudnnStatus_t cudnnCreate(cudnnHandle_t* handle) {
    if (!handle) return kBadParam;
#if STUB_BEHAVIOUR == STUB_HANG
    stub_hang();
#elif STUB_BEHAVIOUR == STUB_NO_DEVICE || STUB_BEHAVIOUR == STUB_RM_MISMATCH || STUB_BEHAVIOUR == STUB_COMPAT
    return kNotInitialized;
#endif
    *handle = (cudnnHandle_t)calloc(1, sizeof(struct StubHandle));
    return *handle ? kSuccess : kInternalError;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t handle) {
    free(handle);
    return kSuccess;
}
