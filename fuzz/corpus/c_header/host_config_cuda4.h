
#if defined(__CUDACC__)

/* check for host compilers that are compatible with nvcc */
#if !defined(__GNUC__) && !defined(_WIN32)

#error --- !!! UNSUPPORTED COMPILER !!! ---

#endif /* !__GNUC__ && !_WIN32 */

#if defined(__ICC)

#if __ICC != 1110 || !defined(__GNUC__) || !defined(__LP64__)

//#error -- unsupported ICC configuration! Only ICC 11.1 on Linux x86_64 is supported!

#endif /* __ICC != 1110 || !__GNUC__ || !__LP64__ */

#endif /* __ICC */

#if defined(__GNUC__)

#if __GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ > 4)

#error -- unsupported GNU version! gcc 4.5 and up are not supported!

#endif /* __GNUC__> 4 || (__GNUC__ == 4 && __GNUC_MINOR__ > 4) */

#endif /* __GNUC__ */
