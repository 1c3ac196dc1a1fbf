#include "CGDAL.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static CGDALAPI api;
static const CGDALAPI *loaded = NULL;
static char reason[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // The development link first (it matches the headers we were built with), then the
    // run-time names of the GDAL 3 releases, newest first: the C API is stable across them.
    void *h = dlopen("libgdal.so", RTLD_NOW | RTLD_LOCAL);
    for (int v = 40; !h && v >= 26; v--) {
        char name[32];
        snprintf(name, sizeof name, "libgdal.so.%d", v);
        h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    }
    if (!h) {
        const char *e = dlerror();
        snprintf(reason, sizeof reason, "cannot load the GDAL library (libgdal.so): %s", e ? e : "not found");
        return;
    }
#define CGDAL_RESOLVE(name) \
    { void *p = dlsym(h, #name); \
      if (!p) { snprintf(reason, sizeof reason, "the GDAL library has no function %s", #name); return; } \
      memcpy((void *)&api.name, &p, sizeof p); }
    CGDAL_FUNCTIONS(CGDAL_RESOLVE)
#undef CGDAL_RESOLVE
    loaded = &api;
}

const CGDALAPI *cgdal_load(const char **failure) {
    pthread_once(&once, load);
    if (!loaded) *failure = reason;
    return loaded;
}
