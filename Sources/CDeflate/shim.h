#pragma once
// libdeflate: whole-buffer DEFLATE/gzip decompression, about twice as fast as zlib's
// streaming inflate; used for small gzip logs held in memory whole (docs/logs.md#gzip).
#include <libdeflate.h>
