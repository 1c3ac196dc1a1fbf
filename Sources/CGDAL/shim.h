#pragma once
// GDAL's C API: datasets (gdal.h), OGR vector layers, features and geometries (ogr_api.h),
// spatial references and coordinate transformations (ogr_srs_api.h), errors (cpl_error.h).
#include <gdal.h>
#include <ogr_api.h>
#include <ogr_srs_api.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_conv.h>
