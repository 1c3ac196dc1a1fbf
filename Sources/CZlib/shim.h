#pragma once
#include <zlib.h>

// zlib's inflateInit2 is a macro; Swift cannot call macros, so wrap it.
static inline int czlib_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
