#include "CGEOS.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static CGEOSAPI api;
static const CGEOSAPI *loaded = NULL;
static char reason[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // The development link first (it matches the headers we were built with), then the
    // run-time name: the reentrant C API has kept soname 1 across GEOS 3.x.
    void *h = dlopen("libgeos_c.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) h = dlopen("libgeos_c.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(reason, sizeof reason, "cannot load the GEOS library (tried libgeos_c.so, libgeos_c.so.1): %s", e ? e : "not found");
        return;
    }
#define CGEOS_RESOLVE(name) \
    { void *p = dlsym(h, #name); \
      if (!p) { snprintf(reason, sizeof reason, "the GEOS library has no function %s (GEOS 3.11 or later is needed)", #name); return; } \
      memcpy((void *)&api.name, &p, sizeof p); }
    CGEOS_FUNCTIONS(CGEOS_RESOLVE)
#undef CGEOS_RESOLVE
    loaded = &api;
}

const CGEOSAPI *cgeos_load(const char **failure) {
    pthread_once(&once, load);
    if (!loaded) *failure = reason;
    return loaded;
}
