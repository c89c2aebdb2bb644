
#if defined(__GRCO_CLANG_COMPILER__)
#if (__GRCO_CLANG_COMPILER__ == 1) && ((__clang_major__ < 16) || (__clang_major__ > 18))
#error -- unsupported Grace clang version! The version must be 16.x to 18.x.
#endif  /* (__GRCO_CLANG_COMPILER__ == 1) && ((__clang_major__ < 16) || (__clang_major__ > 18)) */
#endif /* __GRCO_CLANG_COMPILER__  */

#if defined(__GNUC__)

#if __GNUC__ > 13

#error -- unsupported GNU version! gcc versions later than 13 are not supported!

#endif /* __GNUC__ > 13 */


#if defined(__HORIZON__)
#if (__clang_major__ >= 19) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3))
#error -- unsupported HOS clang version! The version must be must be less than 19 and greater than 3.2 .
#endif  /* (__clang_major__ >= 19) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3)) */
#endif /* __HORIZON__  */

#if defined(__clang__) && !defined(__ibmxl_vrm__) && !defined(__ICC) && !defined(__HORIZON__) && !defined(__APPLE__) && !defined(__GRCO_CLANG_COMPILER__)

#if (__clang_major__ >= 19) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3))
#error -- unsupported clang version! clang version must be less than 19 and greater than 3.2 .

#endif  /* (__clang_major__ >=  19) || (__clang_major__ < 3) || ((__clang_major__ == 3) &&  (__clang_minor__ < 3)) */

#endif /* defined(__clang__) && ... */

#endif /* __GNUC__ */
