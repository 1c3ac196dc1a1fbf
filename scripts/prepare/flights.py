#!/usr/bin/env python3
"""Converts tracktable-data's SampleFlightsUS.csv (ASDI flight tracks over the US, December
2004) into a location log `device,time,lat,lon` (docs/logs.md), one row per position report,
in source order.

  flights.py SampleFlightsUS.csv OUT.csv [--report DEFECTS.json]

The source's header says `object_id timestamp latitude longitude altitude heading speed`, but
the third column holds the longitude and the fourth the latitude (-81.97,26.99 is Florida):
the converter swaps them. Times have no
zone; ASDI reports UTC, so they are written with `Z`. Real defects, kept out of the log and
counted in the report: rows with 9 fields instead of 8, where the longitude was cut to its
integer part and followed by an empty field (`WWW023,2004-12-07 16:13:05,-76,,41.8831,...`),
and positions off the continent (one: YYY025 at 2004-12-12 16:36:35 has latitude -33 between
fixes at 32.97 and 33.03, a sign error).
"""

import csv
import datetime
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from _common import AtomicWriter, die, haversine_m, log  # noqa: E402


def main():
    args = sys.argv[1:]
    report = None
    if "--report" in args:
        k = args.index("--report")
        report = args[k + 1]
        del args[k:k + 2]
    if len(args) != 2:
        die("usage: flights.py SampleFlightsUS.csv OUT.csv [--report DEFECTS.json]")
    src, out = args
    rows, malformed, off = [], [], []
    with open(src, encoding="utf-8", newline="") as f:
        for n, r in enumerate(csv.reader(f), start=1):
            if not r or r[0].startswith("#"):
                continue
            if len(r) != 8:
                malformed.append({"line": n, "fields": len(r), "text": ",".join(r)})
                continue
            lon, lat = float(r[2]), float(r[3])
            if not (10 <= lat <= 75 and -170 <= lon <= -50):
                off.append({"line": n, "text": ",".join(r)})
                continue
            t = datetime.datetime.strptime(r[1], "%Y-%m-%d %H:%M:%S").replace(tzinfo=datetime.timezone.utc)
            rows.append((r[0], t, r[3], r[2]))
    backwards = jumps = 0
    last = {}
    for d, t, la, lo in rows:
        if d in last:
            t0, la0, lo0 = last[d]
            dt = (t - t0).total_seconds()
            if dt < 0:
                backwards += 1
            elif dt > 0 and haversine_m(float(la0), float(lo0), float(la), float(lo)) / dt > 350:
                jumps += 1
        last[d] = (t, la, lo)
    with AtomicWriter(out) as g:
        g.write("device,time,lat,lon\n")
        for d, t, la, lo in rows:
            g.write(f"{d},{t.strftime('%Y-%m-%dT%H:%M:%SZ')},{la},{lo}\n")
    log(f"{out}: {len(rows)} fixes, {len(last)} aircraft; {len(malformed)} malformed rows skipped, "
        f"{len(off)} positions off the continent skipped, {backwards} times going back, {jumps} jumps over 350 m/s")
    if report:
        with AtomicWriter(report) as g:
            json.dump({"fixes": len(rows), "aircraft": len(last), "malformed_rows": len(malformed),
                       "malformed_examples": malformed[:5],
                       "off_continent": off, "time_backwards": backwards,
                       "jumps_over_350_mps": jumps}, g, indent=1)
            g.write("\n")


if __name__ == "__main__":
    main()
