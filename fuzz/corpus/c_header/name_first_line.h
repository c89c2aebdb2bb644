CUDNN_MINOR
#  define CUDNN_MINOR 0x1fUL // hex
