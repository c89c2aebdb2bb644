#define __CUDA_API_VERSION_INTERNAL 1
/**
 * CUDA API version number
 */
#define CUDA_VERSION 13000

#ifdef __cplusplus
extern "C" {
#endif
