#!/usr/bin/env python3
"""airportsdata airports.csv -> circle fences CSV `id,lat,lon,radius,name,iata,country[,...]`.

id = ICAO code (the source's primary key; checked unique, the script fails otherwise).
airportsdata gives no size, so the radius comes from the source's own attributes:
  - name contains "Heliport" (case-insensitive)         ->   60 m
  - has an IATA code (scheduled / commercial service)    -> 3000 m
  - any other airport, strip, seaplane base, ...         -> 1000 m
lat/lon are copied as the source writes them (no float round trip).
--columns full adds city,subd,elevation,tz,lid.
"""

import argparse
import csv
import sys
import os

sys.path.insert(0, os.path.dirname(__file__))
from _common import die, log, write_csv  # noqa: E402

HELIPORT_M, IATA_M, OTHER_M = 60, 3000, 1000


def radius(row):
    if "heliport" in row["name"].lower():
        return HELIPORT_M
    if row["iata"].strip():
        return IATA_M
    return OTHER_M


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", help="airportsdata/airports.csv")
    ap.add_argument("out")
    ap.add_argument("--columns", choices=["short", "full"], default="full")
    a = ap.parse_args()

    with open(a.src, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    seen = {}
    for i, r in enumerate(rows, 2):
        if r["icao"] in seen:
            die(f"{a.src}:{i}: duplicate ICAO {r['icao']!r} (first on line {seen[r['icao']]}); resolve it before converting")
        seen[r["icao"]] = i
        lat, lon = float(r["lat"]), float(r["lon"])
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            die(f"{a.src}:{i}: coordinates out of range: {r['lat']},{r['lon']}")
    header = ["id", "lat", "lon", "radius", "name", "iata", "country"]
    extra = ["city", "subd", "elevation", "tz", "lid"] if a.columns == "full" else []
    out = ([r["icao"], r["lat"], r["lon"], radius(r), r["name"], r["iata"], r["country"]] + [r[c] for c in extra]
           for r in rows)
    n = write_csv(a.out, header + extra, out)
    counts = {}
    for r in rows:
        counts[radius(r)] = counts.get(radius(r), 0) + 1
    log(f"{a.out}: {n} airports (radius {IATA_M} m: {counts.get(IATA_M, 0)}, "
        f"{OTHER_M} m: {counts.get(OTHER_M, 0)}, {HELIPORT_M} m heliports: {counts.get(HELIPORT_M, 0)})")


if __name__ == "__main__":
    main()
