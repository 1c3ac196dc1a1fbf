#pragma once
// GDAL's C API, loaded on first use: datasets (gdal.h), OGR vector layers, features and
// geometries (ogr_api.h), spatial references and coordinate transformations (ogr_srs_api.h),
// errors (cpl_error.h), string lists (cpl_string.h). The headers give the types and
// constants; the functions are reached through `CGDALAPI`, filled by `cgdal_load` from
// libgdal opened with dlopen, so a process that reads no GDAL format never loads libgdal and
// its hundred-odd dependencies (docs/architecture.md#gdal-geos-and-proj-opened-on-first-use).
#include <gdal/gdal.h>
#include <gdal/ogr_api.h>
#include <gdal/ogr_srs_api.h>
#include <gdal/cpl_error.h>
#include <gdal/cpl_string.h>
#include <gdal/cpl_conv.h>

/// Every GDAL function the project calls.
#define CGDAL_FUNCTIONS(X) \
    X(CPLErrorReset) \
    X(CPLGetLastErrorMsg) \
    X(CPLGetLastErrorType) \
    X(CPLPopErrorHandler) \
    X(CPLPushErrorHandler) \
    X(CPLQuietErrorHandler) \
    X(CSLAddString) \
    X(CSLDestroy) \
    X(GDALAllRegister) \
    X(GDALClose) \
    X(GDALCreate) \
    X(GDALDatasetCommitTransaction) \
    X(GDALDatasetCreateLayer) \
    X(GDALDatasetGetLayer) \
    X(GDALDatasetGetLayerCount) \
    X(GDALDatasetStartTransaction) \
    X(GDALGetDatasetDriver) \
    X(GDALGetDriverByName) \
    X(GDALGetDriverShortName) \
    X(GDALOpenEx) \
    X(OCTDestroyCoordinateTransformation) \
    X(OCTNewCoordinateTransformation) \
    X(OCTTransformEx) \
    X(OGR_FD_GetFieldCount) \
    X(OGR_FD_GetFieldDefn) \
    X(OGR_F_Create) \
    X(OGR_F_Destroy) \
    X(OGR_F_GetFID) \
    X(OGR_F_GetFieldAsDouble) \
    X(OGR_F_GetFieldAsInteger) \
    X(OGR_F_GetFieldAsInteger64) \
    X(OGR_F_GetFieldAsString) \
    X(OGR_F_GetGeometryRef) \
    X(OGR_F_IsFieldSetAndNotNull) \
    X(OGR_F_SetFieldDouble) \
    X(OGR_F_SetFieldInteger) \
    X(OGR_F_SetFieldInteger64) \
    X(OGR_F_SetFieldNull) \
    X(OGR_F_SetFieldString) \
    X(OGR_F_SetGeometryDirectly) \
    X(OGR_Fld_Create) \
    X(OGR_Fld_Destroy) \
    X(OGR_Fld_GetNameRef) \
    X(OGR_Fld_GetSubType) \
    X(OGR_Fld_GetType) \
    X(OGR_Fld_SetSubType) \
    X(OGR_GT_Flatten) \
    X(OGR_G_AddGeometryDirectly) \
    X(OGR_G_CreateGeometry) \
    X(OGR_G_DestroyGeometry) \
    X(OGR_G_GetGeometryCount) \
    X(OGR_G_GetGeometryName) \
    X(OGR_G_GetGeometryRef) \
    X(OGR_G_GetGeometryType) \
    X(OGR_G_GetLinearGeometry) \
    X(OGR_G_GetPointCount) \
    X(OGR_G_GetPoints) \
    X(OGR_G_GetX) \
    X(OGR_G_GetY) \
    X(OGR_G_IsEmpty) \
    X(OGR_G_SetPoint_2D) \
    X(OGR_G_SetPoints) \
    X(OGR_L_CreateFeature) \
    X(OGR_L_CreateField) \
    X(OGR_L_GetFIDColumn) \
    X(OGR_L_GetGeomType) \
    X(OGR_L_GetLayerDefn) \
    X(OGR_L_GetName) \
    X(OGR_L_GetNextFeature) \
    X(OGR_L_GetSpatialRef) \
    X(OGR_L_ResetReading) \
    X(OSRClone) \
    X(OSRDestroySpatialReference) \
    X(OSRGetAuthorityCode) \
    X(OSRGetAuthorityName) \
    X(OSRGetName) \
    X(OSRImportFromEPSG) \
    X(OSRIsSameEx) \
    X(OSRNewSpatialReference) \
    X(OSRSetAxisMappingStrategy) \
    X(OSRSetFromUserInput)

#define CGDAL_MEMBER(name) __typeof__(&name) _Nonnull name;
/// One function pointer per GDAL function, under the function's own name.
typedef struct CGDALAPI {
    CGDAL_FUNCTIONS(CGDAL_MEMBER)
} CGDALAPI;
#undef CGDAL_MEMBER

/// Opens libgdal (once per process; later calls return the first answer) and resolves every
/// function. Returns the table, or NULL with the reason in `*failure` (a static string).
const CGDALAPI *_Nullable cgdal_load(const char *_Nullable *_Nonnull failure);
