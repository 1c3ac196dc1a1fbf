#include "CPROJ.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static CPROJAPI api;
static const CPROJAPI *loaded = NULL;
static char reason[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // The development link first (it matches the headers we were built with), then the
    // run-time names from PROJ 9's soname 25 upwards: the functions we call are stable.
    // The message keeps dlopen's reason for soname 25, the one PROJ 9 ships under.
    char first[400] = "not found";
    void *h = dlopen("libproj.so", RTLD_NOW | RTLD_LOCAL);
    for (int v = 25; !h && v <= 30; v++) {
        char name[32];
        snprintf(name, sizeof name, "libproj.so.%d", v);
        h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        const char *e = h ? NULL : dlerror();
        if (v == 25 && e) snprintf(first, sizeof first, "%s", e);
    }
    if (!h) {
        snprintf(reason, sizeof reason, "cannot load the PROJ library (tried libproj.so, libproj.so.25 to .30): %s", first);
        return;
    }
#define CPROJ_RESOLVE(name) \
    { void *p = dlsym(h, #name); \
      if (!p) { snprintf(reason, sizeof reason, "the PROJ library has no function %s (PROJ 9 or later is needed)", #name); return; } \
      memcpy((void *)&api.name, &p, sizeof p); }
    CPROJ_FUNCTIONS(CPROJ_RESOLVE)
#undef CPROJ_RESOLVE
    loaded = &api;
}

const CPROJAPI *cproj_load(const char **failure) {
    pthread_once(&once, load);
    if (!loaded) *failure = reason;
    return loaded;
}
