/// GeofenceKit: the geofence library's front door.
///
/// One import gives the whole public API: `Geofencer` (load fences once, then
/// `contains`, `nearest`, `plan`, `evaluate` a log as a stream of events, or feed
/// fixes yourself through an `EvaluationSession`), and the modules along the data
/// path it is built from (docs/architecture.md):
///
/// - `GeofenceBase`: errors (`GeofenceError` and its payloads), JSON values, atomic output.
/// - `GeofenceIndex`: `Fence`, `FenceShape`, `Coordinate`, and the packed R-tree `FenceIndex`.
/// - `GeofenceLogs`: location-log readers (CSV, NDJSON, GPX; gzip; stdin).
/// - `GeofenceFences`: fence files (GeoJSON, CSV, and other vector formats through GDAL), validation
///   and repair with GEOS, CRS through PROJ.
/// - `GeofenceGDAL`: Swift over GDAL's OGR vector API (reading any OGR source, writing GeoPackage and FlatGeobuf).
/// - `GeofenceEvaluation`: the per-device state machines that turn fixes into events.
/// - `GeofencePlanning`: the nearest-K region planner a phone uses to stay under its region limit.
/// - `GeofenceSimulation`: replays of traces through a planner under an OS model.
/// - `GeofenceSubsets`: regional subsets and tile bundles.
@_exported import GeofenceBase
@_exported import GeofenceIndex
@_exported import GeofenceLogs
@_exported import GeofenceFences
@_exported import GeofenceGDAL
@_exported import GeofenceEvaluation
@_exported import GeofencePlanning
@_exported import GeofenceSimulation
@_exported import GeofenceSubsets
@_exported import Geodesy
