#!/usr/bin/env python3
"""bokeh-sampledata geographic_boundaries.db (SQLite, WKB) -> GeoJSON FeatureCollection.

Table us_counties (id TEXT = 5-digit FIPS, state, metadata JSON, geometry WKB, ordinal).
Geometry is decoded by a small pure-Python WKB reader (ISO/OGC WKB, either byte order;
Polygon and MultiPolygon, 2D; Z/M ordinates are rejected). Coordinates are copied bit
for bit; nothing is repaired (bokeh-sampledata already ran make_valid on some counties
when it built the database, see its geographic_boundaries.json "repairs").
Feature id = FIPS; properties: name, state, detailed_name, state_fips, county_fips.
--states VA,NC keeps only those states (source order kept: by ordinal).
--table us_states converts the states table instead (id = postal code).
"""

import argparse
import json
import os
import sqlite3
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _common import die, log, write_geojson  # noqa: E402


class WKBReader:
    def __init__(self, data):
        self.d, self.p = data, 0

    def _u32(self, bo):
        v, = struct.unpack_from(bo + "I", self.d, self.p)
        self.p += 4
        return v

    def _points(self, bo, n):
        xy = struct.unpack_from(f"{bo}{2 * n}d", self.d, self.p)
        self.p += 16 * n
        return [[xy[2 * i], xy[2 * i + 1]] for i in range(n)]

    def geometry(self):
        order = self.d[self.p]
        self.p += 1
        bo = "<" if order == 1 else ">"
        gtype = self._u32(bo)
        if gtype & 0xE0000000 or gtype >= 1000:
            die(f"WKB geometry type {gtype:#x}: Z/M/SRID variants are not supported")
        if gtype == 3:
            return {"type": "Polygon", "coordinates": self._polygon(bo)}
        if gtype == 6:
            polys = []
            for _ in range(self._u32(bo)):
                g = self.geometry()
                if g["type"] != "Polygon":
                    die("WKB MultiPolygon holds a non-polygon")
                polys.append(g["coordinates"])
            return {"type": "MultiPolygon", "coordinates": polys}
        die(f"WKB geometry type {gtype} is not a (multi)polygon")

    def _polygon(self, bo):
        return [self._points(bo, self._u32(bo)) for _ in range(self._u32(bo))]


def decode(blob):
    r = WKBReader(bytes(blob))
    g = r.geometry()
    if r.p != len(blob):
        die(f"WKB has {len(blob) - r.p} trailing bytes")
    return g


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db", help="bokeh_sampledata/_data/geographic_boundaries.db")
    ap.add_argument("out")
    ap.add_argument("--table", default="us_counties", choices=["us_counties", "us_states"])
    ap.add_argument("--states", help="comma-separated postal codes to keep, e.g. VA,NC")
    a = ap.parse_args()

    con = sqlite3.connect(f"file:{a.db}?mode=ro", uri=True)
    keep = set(a.states.upper().split(",")) if a.states else None
    feats = []
    for fid, state, meta, geom in con.execute(f"SELECT id, state, metadata, geometry FROM {a.table} ORDER BY ordinal"):
        if keep and state not in keep:
            continue
        m = json.loads(meta)
        props = {"name": m.get("name"), "state": state}
        for k in ("detailed_name", "state_fips", "county_fips"):
            if k in m:
                props[k] = m[k]
        for k, v in m.items():
            if k not in props and k not in ("fips",):
                props[k] = v
        feats.append({"type": "Feature", "id": fid, "properties": props, "geometry": decode(geom)})
    if keep and {f["properties"]["state"] for f in feats} != keep:
        die(f"states not found in {a.table}: {sorted(keep - {f['properties']['state'] for f in feats})}")
    n = write_geojson(a.out, feats)
    kinds = {}
    for f in feats:
        kinds[f["geometry"]["type"]] = kinds.get(f["geometry"]["type"], 0) + 1
    log(f"{a.out}: {n} {a.table} {kinds}" + (f" (states {a.states})" if a.states else ""))


if __name__ == "__main__":
    main()
