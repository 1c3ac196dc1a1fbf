#pragma once
// Reentrant API only: every call takes a GEOSContextHandle_t, one per thread.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
