#!/usr/bin/env python3
"""Lists the polygons of GeoJSON files that GEOS finds invalid (GEOSisValidReason_r),
using the system's libgeos_c (the library the Swift package links) through ctypes.
No third-party Python package needed. Geometries go to GEOS as WKT written with
Python's round-trip float repr, so GEOS sees exactly the stored coordinates.

Also reports vertices outside lon [-180, 180] / lat [-90, 90], unclosed rings and rings
with fewer than 4 points (GEOS refuses those before any validity test).

Usage: check_validity.py FILE.geojson...   (exit status 0 even when invalid ones exist)
"""

import ctypes
import ctypes.util
import json
import sys


def load_geos():
    for name in ("geos_c", "libgeos_c.so.1"):
        path = ctypes.util.find_library(name) or name
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError:
            lib = None
    if lib is None:
        sys.exit("check_validity: libgeos_c not found (apt-get install libgeos-c1v5)")
    lib.GEOS_init_r.restype = ctypes.c_void_p
    lib.GEOSversion.restype = ctypes.c_char_p
    lib.GEOSWKTReader_create_r.restype = ctypes.c_void_p
    lib.GEOSWKTReader_create_r.argtypes = [ctypes.c_void_p]
    lib.GEOSWKTReader_read_r.restype = ctypes.c_void_p
    lib.GEOSWKTReader_read_r.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p]
    lib.GEOSisValid_r.restype = ctypes.c_char
    lib.GEOSisValid_r.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.GEOSisValidReason_r.restype = ctypes.c_void_p
    lib.GEOSisValidReason_r.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.GEOSFree_r.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.GEOSGeom_destroy_r.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    return lib


def ring_wkt(ring):
    return "(" + ",".join(f"{x!r} {y!r}" for x, y, *_ in ring) + ")"


def poly_wkt(rings):
    return "(" + ",".join(ring_wkt(r) for r in rings) + ")"


def to_wkt(g):
    if g["type"] == "Polygon":
        return "POLYGON " + poly_wkt(g["coordinates"])
    if g["type"] == "MultiPolygon":
        return "MULTIPOLYGON (" + ",".join(poly_wkt(p) for p in g["coordinates"]) + ")"
    return None


def rings_of(g):
    if g["type"] == "Polygon":
        return g["coordinates"]
    if g["type"] == "MultiPolygon":
        return [r for p in g["coordinates"] for r in p]
    return []


def main():
    lib = load_geos()
    ctx = lib.GEOS_init_r()
    reader = lib.GEOSWKTReader_create_r(ctx)
    print(f"# GEOS {lib.GEOSversion().decode()}")
    total = 0
    for path in sys.argv[1:]:
        fc = json.load(open(path, encoding="utf-8"))
        n = bad = 0
        for i, f in enumerate(fc["features"]):
            g = f.get("geometry")
            if not g:
                continue
            fid = f.get("id", f.get("properties", {}).get("id", i))
            name = f.get("properties", {}).get("name", "")
            for r in rings_of(g):
                if len(r) < 4 or r[0][:2] != r[-1][:2]:
                    print(f"{path}\t{fid}\t{name}\tring not closed or under 4 points")
                out = [(x, y) for x, y, *_ in r if not (-180 <= x <= 180 and -90 <= y <= 90)]
                if out:
                    print(f"{path}\t{fid}\t{name}\t{len(out)} vertices outside lon/lat range, e.g. {out[0]!r}")
            wkt = to_wkt(g)
            if wkt is None:
                continue
            n += 1
            geom = lib.GEOSWKTReader_read_r(ctx, reader, wkt.encode())
            if not geom:
                print(f"{path}\t{fid}\t{name}\tGEOS could not read the geometry")
                bad += 1
                continue
            if lib.GEOSisValid_r(ctx, geom) != b"\x01":
                p = lib.GEOSisValidReason_r(ctx, geom)
                print(f"{path}\t{fid}\t{name}\t{ctypes.string_at(p).decode()}")
                lib.GEOSFree_r(ctx, p)
                bad += 1
            lib.GEOSGeom_destroy_r(ctx, geom)
        print(f"# {path}: {n} polygonal features, {bad} invalid")
        total += bad
    return 0


if __name__ == "__main__":
    sys.exit(main())
