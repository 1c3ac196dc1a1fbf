"""Helpers shared by the converters in scripts/prepare/ (standard library only)."""

import csv
import io
import json
import math
import os
import sys
import tempfile


def log(msg):
    print(f"  {msg}", file=sys.stderr, flush=True)


def die(msg, code=1):
    print(f"error: {msg}", file=sys.stderr, flush=True)
    sys.exit(code)


class AtomicWriter:
    """Text file written under a temporary name and renamed on success,
    so an interrupted run never leaves a truncated file under the final name."""

    def __init__(self, path):
        self.path = path

    def __enter__(self):
        d = os.path.dirname(os.path.abspath(self.path))
        os.makedirs(d, exist_ok=True)
        fd, self.tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=os.path.basename(self.path))
        self.f = io.open(fd, "w", encoding="utf-8", newline="")
        return self.f

    def __exit__(self, exc_type, exc, tb):
        self.f.close()
        if exc_type is None:
            os.chmod(self.tmp, 0o644)
            os.replace(self.tmp, self.path)
        else:
            os.unlink(self.tmp)
        return False


def write_csv(path, header, rows):
    """Writes rows (sequences) under header; LF line ends, minimal quoting. Returns the row count."""
    n = 0
    with AtomicWriter(path) as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for r in rows:
            w.writerow(r)
            n += 1
    return n


def write_geojson(path, features, name=None):
    """A FeatureCollection, one Feature per line (diff-friendly, still compact).
    Coordinates are written with Python's shortest round-trip repr, so no value changes."""
    with AtomicWriter(path) as f:
        f.write('{"type":"FeatureCollection",')
        if name:
            f.write('"name":%s,' % json.dumps(name))
        f.write('"features":[\n')
        for i, feat in enumerate(features):
            if i:
                f.write(",\n")
            f.write(json.dumps(feat, ensure_ascii=False, separators=(",", ":"), allow_nan=False))
        f.write("\n]}\n")
    return len(features)


def ring_area2(ring):
    """Twice the signed planar area of a ring of (x, y) points (positive = counter-clockwise)."""
    s = 0.0
    for (x0, y0), (x1, y1) in zip(ring, ring[1:]):
        s += x0 * y1 - x1 * y0
    return s


def point_in_ring(x, y, ring):
    """Even-odd test; enough to assign a shapefile hole to its shell."""
    inside = False
    for (x0, y0), (x1, y1) in zip(ring, ring[1:]):
        if (y0 > y) != (y1 > y):
            if x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
                inside = not inside
    return inside


def haversine_m(lat1, lon1, lat2, lon2):
    """Great-circle distance on a sphere of radius 6371008.8 m (good to ~0.5 %; used only for sample selection and reports)."""
    r = 6371008.8
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(min(1.0, math.sqrt(a)))
