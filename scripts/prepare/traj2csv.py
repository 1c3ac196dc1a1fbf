#!/usr/bin/env python3
"""Tracktable .traj (text) -> location-log CSV `device,time,lat,lon`.

The .traj format is one trajectory per line, comma-separated:
  *T*, uuid, domain, point count, trajectory-property count [, properties...],
  *P*, domain, dimension, has-object-id, has-timestamp, point-property count
       [, name, type]*count,
  then per point: [object id,] [timestamp,] lon, lat [, ...more coordinates] [, property values].
Timestamps are `YYYY-MM-DD HH:MM:SS` in UTC (AIS from MarineCadastre); written as
ISO 8601 `YYYY-MM-DDTHH:MM:SSZ`. Device = object id (the ship's MMSI).

Fixes are written in source order (trajectory by trajectory, point by point): nothing
is sorted, dropped or fixed. Defects are counted and reported on stderr:
  - time going backwards within a device (in source order),
  - exact duplicate fixes (same device, time, lat, lon),
  - same device and time at a different position,
  - position jumps: consecutive fixes of a device implying more than 30 m/s (58 kn),
    measured on a sphere; a ship cannot do that, so the fix is wrong (kept).
"""

import argparse
import calendar
import json
import re
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from _common import AtomicWriter, die, haversine_m, log  # noqa: E402

JUMP_MPS = 30.0

TS = re.compile(r"^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$")


def parse_traj(path):
    """Yields (trajectory index, line number, object id, iso time, lat, lon) in source order.
    lat/lon are the source strings, unchanged."""
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line:
                continue
            t = line.split(",")
            where = f"{path}:{lineno}"
            if t[0] != "*T*":
                die(f"{where}: expected a *T* trajectory header, got {t[0][:20]!r}")
            npoints = int(t[3])
            ntprops = int(t[4])
            if ntprops != 0:
                die(f"{where}: trajectory properties are not supported by this converter ({ntprops})")
            i = 5
            if t[i] != "*P*":
                die(f"{where}: expected *P* at field {i + 1}, got {t[i]!r}")
            dim, has_id, has_ts, npprops = int(t[i + 2]), t[i + 3] == "1", t[i + 4] == "1", int(t[i + 5])
            i += 6 + 2 * npprops
            width = has_id + has_ts + dim + npprops
            if dim < 2 or not has_id or not has_ts:
                die(f"{where}: need object id, timestamp and lon/lat (dimension {dim}, id {has_id}, ts {has_ts})")
            if len(t) - i != npoints * width:
                die(f"{where}: {len(t) - i} point fields, expected {npoints} points x {width}")
            for p in range(npoints):
                k = i + p * width
                oid, ts, lon, lat = t[k], t[k + 1], t[k + 2], t[k + 3]
                m = TS.match(ts)
                if not m:
                    die(f"{where}: point {p + 1}: bad timestamp {ts!r}")
                if not (-90 <= float(lat) <= 90 and -180 <= float(lon) <= 180):
                    die(f"{where}: point {p + 1}: coordinates out of range lon={lon} lat={lat}")
                yield lineno, oid, f"{m.group(1)}T{m.group(2)}Z", lat, lon


class DefectCounter:
    def __init__(self):
        self.last = {}      # device -> last time
        self.seen = {}      # device -> {time: set((lat, lon))}
        self.backwards = 0
        self.duplicates = 0
        self.same_time_moved = 0
        self.jumps = 0
        self.prev_fix = {}  # device -> (unix time, lat, lon)
        self.examples = {"backwards": [], "duplicate": [], "same_time_moved": [], "jump": []}

    def add(self, lineno, dev, time, lat, lon):
        prev = self.last.get(dev)
        if prev is not None and time < prev:
            self.backwards += 1
            if len(self.examples["backwards"]) < 5:
                self.examples["backwards"].append(f"traj line {lineno} device {dev}: {prev} -> {time}")
        self.last[dev] = time
        at = self.seen.setdefault(dev, {}).setdefault(time, set())
        if (lat, lon) in at:
            self.duplicates += 1
            if len(self.examples["duplicate"]) < 5:
                self.examples["duplicate"].append(f"traj line {lineno} device {dev} {time} {lat},{lon}")
        elif at:
            self.same_time_moved += 1
            if len(self.examples["same_time_moved"]) < 5:
                self.examples["same_time_moved"].append(f"traj line {lineno} device {dev} {time} {lat},{lon}")
        at.add((lat, lon))
        t = calendar.timegm((int(time[0:4]), int(time[5:7]), int(time[8:10]),
                             int(time[11:13]), int(time[14:16]), int(time[17:19])))
        la, lo = float(lat), float(lon)
        p = self.prev_fix.get(dev)
        if p is not None and t > p[0]:
            d = haversine_m(p[1], p[2], la, lo)
            if d / (t - p[0]) > JUMP_MPS:
                self.jumps += 1
                if len(self.examples["jump"]) < 5:
                    self.examples["jump"].append(f"traj line {lineno} device {dev} {time}: {d:.0f} m in {t - p[0]} s")
        self.prev_fix[dev] = (t, la, lo)

    def report(self):
        return {
            "time_backwards": self.backwards,
            "duplicate_fixes": self.duplicates,
            "same_time_other_position": self.same_time_moved,
            "position_jumps_over_30_mps": self.jumps,
            "examples": self.examples,
        }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traj")
    ap.add_argument("out")
    ap.add_argument("--report", help="also write the defect report as JSON here")
    a = ap.parse_args()

    defects = DefectCounter()
    trajectories = set()
    n = 0
    with AtomicWriter(a.out) as f:
        f.write("device,time,lat,lon\n")
        for lineno, dev, time, lat, lon in parse_traj(a.traj):
            f.write(f"{dev},{time},{lat},{lon}\n")
            defects.add(lineno, dev, time, lat, lon)
            trajectories.add(lineno)
            n += 1
    r = defects.report()
    r.update({"fixes": n, "devices": len(defects.last), "trajectories": len(trajectories)})
    log(f"{a.out}: {n} fixes, {r['devices']} devices, {r['trajectories']} trajectories; defects kept as they are: "
        f"{r['time_backwards']} time going backwards, {r['duplicate_fixes']} duplicate fixes, "
        f"{r['same_time_other_position']} same time at another position, "
        f"{r['position_jumps_over_30_mps']} position jumps over {JUMP_MPS:.0f} m/s")
    for kind, ex in r["examples"].items():
        for e in ex[:3]:
            log(f"    e.g. {kind}: {e}")
    if a.report:
        with AtomicWriter(a.report) as f:
            json.dump(r, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
