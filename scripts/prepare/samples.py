#!/usr/bin/env python3
"""Builds the small committed samples in data/ from the converted sets in data/fetched/.
Run through `scripts/fetch-data --samples`. Deterministic: the same fetched input gives
byte-identical samples. Prints the checks quoted in data/README.md.

  data/airports.csv            all airports, columns id,lat,lon,radius,name,iata,country
  data/ports.csv               all World Port Index ports (copy of fetched ports.csv)
  data/countries.geojson       Natural Earth lowres (copy of fetched countries.geojson)
  data/us_counties_va_nc.geojson  the Virginia and North Carolina counties of fetched us_counties.geojson
  data/virginia_beach_ais.csv  whole tracks of the ships in AIS_SHIPS, from ais_virginia_beach.csv
  data/gpx/*.gpx               GPX_FILES copied byte for byte from gpxpy's test_files
  data/flights_us.csv          all 25 flights (copy of fetched flights_us.csv)
  data/cities_istria.csv       the places of fetched cities.csv within 30 km of the car trace's start
"""

import csv
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _common import AtomicWriter, die, haversine_m, log  # noqa: E402

# Ships (MMSI) of the Virginia Beach AIS sample, chosen to move between the Norfolk /
# Portsmouth / Newport News port fences and through the Intracoastal Waterway into North
# Carolina (Elizabeth City), crossing county lines; includes one that passes Portsmouth
# without entering its fence (366880470) and the one position jump in the file (338316398).
AIS_SHIPS = [
    "369493712", "316041092", "367136880", "367554180", "235093499", "367729870",
    "338031889", "368031960", "367529820", "338316398", "366880470", "367304270",
]
COUNTY_STATES = {"VA", "NC"}
GPX_FILES = [
    "cerknicko-jezero.gpx",           # GPX 1.0, 296 timed track points in 8 segments (one empty), 7 waypoints
    "korita-zbevnica.gpx",            # GPX 1.0, 871 track points; the first segment (358) has no times
    "cerknicko-without-times.gpx",    # edge case: track points without <time> (only 5 of 296 have one)
    "first_and_last_elevation.gpx",   # defect: the last point's time goes back 1 h
    "track-with-less-sec-time.gpx",   # GPX 1.1, fractional seconds and a +01:00 offset
    "around-visnjan-with-car.gpx",    # GPX 1.1, 104 timed points of a car around Visnjan (Istria): the road trace
]
# The car trace's first point; cities_istria.csv holds the places within ISTRIA_KM of it.
ISTRIA_START = (45.2735188510, 13.7142099626)
ISTRIA_KM = 30


def copy(src, dst):
    with open(src, "rb") as f:
        data = f.read()
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, dst)


def main():
    if len(sys.argv) != 3:
        die("usage: samples.py FETCHED_DIR DATA_DIR")
    fetched, out = sys.argv[1], sys.argv[2]
    os.makedirs(os.path.join(out, "gpx"), exist_ok=True)

    # airports: every row, fewer columns
    with open(os.path.join(fetched, "airports.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    cols = ["id", "lat", "lon", "radius", "name", "iata", "country"]
    idx = [rows[0].index(c) for c in cols]
    with AtomicWriter(os.path.join(out, "airports.csv")) as f:
        w = csv.writer(f, lineterminator="\n")
        for r in rows:
            w.writerow([r[i] for i in idx])
    log(f"data/airports.csv: {len(rows) - 1} airports")

    copy(os.path.join(fetched, "ports.csv"), os.path.join(out, "ports.csv"))
    copy(os.path.join(fetched, "countries.geojson"), os.path.join(out, "countries.geojson"))
    log("data/ports.csv, data/countries.geojson: copied")

    # counties of VA and NC: same feature lines as the fetched file
    n = 0
    with open(os.path.join(fetched, "us_counties.geojson"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    with AtomicWriter(os.path.join(out, "us_counties_va_nc.geojson")) as g:
        g.write('{"type":"FeatureCollection","features":[\n')
        for line in lines:
            if not line.startswith('{"type":"Feature"'):
                continue
            feat = json.loads(line.rstrip(","))
            if feat["properties"]["state"] in COUNTY_STATES:
                g.write((",\n" if n else "") + line.rstrip(","))
                n += 1
        g.write("\n]}\n")
    log(f"data/us_counties_va_nc.geojson: {n} counties")

    # AIS sample: whole tracks of AIS_SHIPS, source order
    keep = set(AIS_SHIPS)
    fixes = []
    with open(os.path.join(fetched, "ais_virginia_beach.csv"), encoding="utf-8") as f:
        header = f.readline()
        lines = [ln for ln in f if ln.split(",", 1)[0] in keep]
    with AtomicWriter(os.path.join(out, "virginia_beach_ais.csv")) as g:
        g.write(header)
        g.writelines(lines)
    found = {ln.split(",", 1)[0] for ln in lines}
    if found != keep:
        die(f"ships not in the AIS file: {sorted(keep - found)}")
    for ln in lines:
        d, t, la, lo = ln.rstrip("\n").split(",")
        fixes.append((d, float(la), float(lo)))
    with open(os.path.join(out, "ports.csv"), encoding="utf-8", newline="") as f:
        ports = [(r["id"], r["name"], float(r["lat"]), float(r["lon"]), float(r["radius"])) for r in csv.DictReader(f)]
    # candidate ports: those within 0.1 degree (> 5 km) of the fixes' bounding box
    s, n_ = min(f[1] for f in fixes) - 0.1, max(f[1] for f in fixes) + 0.1
    w_, e = min(f[2] for f in fixes) - 0.1, max(f[2] for f in fixes) + 0.1
    near = [p for p in ports if s <= p[2] <= n_ and w_ <= p[3] <= e]
    within5 = inside = 0
    per_port = {}
    for _, la, lo in fixes:
        dists = [(haversine_m(la, lo, p[2], p[3]), p) for p in near]
        if any(dd <= 5000 for dd, _ in dists):
            within5 += 1
        hit = [p for dd, p in dists if dd <= p[4]]
        if hit:
            inside += 1
        for p in hit:
            per_port[p[1]] = per_port.get(p[1], 0) + 1
    log(f"data/virginia_beach_ais.csv: {len(fixes)} fixes, {len(found)} ships; {within5} fixes within 5 km of a port "
        f"centre in data/ports.csv, {inside} inside a port fence (spherical distance); per port: {per_port}")

    for name in GPX_FILES:
        copy(os.path.join(fetched, "gpx", name), os.path.join(out, "gpx", name))
    log(f"data/gpx/: {len(GPX_FILES)} files")

    copy(os.path.join(fetched, "flights_us.csv"), os.path.join(out, "flights_us.csv"))
    log("data/flights_us.csv: copied")

    with open(os.path.join(fetched, "cities.csv"), encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    ila, ilo = rows[0].index("lat"), rows[0].index("lon")
    near = [r for r in rows[1:] if haversine_m(ISTRIA_START[0], ISTRIA_START[1], float(r[ila]), float(r[ilo])) <= ISTRIA_KM * 1000]
    with AtomicWriter(os.path.join(out, "cities_istria.csv")) as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(rows[0])
        w.writerows(near)
    log(f"data/cities_istria.csv: {len(near)} places within {ISTRIA_KM} km of the car trace's start")


if __name__ == "__main__":
    main()
