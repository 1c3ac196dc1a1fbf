#!/usr/bin/env python3
"""ESRI shapefile (polygons, lon/lat) -> GeoJSON FeatureCollection. Standard library only.

A small reader of the .shp/.dbf formats (ESRI Shapefile Technical Description, 1998):
- .shp: 100-byte header, then records; Polygon (5) records hold parts (rings) and points.
  Shells are clockwise, holes counter-clockwise. Each hole goes to the shell that contains
  it (the smallest one if several), so a record becomes a Polygon or a MultiPolygon.
  Coordinates are copied bit for bit (written with Python's round-trip float repr), ring
  orientation and vertex order are kept as in the source (clockwise shells, unlike RFC 7946's
  advice; readers must not reject either), nothing is repaired, snapped or clamped.
- .dbf: dBASE III table; encoding from the .cpg file (default ISO-8859-1). N fields become
  integers when they have no decimals, floats otherwise; C fields are stripped strings.
Feature id: the --id field's value (must be unique; checked).
"""

import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _common import die, log, point_in_ring, ring_area2, write_geojson  # noqa: E402


def read_shp(path):
    with open(path, "rb") as f:
        data = f.read()
    code, = struct.unpack(">i", data[0:4])
    if code != 9994:
        die(f"{path}: not a shapefile (file code {code})")
    shape_type, = struct.unpack("<i", data[32:36])
    pos, shapes = 100, []
    while pos < len(data):
        recno, words = struct.unpack(">ii", data[pos:pos + 8])
        content = data[pos + 8:pos + 8 + 2 * words]
        pos += 8 + 2 * words
        st, = struct.unpack("<i", content[:4])
        if st == 0:
            shapes.append(None)
            continue
        if st not in (5, 15, 25):
            die(f"{path}: record {recno}: shape type {st} is not a polygon")
        nparts, npoints = struct.unpack("<ii", content[36:44])
        parts = list(struct.unpack(f"<{nparts}i", content[44:44 + 4 * nparts]))
        off = 44 + 4 * nparts
        xy = struct.unpack(f"<{2 * npoints}d", content[off:off + 16 * npoints])
        pts = [[xy[2 * i], xy[2 * i + 1]] for i in range(npoints)]
        bounds = parts + [npoints]
        shapes.append([pts[a:b] for a, b in zip(bounds, bounds[1:])])
    return shape_type, shapes


def read_dbf(path, encoding):
    with open(path, "rb") as f:
        data = f.read()
    nrec, hlen, rlen = struct.unpack("<IHH", data[4:12])
    fields, pos = [], 32
    while data[pos] != 0x0D:
        name = data[pos:pos + 11].split(b"\0", 1)[0].decode("ascii")
        ftype = chr(data[pos + 11])
        flen, fdec = data[pos + 16], data[pos + 17]
        fields.append((name, ftype, flen, fdec))
        pos += 32
    records = []
    for i in range(nrec):
        rec = data[hlen + i * rlen:hlen + (i + 1) * rlen]
        if rec[:1] == b"*":
            records.append(None)  # deleted
            continue
        off, props = 1, {}
        for name, ftype, flen, fdec in fields:
            raw = rec[off:off + flen].decode(encoding).strip()
            off += flen
            if ftype in "NF":
                if raw == "" or raw.startswith("*"):
                    props[name] = None
                elif fdec == 0 and ftype == "N":
                    props[name] = int(raw)
                else:
                    props[name] = float(raw)
            elif ftype == "L":
                props[name] = None if raw in ("", "?") else raw in "TtYy"
            else:
                props[name] = raw
        records.append(props)
    return fields, records


def to_geometry(rings):
    shells = [r for r in rings if ring_area2(r) <= 0]
    holes = [r for r in rings if ring_area2(r) > 0]
    if not shells:  # all counter-clockwise: treat each ring as a shell, as GDAL does
        shells, holes = holes, []
    polys = [[s] for s in shells]
    for h in holes:
        best = None
        for i, s in enumerate(shells):
            if any(point_in_ring(x, y, s) for x, y in h[:3]):
                if best is None or abs(ring_area2(s)) < abs(ring_area2(shells[best])):
                    best = i
        if best is None:
            polys.append([h])  # an orphan hole stays as its own polygon, as in the source
        else:
            polys[best].append(h)
    if len(polys) == 1:
        return {"type": "Polygon", "coordinates": polys[0]}
    return {"type": "MultiPolygon", "coordinates": polys}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("shp", help="path to the .shp (the .dbf and .cpg beside it are read too)")
    ap.add_argument("out")
    ap.add_argument("--id", required=True, help="attribute to use as Feature id")
    a = ap.parse_args()

    base = a.shp[:-4]
    enc = "ISO-8859-1"
    if os.path.exists(base + ".cpg"):
        enc = open(base + ".cpg", encoding="ascii").read().strip() or enc
    _, shapes = read_shp(a.shp)
    _, records = read_dbf(base + ".dbf", enc)
    if len(shapes) != len(records):
        die(f"{a.shp}: {len(shapes)} shapes but {len(records)} attribute records")
    feats, seen, out_of_range = [], set(), []
    for i, (rings, props) in enumerate(zip(shapes, records)):
        if props is None:
            continue
        fid = props.get(a.id)
        if fid in seen:
            die(f"{a.shp}: record {i + 1}: duplicate id {fid!r}")
        seen.add(fid)
        geom = None if rings is None else to_geometry(rings)
        if rings:
            bad = [(x, y) for r in rings for x, y in r if not (-180 <= x <= 180 and -90 <= y <= 90)]
            if bad:
                out_of_range.append(f"{fid} ({props.get('name', '')}): {len(bad)} vertices, e.g. {bad[0]!r}")
        feats.append({"type": "Feature", "id": fid, "properties": props, "geometry": geom})
    n = write_geojson(a.out, feats)
    kinds = {}
    for ft in feats:
        k = ft["geometry"]["type"] if ft["geometry"] else "null"
        kinds[k] = kinds.get(k, 0) + 1
    log(f"{a.out}: {n} features {kinds}")
    for s in out_of_range:
        log(f"    coordinates outside lon/lat range (kept as in source): {s}")


if __name__ == "__main__":
    main()
