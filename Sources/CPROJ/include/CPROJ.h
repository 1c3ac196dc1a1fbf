#pragma once
// PROJ's C API, loaded on first use. proj.h and geodesic.h give the types and constants; the
// functions GeometryKit calls are reached through `CPROJAPI`, filled by `cproj_load` from
// libproj opened with dlopen, so a process that reprojects nothing never loads PROJ and its
// dependencies (curl, TLS, sqlite, tiff; docs/architecture.md#gdal-geos-and-proj-opened-on-first-use).
// Code that links libproj itself (the tests' geodesic reference) calls the functions directly.
#include <proj.h>
#include <geodesic.h>

/// Every PROJ function GeometryKit calls.
#define CPROJ_FUNCTIONS(X) \
    X(proj_context_create) \
    X(proj_context_destroy) \
    X(proj_context_errno) \
    X(proj_context_errno_string) \
    X(proj_coord) \
    X(proj_create) \
    X(proj_create_crs_to_crs) \
    X(proj_destroy) \
    X(proj_errno) \
    X(proj_errno_reset) \
    X(proj_info) \
    X(proj_log_func) \
    X(proj_log_level) \
    X(proj_normalize_for_visualization) \
    X(proj_trans) \
    X(proj_trans_generic)

#define CPROJ_MEMBER(name) __typeof__(&name) _Nonnull name;
/// One function pointer per PROJ function, under the function's own name.
typedef struct CPROJAPI {
    CPROJ_FUNCTIONS(CPROJ_MEMBER)
} CPROJAPI;
#undef CPROJ_MEMBER

/// Opens libproj (once per process; later calls return the first answer) and resolves every
/// function. Returns the table, or NULL with the reason in `*failure` (a static string).
const CPROJAPI *_Nullable cproj_load(const char *_Nullable *_Nonnull failure);
