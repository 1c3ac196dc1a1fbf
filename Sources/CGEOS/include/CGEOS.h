#pragma once
// GEOS's reentrant C API, loaded on first use. geos_c.h gives the types and constants; the
// functions GeometryKit calls are reached through `CGEOSAPI`, filled by `cgeos_load` from
// libgeos_c opened with dlopen, so a process that builds no geometry never loads GEOS
// (docs/architecture.md#gdal-geos-and-proj-opened-on-first-use). Code that links libgeos_c
// itself (the tests' references, the benchmark's baseline) calls the functions directly.
// Reentrant API only: every call takes a GEOSContextHandle_t, one per thread.
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

/// Every GEOS function GeometryKit calls.
#define CGEOS_FUNCTIONS(X) \
    X(GEOSArea_r) \
    X(GEOSContains_r) \
    X(GEOSContext_setErrorMessageHandler_r) \
    X(GEOSContext_setNoticeMessageHandler_r) \
    X(GEOSCoordSeq_copyFromBuffer_r) \
    X(GEOSCoordSeq_copyToBuffer_r) \
    X(GEOSCoordSeq_create_r) \
    X(GEOSCoordSeq_getSize_r) \
    X(GEOSCovers_r) \
    X(GEOSDistance_r) \
    X(GEOSFree_r) \
    X(GEOSGeoJSONReader_create_r) \
    X(GEOSGeoJSONReader_destroy_r) \
    X(GEOSGeoJSONReader_readGeometry_r) \
    X(GEOSGeoJSONWriter_create_r) \
    X(GEOSGeoJSONWriter_destroy_r) \
    X(GEOSGeoJSONWriter_writeGeometry_r) \
    X(GEOSGeomGetX_r) \
    X(GEOSGeomGetY_r) \
    X(GEOSGeomTypeId_r) \
    X(GEOSGeomType_r) \
    X(GEOSGeom_clone_r) \
    X(GEOSGeom_createCollection_r) \
    X(GEOSGeom_createEmptyPolygon_r) \
    X(GEOSGeom_createLinearRing_r) \
    X(GEOSGeom_createPointFromXY_r) \
    X(GEOSGeom_createPolygon_r) \
    X(GEOSGeom_destroy_r) \
    X(GEOSGeom_getCoordSeq_r) \
    X(GEOSGeom_getExtent_r) \
    X(GEOSGetExteriorRing_r) \
    X(GEOSGetGeometryN_r) \
    X(GEOSGetInteriorRingN_r) \
    X(GEOSGetNumGeometries_r) \
    X(GEOSGetNumInteriorRings_r) \
    X(GEOSIntersects_r) \
    X(GEOSMakeValid_r) \
    X(GEOSMinimumBoundingCircle_r) \
    X(GEOSPrepare_r) \
    X(GEOSPreparedContains_r) \
    X(GEOSPreparedCovers_r) \
    X(GEOSPreparedDistance_r) \
    X(GEOSPreparedGeom_destroy_r) \
    X(GEOSPreparedIntersects_r) \
    X(GEOSWKBReader_create_r) \
    X(GEOSWKBReader_destroy_r) \
    X(GEOSWKBReader_read_r) \
    X(GEOSWKBWriter_create_r) \
    X(GEOSWKBWriter_destroy_r) \
    X(GEOSWKBWriter_write_r) \
    X(GEOSWKTReader_create_r) \
    X(GEOSWKTReader_destroy_r) \
    X(GEOSWKTReader_read_r) \
    X(GEOSWKTWriter_create_r) \
    X(GEOSWKTWriter_destroy_r) \
    X(GEOSWKTWriter_setRoundingPrecision_r) \
    X(GEOSWKTWriter_setTrim_r) \
    X(GEOSWKTWriter_write_r) \
    X(GEOS_finish_r) \
    X(GEOS_init_r) \
    X(GEOSisEmpty_r) \
    X(GEOSisValidReason_r) \
    X(GEOSisValid_r) \
    X(GEOSversion)

#define CGEOS_MEMBER(name) __typeof__(&name) _Nonnull name;
/// One function pointer per GEOS function, under the function's own name.
typedef struct CGEOSAPI {
    CGEOS_FUNCTIONS(CGEOS_MEMBER)
} CGEOSAPI;
#undef CGEOS_MEMBER

/// Opens libgeos_c (once per process; later calls return the first answer) and resolves every
/// function. Returns the table, or NULL with the reason in `*failure` (a static string).
const CGEOSAPI *_Nullable cgeos_load(const char *_Nullable *_Nonnull failure);
