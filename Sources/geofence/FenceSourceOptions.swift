/// The `--fences` help text every command shares (docs/fences.md#input-formats).
let fencesHelp = "GeoJSON, CSV (id,lat,lon,radius,...), or a vector source GDAL reads: Shapefile (.shp, zipped), GeoPackage, KML/KMZ, FlatGeobuf, GeoJSONSeq, 'gdal:NAME'."

/// `--layer`: the layer of GDAL sources with several (docs/fences.md#other-vector-formats-gdal).
let layerOption = OptionSpec.value("--layer", name: "name", help: "Layer to read from GDAL sources with several layers (GeoPackage, KML, ...).")
