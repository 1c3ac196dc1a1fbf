#!/usr/bin/env python3
"""World Port Index (tracktable-data ports.csv) -> circle fences CSV
`id,lat,lon,radius,name,alternate_name,unlocode,country,harbor_size,harbor_type`.

id = "WPI" + World Port Index Number (unique in the source; checked). The prefix keeps
ids distinct from airports' ICAO codes and counties' FIPS codes when fence sets are combined.
Radius from the WPI "Harbor Size" attribute:
  Large 5000 m, Medium 3000 m, Small 2000 m, Very Small 1000 m, blank 1000 m.
lat/lon copied as written in the source. Blank source fields (" ") are written empty.
"""

import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _common import die, log, write_csv  # noqa: E402

RADIUS = {"Large": 5000, "Medium": 3000, "Small": 2000, "Very Small": 1000, "": 1000}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", help="tracktable_data/python_info_data/ports.csv")
    ap.add_argument("out")
    a = ap.parse_args()

    with open(a.src, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    seen, out, coords = {}, [], {}
    for i, r in enumerate(rows, 2):
        r = {k: v.strip() for k, v in r.items()}
        pid = "WPI" + r["World Port Index Number"]
        if pid in seen:
            die(f"{a.src}:{i}: duplicate World Port Index Number {pid} (first on line {seen[pid]})")
        seen[pid] = i
        lat, lon = r["Latitude"], r["Longitude"]
        if not (-90 <= float(lat) <= 90 and -180 <= float(lon) <= 180):
            die(f"{a.src}:{i}: coordinates out of range: {lat},{lon}")
        size = r["Harbor Size"]
        if size not in RADIUS:
            die(f"{a.src}:{i}: unknown Harbor Size {size!r}")
        coords.setdefault((lat, lon), []).append(pid)
        out.append([pid, lat, lon, RADIUS[size], r["Main Port Name"], r["Alternate Port Name"], r["UN/LOCODE"],
                    r["Country Code"], size, r["Harbor Type"]])
    n = write_csv(a.out, ["id", "lat", "lon", "radius", "name", "alternate_name", "unlocode", "country",
                          "harbor_size", "harbor_type"], out)
    same = [v for v in coords.values() if len(v) > 1]
    log(f"{a.out}: {n} ports; {len(same)} coordinate pairs shared by more than one port (kept): "
        + ", ".join("/".join(v) for v in same[:6]) + (" ..." if len(same) > 6 else ""))


if __name__ == "__main__":
    main()
