#if __GNUC__ \
 > 12 /* x
#error -- unsupported GNU version! */
#elif __GNUC__ >= 0
#error -- unsupported GNU version! gcc versions later than
#else
#error -- unsupported clang version! less than 0
#endif
#endif
/*