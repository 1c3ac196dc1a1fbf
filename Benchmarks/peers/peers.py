#!/usr/bin/env python3
"""Peers of geofence on the same files: shapely 2 (STRtree), DuckDB spatial, SedonaDB, PostGIS.

Run through run-peers.sh, which first runs geofence-bench's evaluate-real suite on the same
files and hands its JSON here (--ours), so the table's ratios come from one run.

What each peer does (the fair thing each library can do):
  circles  shapely has no geodesic circle. STRtree over each circle's lon/lat bounding box in
           degrees (the same conservative spherical-cap box geofence indexes; a box crossing
           the antimeridian is inserted as two), query with the fixes' points (box candidates),
           then the exact test vectorised in numpy: haversine distance with the same error
           bound geofence uses (Geodesy.Sphere: 0.75 % + 1 mm) decides clear cases, and the
           undecided ones go to pyproj's Geod.inv (PROJ geod_inverse, Karney, WGS84), the
           same function geofence calls. The answer is exact and must equal ours pair for pair
           (pair counts are compared).
  polygons shapely: covered_by / covers on STRtree, both directions (tree of counties queried
           with points, or tree of points queried with prepared counties); the faster is
           shapely's figure. DuckDB spatial: ST_Covers join of points x counties
           (its spatial join operator), all cores.
Scattered workload (--scattered DIR, the files geofence-bench --scattered-dir wrote): fixes uniform
on the sphere x small circles and small polygons. Circles: DuckDB joins the circles' boxes with
its SPATIAL_JOIN and keeps ST_Distance_Spheroid <= radius; SedonaDB (no ellipsoidal distance) joins
the boxes with its SpatialJoinExec and the candidates get the exact test above. Polygons: DuckDB
ST_Covers, SedonaDB ST_Intersects (the same for points, boundary included). Both use every core.
Timed by wall clock (median of --repeats after a warm-up), with the thread's CPU time kept for
the single-threaded joins (this machine is shared; CPU time is the steadier basis). Timed: the join alone (making point geometries from the fix arrays, querying, exact test,
counting pairs); loading files and building the fence tree are excluded, as geofence-bench
excludes compiling the fences. Ours: the join alone (containing() per fix, 1 thread) and the
whole evaluation (state machine, events) from memory and from the CSV file.
With --cli GEOFENCE, the scattered workload also gets ours in turn: the whole `geofence evaluate`
run (compiled fences, CSV read, events written, every core) after the warm-up and after each
repetition of DuckDB's and SedonaDB's join (--in-turn-repeats, 7 by default), so that the ratio
of the two medians holds on a machine whose speed drifts between the bench run and the peers'
(a shared host varies by a fifth or more within minutes).
"""
import argparse
import csv
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import shapely
from pyproj import Geod

R = 6_371_008.771415  # Geodesy.Sphere.meanRadius
REL = 0.0075          # Geodesy.Sphere.relativeError
ABS = 0.001           # Geodesy.Sphere.absoluteError
GEOD = Geod(ellps="WGS84")


def load_circles(paths):
    lat, lon, rad = [], [], []
    for p in paths:
        with open(p, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                lat.append(float(row["lat"])); lon.append(float(row["lon"])); rad.append(float(row["radius"]))
    return np.array(lat), np.array(lon), np.array(rad)


def load_fixes(path):
    lat, lon = [], []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            lat.append(float(row["lat"])); lon.append(float(row["lon"]))
    return np.array(lat), np.array(lon)


def cap_boxes(lat, lon, rad):
    """Conservative lon/lat boxes of geodesic circles; returns (boxes, owner index)."""
    angle = (rad + ABS) / (1 - REL) / R * (1 + 1e-9)
    dlat = np.degrees(angle)
    south = np.maximum(-90, lat - dlat)
    north = np.minimum(90, lat + dlat)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.sin(angle) / np.cos(np.radians(lat))
    full = (north >= 90) | (south <= -90) | (s >= 1) | (angle >= math.pi / 2)
    dlon = np.where(full, 180.0, np.degrees(np.arcsin(np.clip(s, -1, 1))) * (1 + 1e-9))
    west = np.where(full, -180.0, lon - dlon)
    east = np.where(full, 180.0, lon + dlon)
    idx = np.arange(len(lat))
    parts = []
    normal = (west >= -180) & (east <= 180)
    parts.append((west[normal], south[normal], east[normal], north[normal], idx[normal]))
    lo = west < -180  # wraps west of -180
    parts.append((west[lo] + 360, south[lo], np.full(lo.sum(), 180.0), north[lo], idx[lo]))
    parts.append((np.full(lo.sum(), -180.0), south[lo], east[lo], north[lo], idx[lo]))
    hi = east > 180
    parts.append((west[hi], south[hi], np.full(hi.sum(), 180.0), north[hi], idx[hi]))
    parts.append((np.full(hi.sum(), -180.0), south[hi], east[hi] - 360, north[hi], idx[hi]))
    cat = [np.concatenate(x) for x in zip(*parts)]
    return shapely.box(cat[0], cat[1], cat[2], cat[3]), cat[4]


def circle_join(tree, owner, clat, clon, crad, flat, flon):
    """Pairs (fix, circle) with geodesic distance <= radius."""
    pts = shapely.points(flon, flat)
    fi, ti = tree.query(pts)
    return exact_pairs(fi, owner[ti], clat, clon, crad, flat, flon)


def exact_pairs(fi, ci, clat, clon, crad, flat, flon):
    """How many candidate pairs (fix fi, circle ci) are inside: the haversine distance with
    geofence's error bound decides clear cases, pyproj's Geod.inv (Karney) the rest; a pair
    that appears twice (a box split at the antimeridian) counts once."""
    la1, lo1 = np.radians(clat[ci]), np.radians(clon[ci])
    la2, lo2 = np.radians(flat[fi]), np.radians(flon[fi])
    h = np.sin((la2 - la1) * 0.5) ** 2 + np.cos(la1) * np.cos(la2) * np.sin((lo2 - lo1) * 0.5) ** 2
    d = 2 * np.arcsin(np.minimum(1, np.sqrt(h))) * R
    slack = REL * d + ABS
    lower = (d - slack) * (1 - 1e-9)
    upper = (d + slack) * (1 + 1e-9)
    r = crad[ci]
    inside = upper <= r
    unsure = ~inside & ~(lower > r)
    if unsure.any():
        _, _, s12 = GEOD.inv(clon[ci][unsure], clat[ci][unsure], flon[fi][unsure], flat[fi][unsure])
        inside[unsure] = s12 <= r[unsure]
    key = fi[inside].astype(np.int64) * len(clat) + ci[inside]
    return int(np.unique(key).size)


CPU = {}  # label -> median thread CPU seconds of the last timed() call
# In-turn timing: while IN_TURN["run"] is set, timed() runs it after the warm-up and after each
# repetition (our whole CLI run, alternating with the peer's join, so that a machine whose
# speed drifts slows both alike) and leaves the median of its wall seconds in IN_TURN["seconds"].
IN_TURN = {"run": None, "seconds": None}


def timed(fn, repeats, label=None):
    """Median wall seconds (and, under `label`, median thread CPU seconds) of `repeats` runs after a warm-up."""
    fn()  # warm-up
    between = IN_TURN["run"]
    if between:
        between()  # its warm-up
    times, cpus, others, result = [], [], [], None
    for _ in range(repeats):
        c0 = time.thread_time()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
        cpus.append(time.thread_time() - c0)
        if between:
            others.append(between())
    if label:
        CPU[label] = statistics.median(cpus)
    IN_TURN["seconds"] = statistics.median(others) if others else None
    return statistics.median(times), result


def ours_cli_run(cli, compiled, fixes, threads):
    """A function that runs `geofence evaluate` on `fixes` with the `compiled` fences (events to
    /dev/null) and returns its wall seconds, process start to exit."""
    args = [cli, "evaluate", "--fences", compiled, "--log", fixes, "-o", "/dev/null", "--threads", str(threads), "--quiet"]

    def run():
        t0 = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - t0
    return run


def load_counties(path):
    with open(path, encoding="utf-8") as f:
        fc = json.load(f)
    return shapely.from_geojson([json.dumps(ft["geometry"]) for ft in fc["features"]])


def duckdb_spatial():
    """A DuckDB connection with the spatial extension loaded: (connection, how, None) or (None, None, error)."""
    try:
        import duckdb
        import duckdb_extension_spatial
    except ImportError as e:
        return None, None, f"duckdb not installed: {e}"
    import glob
    ext = glob.glob(os.path.join(os.path.dirname(duckdb_extension_spatial.__file__), "extensions", "*", "spatial.duckdb_extension"))
    con = duckdb.connect()
    try:
        con.sql("INSTALL spatial; LOAD spatial;")
        how = "INSTALL spatial"
    except Exception:
        if not ext:
            return None, None, "spatial extension: INSTALL failed (no network to the DuckDB extension site) and no PyPI copy"
        con.sql(f"LOAD '{ext[0]}'")
        how = "spatial extension from PyPI duckdb-extension-spatial, LOAD by path (INSTALL needs the DuckDB extension site)"
    return con, how, None


def duckdb_polygons(root, poly_path, fix_path, repeats):
    import duckdb
    con, how, err = duckdb_spatial()
    if con is None:
        return None, err
    con.execute("CREATE TABLE counties AS SELECT geom FROM ST_Read(?)", [poly_path])
    con.execute("CREATE TABLE fixes AS SELECT lat::DOUBLE AS lat, lon::DOUBLE AS lon FROM read_csv(?, header=true)", [fix_path])
    q = "SELECT count(*) FROM (SELECT ST_Point(lon, lat) AS p FROM fixes) f JOIN counties c ON ST_Covers(c.geom, f.p)"
    plan = " ".join(r[1] for r in con.sql("EXPLAIN " + q).fetchall())
    join_op = "SPATIAL_JOIN" if "SPATIAL_JOIN" in plan else ("PIECEWISE_MERGE_JOIN/NESTED_LOOP" if "NESTED_LOOP" in plan else "see EXPLAIN")
    threads = con.sql("SELECT current_setting('threads')").fetchone()[0]
    secs, pairs = timed(lambda: con.sql(q).fetchone()[0], repeats)
    return {"seconds": secs, "pairs": int(pairs), "threads": int(threads), "operator": join_op, "how": how,
            "version": duckdb.__version__}, None


def duckdb_circles(clat, clon, crad, flat, flon, repeats):
    """DuckDB spatial: the circles' boxes (cap_boxes) joined with the points by its SPATIAL_JOIN
    (ST_Intersects), then ST_Distance_Spheroid (GeographicLib, WGS84) <= radius; a pair of a
    box split at the antimeridian counted once."""
    import duckdb
    import pyarrow as pa
    con, how, err = duckdb_spatial()
    if con is None:
        return None, err
    boxes, owner = cap_boxes(clat, clon, crad)
    b = shapely.bounds(boxes)
    con.register("bx", pa.table({"w": b[:, 0], "s": b[:, 1], "e": b[:, 2], "n": b[:, 3], "idx": owner,
                                 "lat": clat[owner], "lon": clon[owner], "radius": crad[owner]}))
    con.execute("CREATE TABLE boxes AS SELECT ST_MakeEnvelope(w, s, e, n) AS geom, idx, lat, lon, radius FROM bx")
    con.register("fx", pa.table({"i": np.arange(len(flat)), "lat": flat, "lon": flon}))
    con.execute("CREATE TABLE fixes AS SELECT * FROM fx")
    q = ("SELECT count(*) FROM (SELECT DISTINCT f.i, b.idx FROM (SELECT i, lat, lon, ST_Point(lon, lat) AS p FROM fixes) f "
         "JOIN boxes b ON ST_Intersects(b.geom, f.p) "
         "WHERE ST_Distance_Spheroid(ST_Point(b.lat, b.lon), ST_Point(f.lat, f.lon)) <= b.radius)")
    plan = " ".join(r[1] for r in con.sql("EXPLAIN " + q).fetchall())
    join_op = "SPATIAL_JOIN" if "SPATIAL_JOIN" in plan else "see EXPLAIN"
    threads = con.sql("SELECT current_setting('threads')").fetchone()[0]
    secs, pairs = timed(lambda: con.sql(q).fetchone()[0], repeats)
    return {"seconds": secs, "pairs": int(pairs), "threads": int(threads), "operator": join_op, "how": how,
            "version": duckdb.__version__}, None


def sedona_context():
    """A SedonaDB context: (context, version, None) or (None, None, error)."""
    try:
        import sedonadb
        from importlib.metadata import version
    except ImportError as e:
        return None, None, f"sedonadb not installed: {e}"
    return sedonadb.connect(), version("sedonadb"), None


def sedona_circles(clat, clon, crad, flat, flon, repeats):
    """SedonaDB: its SpatialJoinExec over the circles' boxes (ST_Intersects), the candidate pairs
    out as Arrow, then the exact test in numpy + pyproj (as for shapely): SedonaDB has no
    ellipsoidal distance, so this is the fair exact answer."""
    import pyarrow as pa
    sd, version, err = sedona_context()
    if sd is None:
        return None, err
    boxes, owner = cap_boxes(clat, clon, crad)
    sd.create_data_frame(pa.table({"idx": owner, "wkb": shapely.to_wkb(boxes)})).to_view("boxes_raw")
    sd.sql("SELECT idx, ST_GeomFromWKB(wkb) AS geom FROM boxes_raw").to_memtable().to_view("boxes")
    sd.create_data_frame(pa.table({"i": np.arange(len(flat)), "lat": flat, "lon": flon})).to_view("fixes")
    q = ("SELECT f.i AS i, b.idx AS idx FROM (SELECT i, ST_Point(lon, lat) AS p FROM fixes) f "
         "JOIN boxes b ON ST_Intersects(b.geom, f.p)")
    plan = str(sd.sql("EXPLAIN " + q).to_arrow_table().to_pylist())
    join_op = "SpatialJoinExec" if "SpatialJoinExec" in plan else "see EXPLAIN"

    def run():
        t = sd.sql(q).to_arrow_table()
        fi = t["i"].to_numpy().astype(np.int64)
        ci = t["idx"].to_numpy().astype(np.int64)
        return exact_pairs(fi, ci, clat, clon, crad, flat, flon)
    secs, pairs = timed(run, repeats)
    return {"seconds": secs, "pairs": pairs, "threads": os.cpu_count(), "operator": join_op, "version": version}, None


def sedona_polygons(poly_path, flat, flon, repeats):
    """SedonaDB: points (made in the query) joined with the polygons by ST_Intersects (for a point
    the same as covered-by, boundary included); polygons loaded as WKB before timing."""
    import pyarrow as pa
    sd, version, err = sedona_context()
    if sd is None:
        return None, err
    polys = load_counties(poly_path)
    sd.create_data_frame(pa.table({"wkb": shapely.to_wkb(polys)})).to_view("polys_raw")
    sd.sql("SELECT ST_GeomFromWKB(wkb) AS geom FROM polys_raw").to_memtable().to_view("polys")
    sd.create_data_frame(pa.table({"lat": flat, "lon": flon})).to_view("fixes")
    q = "SELECT count(*) AS n FROM (SELECT ST_Point(lon, lat) AS p FROM fixes) f JOIN polys c ON ST_Intersects(c.geom, f.p)"
    plan = str(sd.sql("EXPLAIN " + q).to_arrow_table().to_pylist())
    join_op = "SpatialJoinExec" if "SpatialJoinExec" in plan else "see EXPLAIN"
    secs, pairs = timed(lambda: int(sd.sql(q).to_arrow_table()["n"][0].as_py()), repeats)
    return {"seconds": secs, "pairs": pairs, "threads": os.cpu_count(), "operator": join_op, "version": version}, None


def scattered_peers(manifest_path, repeats, cli=None, turn_repeats=7):
    """Rows (workload, engine, threads, fixes/s wall, pairs, note) and single-thread CPU rates of
    the peers on the scattered workload that geofence-bench wrote (--scattered-dir); with `cli`
    (a geofence binary), also our whole CLI run in turn with each multi-threaded peer's join
    (dicts: workload, peer, threads, seconds of each, ratio), `turn_repeats` repetitions of each
    (medians of a few runs of a 60–70 ms process move by a tenth on a shared host)."""
    with open(manifest_path, encoding="utf-8") as f:
        m = json.load(f)
    flat, flon = load_fixes(m["fixes"])
    nfix = len(flat)
    rows, cpu_rates, counts, in_turn = [], {}, {}, []
    threads = os.cpu_count() or 1
    joins = turn_repeats if cli else repeats   # the multi-threaded joins
    tmp = tempfile.mkdtemp(prefix="geofence-peers-")
    for st in m["sets"]:
        name = st["name"]
        counts[name] = int(st["count"])
        print(f"  scattered: {name}", flush=True)
        ours_run = None
        if cli:
            compiled = os.path.join(tmp, "fences.gfc")
            subprocess.run([cli, "compile", "--fences", st["fences"], "-o", compiled, "--quiet"], check=True)
            ours_run = ours_cli_run(cli, compiled, m["fixes"], threads)
        if st["kind"] == "circles":
            clat, clon, crad = load_circles([st["fences"]])
            t0 = time.perf_counter()
            boxes, owner = cap_boxes(clat, clon, crad)
            tree = shapely.STRtree(boxes)
            build = time.perf_counter() - t0
            secs, pairs = timed(lambda: circle_join(tree, owner, clat, clon, crad, flat, flon), repeats, label=name)
            cpu_rates[(name, "shapely STRtree")] = nfix / CPU[name]
            rows.append((name, "shapely STRtree", 1, nfix / secs, pairs, f"box query + exact test; tree build {build:.2f} s excluded"))
            IN_TURN["run"] = ours_run
            res, err = duckdb_circles(clat, clon, crad, flat, flon, joins)
            turn = IN_TURN["seconds"]
            what = "box SPATIAL_JOIN ({op}) + ST_Distance_Spheroid"
            res2, err2 = sedona_circles(clat, clon, crad, flat, flon, joins)
            turn2 = IN_TURN["seconds"]
            IN_TURN["run"] = None
            what2 = "box join ({op}) + exact test in numpy/pyproj"
        else:
            polys = load_counties(st["fences"])
            t0 = time.perf_counter()
            ptree = shapely.STRtree(polys)
            build = time.perf_counter() - t0

            def polys_tree():
                return int(ptree.query(shapely.points(flon, flat), predicate="covered_by").shape[1])
            secs, pairs = timed(polys_tree, repeats, label=name)
            cpu_rates[(name, "shapely STRtree")] = nfix / CPU[name]
            rows.append((name, "shapely STRtree", 1, nfix / secs, pairs, f"STRtree(polygons).query(points, covered_by); build {build:.2f} s excluded"))
            IN_TURN["run"] = ours_run
            res, err = duckdb_polygons(None, st["fences"], m["fixes"], joins)
            turn = IN_TURN["seconds"]
            what = "ST_Covers join ({op})"
            res2, err2 = sedona_polygons(st["fences"], flat, flon, joins)
            turn2 = IN_TURN["seconds"]
            IN_TURN["run"] = None
            what2 = "ST_Intersects join ({op})"
        for engine, r, e, w, t in [("duckdb spatial", res, err, what, turn), ("sedonadb", res2, err2, what2, turn2)]:
            if r and t:
                in_turn.append({"workload": name, "peer": engine, "threads": threads, "ours_seconds": t,
                                "peer_seconds": r["seconds"], "ratio": r["seconds"] / t})
            if r:
                label = "DuckDB" if engine.startswith("duckdb") else "SedonaDB"
                rows.append((name, engine, r["threads"], nfix / r["seconds"], r["pairs"],
                             f"{label} {r['version']} {w.format(op=r['operator'])}; join alone (tables and fence geometries made before timing)"))
            else:
                rows.append((name, engine, 0, float("nan"), None, e))
    shutil.rmtree(tmp, ignore_errors=True)
    return rows, cpu_rates, counts, nfix, in_turn


def postgis_peers(sock, circle_sets, counties_path, flat, flon, repeats):
    """PostGIS on a throw-away server (postgis.sh): rows (workload, engine, threads, fixes/s, pairs, note)."""
    import psycopg
    con = psycopg.connect(host=sock, port=54329, user="postgres", dbname="postgres", autocommit=True)
    con.execute("CREATE EXTENSION IF NOT EXISTS postgis")
    version = con.execute("SELECT postgis_lib_version()").fetchone()[0]
    workers = con.execute("SHOW max_parallel_workers_per_gather").fetchone()[0]
    con.execute("CREATE TABLE fixes (lat float8, lon float8)")
    with con.cursor().copy("COPY fixes (lat, lon) FROM STDIN") as cp:
        for la, lo in zip(flat.tolist(), flon.tolist()):
            cp.write_row((la, lo))
    t0 = time.perf_counter()
    con.execute("ALTER TABLE fixes ADD COLUMN g geography")
    con.execute("UPDATE fixes SET g = ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography")
    con.execute("CREATE INDEX ON fixes USING gist (g)")
    con.execute("ANALYZE fixes")
    fix_index = time.perf_counter() - t0
    rows = []
    nfix = len(flat)

    def run(q):
        def f():
            return int(con.execute(q).fetchone()[0])
        return timed(f, repeats)

    threads = f"1+{workers}"
    for name, (clat, clon, crad) in circle_sets:
        con.execute("DROP TABLE IF EXISTS circles")
        con.execute("CREATE TABLE circles (lat float8, lon float8, radius float8)")
        with con.cursor().copy("COPY circles (lat, lon, radius) FROM STDIN") as cp:
            for row in zip(clat.tolist(), clon.tolist(), crad.tolist()):
                cp.write_row(row)
        con.execute("ALTER TABLE circles ADD COLUMN g geography")
        con.execute("UPDATE circles SET g = ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography")
        con.execute("ANALYZE circles")
        secs, pairs = run("SELECT count(*) FROM circles c JOIN fixes f ON ST_DWithin(f.g, c.g, c.radius)")
        rows.append((name, "postgis", threads, nfix / secs, pairs,
                     f"PostGIS {version} ST_DWithin(geography) join, GiST index on the fixes (built before timing: {fix_index:.1f} s)"))
    with open(counties_path, encoding="utf-8") as f:
        fc = json.load(f)
    con.execute("CREATE TABLE counties (id text, geom geometry)")
    with con.cursor() as cur:
        cur.executemany("INSERT INTO counties VALUES (%s, ST_SetSRID(ST_GeomFromGeoJSON(%s), 4326))",
                        [(str(ft.get("id")), json.dumps(ft["geometry"])) for ft in fc["features"]])
    con.execute("CREATE INDEX ON counties USING gist (geom)")
    con.execute("ANALYZE counties")
    secs, pairs = run("SELECT count(*) FROM fixes f JOIN counties c ON ST_Covers(c.geom, ST_SetSRID(ST_MakePoint(f.lon, f.lat), 4326))")
    rows.append(("counties × AIS", "postgis", threads, nfix / secs, pairs,
                 f"PostGIS {version} ST_Covers join, GiST index on the counties, points made in the query"))
    con.close()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", required=True, help="repository root (holding data/)")
    ap.add_argument("--ours", help="geofence-bench --json output of the evaluate-real suite (same run)")
    ap.add_argument("--json", help="write the side-by-side results here")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--in-turn-repeats", type=int, default=7, help="with --cli: repetitions of DuckDB's and SedonaDB's "
                    "scattered joins, each followed by our whole run (default 7)")
    ap.add_argument("--scattered", metavar="DIR", help="also the scattered workload geofence-bench wrote there (--scattered-dir)")
    ap.add_argument("--scattered-only", action="store_true", help="only the scattered workload (no AIS sets)")
    ap.add_argument("--postgis", metavar="SOCKET_DIR", help="socket directory of a server started by postgis.sh (port 54329)")
    ap.add_argument("--cli", metavar="GEOFENCE", help="geofence binary: on the scattered workload, also time its whole run "
                    "(compiled fences, every core) in turn with each multi-threaded peer's join")
    a = ap.parse_args()
    if a.repeats < 1 or a.in_turn_repeats < 1:
        ap.error("--repeats and --in-turn-repeats must be at least 1")

    root = a.root
    fetched = os.path.exists(os.path.join(root, "data/fetched/cities.csv"))
    trace = "data/fetched/ais_us_coastal.csv" if fetched else "data/virginia_beach_ais.csv"
    counties = "data/fetched/us_counties.geojson" if fetched else "data/us_counties_va_nc.geojson"
    flat, flon = load_fixes(os.path.join(root, trace))
    nfix = len(flat)

    ours = {}
    ours_cpu = {}
    if a.ours:
        with open(a.ours, encoding="utf-8") as f:
            for r in json.load(f)["results"]:
                if r["suite"] in ("evaluate-real", "evaluate-scattered"):
                    # Wall clock for every row (the peers are timed by wall clock too); the join's
                    # CPU-time figure is kept to compare with the peers' thread CPU time.
                    ours[(r["workload"], r["engine"])] = r.get("wall_value", r["value"])
                    if "wall_value" in r:
                        ours_cpu[(r["workload"], r["engine"])] = r["value"]
                    elif "cpu_value" in r and " 1 thread" in r["engine"]:
                        ours_cpu[(r["workload"], r["engine"])] = r["cpu_value"]

    rows = []  # (workload, engine, threads, fixes/s wall, pairs, note)
    cpu_rates = {}  # (workload, engine) -> fixes per CPU second, single-threaded joins only
    fence_counts = {}

    def add_ours(workload, scattered=False):
        more = [("ours 1 thread CLI", 1, "whole `geofence evaluate` run from the files (fence load, CSV read, evaluate, write)"),
                ("ours 2 threads CLI", 2, "whole `geofence evaluate` run from the files (fence load, CSV read, evaluate, write)"),
                ("ours 1 thread CLI compiled", 1, "the same run with the fences compiled beforehand (`geofence compile`): open, CSV read, evaluate, write"),
                ("ours 2 threads CLI compiled", 2, "the same run with the fences compiled beforehand (`geofence compile`): open, CSV read, evaluate, write")]
        for engine, threads, note in [("ours join", 1, "containing() per fix, join alone"),
                                      ("ours 1 thread", 1, "evaluate end to end, in memory"),
                                      ("ours 2 threads", 2, "evaluate end to end, in memory"),
                                      ("ours 1 thread file", 1, "evaluate end to end from the CSV (parse included)"),
                                      ("ours 2 threads file", 2, "evaluate end to end from the CSV (parse included)")] + (more if scattered else []):
            v = ours.get((workload, engine))
            if v is not None:
                rows.append((workload, engine, threads, v, ours.get((workload, "pairs")), note))
            if (workload, engine) in ours_cpu:
                cpu_rates[(workload, engine)] = ours_cpu[(workload, engine)]

    if not a.scattered_only:
        circle_cases = [("airports+ports × AIS", ["data/airports.csv", "data/ports.csv"])]
        if fetched:
            circle_cases.append(("cities × AIS", ["data/fetched/cities.csv"]))
        circle_sets = []
        for name, files in circle_cases:
            clat, clon, crad = load_circles([os.path.join(root, p) for p in files])
            circle_sets.append((name, (clat, clon, crad)))
            fence_counts[name] = len(clat)
            t0 = time.perf_counter()
            boxes, owner = cap_boxes(clat, clon, crad)
            tree = shapely.STRtree(boxes)
            build = time.perf_counter() - t0
            secs, pairs = timed(lambda: circle_join(tree, owner, clat, clon, crad, flat, flon), a.repeats, label=name)
            cpu_rates[(name, "shapely STRtree")] = nfix / CPU[name]
            add_ours(name)
            rows.append((name, "shapely STRtree", 1, nfix / secs, pairs,
                         f"box query + numpy haversine bound + pyproj Geod.inv near the edge; tree build {build * 1e3:.0f} ms excluded"))

        name = "counties × AIS"
        polys = load_counties(os.path.join(root, counties))
        fence_counts[name] = len(polys)
        t0 = time.perf_counter()
        ptree = shapely.STRtree(polys)
        build = time.perf_counter() - t0

        def polys_tree():
            pts = shapely.points(flon, flat)
            return int(ptree.query(pts, predicate="covered_by").shape[1])

        def points_tree():
            pts = shapely.points(flon, flat)
            t = shapely.STRtree(pts)
            return int(t.query(polys, predicate="covers").shape[1])

        s1, p1 = timed(polys_tree, a.repeats, label="ct")
        s2, p2 = timed(points_tree, a.repeats, label="pt")
        cpu_rates[(name, "shapely counties-tree")] = nfix / CPU["ct"]
        cpu_rates[(name, "shapely points-tree")] = nfix / CPU["pt"]
        add_ours(name)
        rows.append((name, "shapely counties-tree", 1, nfix / s1, p1, f"STRtree(counties).query(points, covered_by); build {build * 1e3:.0f} ms excluded"))
        rows.append((name, "shapely points-tree", 1, nfix / s2, p2, "STRtree(points) built per run, .query(counties, covers) (prepared)"))
        dres, err = duckdb_polygons(root, os.path.join(root, counties), os.path.join(root, trace), a.repeats)
        if dres:
            rows.append((name, "duckdb spatial", dres["threads"], nfix / dres["seconds"], dres["pairs"],
                         f"DuckDB {dres['version']} ST_Covers join ({dres['operator']}); {dres['how']}"))
        else:
            rows.append((name, "duckdb spatial", 0, float("nan"), None, err))
        if a.postgis:
            try:
                pg = postgis_peers(a.postgis, circle_sets, os.path.join(root, counties), flat, flon, min(a.repeats, 2))
                for r in pg:  # keep the table grouped by workload
                    idx = max(i for i, x in enumerate(rows) if x[0] == r[0]) + 1
                    rows.insert(idx, r)
            except Exception as e:  # report, do not hide
                rows.append(("counties × AIS", "postgis", 0, float("nan"), None, f"PostGIS failed: {e}"))

    if a.scattered:
        srows, scpu, scounts, snfix, in_turn = scattered_peers(os.path.join(a.scattered, "manifest.json"), a.repeats, a.cli,
                                                                   a.in_turn_repeats)
        for name in scounts:
            add_ours(name, scattered=True)
            rows.extend(r for r in srows if r[0] == name)
        cpu_rates.update(scpu)
        fence_counts.update(scounts)

    # Table and ratios.
    if a.scattered:
        print(f"\nscattered workload: {a.scattered} ({snfix} fixes uniform on the sphere); SedonaDB and DuckDB use every core")
    print(f"\npeers on {trace} ({nfix} fixes){' (not run: --scattered-only)' if a.scattered_only else ''}; Python {platform.python_version()}, shapely {shapely.__version__} "
          f"(GEOS {shapely.geos_version_string}), numpy {np.__version__}")
    def fmt(v):
        if v is None or v != v:
            return "n/a"
        return f"{v / 1e6:.2f} M" if v >= 1e6 else f"{v / 1e3:.1f} k"
    print(f"{'workload':34}{'engine':24}{'thr':>4}{'fixes/s wall':>14}{'fixes/s CPU':>13}{'pairs':>10}  note")
    for w, e, t, v, p, note in rows:
        c = cpu_rates.get((w, e))
        print(f"{w:34}{e:24}{t:>4}{fmt(v):>14}{fmt(c) if c else '':>13}{'' if p is None else p:>10}  {note}")
    ratios = []
    print("\nratios (same run):")
    workloads = []
    for r in rows:
        if r[0] not in workloads:
            workloads.append(r[0])
    for w in workloads:
        wr = [r for r in rows if r[0] == w]
        peers = [r for r in wr if not r[1].startswith("ours") and r[3] == r[3]]
        mine = [r for r in wr if r[1].startswith("ours")]
        pairs_ours = next((r[4] for r in mine if r[4] is not None), None)
        for p in peers:
            if pairs_ours is not None and p[4] != pairs_ours:
                print(f"  {w}: {p[1]} found {p[4]} pairs, ours {pairs_ours} (answers differ)")
            for m in mine:
                ratio = m[3] / p[3]
                ratios.append({"workload": w, "ours": m[1], "peer": p[1], "ratio": ratio, "basis": "wall"})
                print(f"  {w:34}{m[1]:22} / {p[1]:22} {ratio:8.1f}×  (wall)")
                if (w, m[1]) in cpu_rates and (w, p[1]) in cpu_rates:
                    rc = cpu_rates[(w, m[1])] / cpu_rates[(w, p[1])]
                    ratios.append({"workload": w, "ours": m[1], "peer": p[1], "ratio": rc, "basis": "cpu"})
                    print(f"  {w:34}{m[1]:22} / {p[1]:22} {rc:8.1f}×  (CPU time, both 1 thread)")
    if a.scattered and in_turn:
        print("\nin turn (our whole CLI run from the CSV, compiled fences, after each repetition of the peer's join; medians):")
        for t in in_turn:
            print(f"  {t['workload']:34}ours {t['threads']} threads CLI compiled / {t['peer']:16} "
                  f"{snfix / t['ours_seconds'] / 1e6:6.2f} M / {snfix / t['peer_seconds'] / 1e6:6.2f} M fixes/s  {t['ratio']:5.2f}×")
    if a.json:
        out = {"trace": trace, "fixes": nfix, "python": platform.python_version(), "shapely": shapely.__version__,
               "shapely_geos": shapely.geos_version_string, "numpy": np.__version__,
               "rows": [{"workload": w, "engine": e, "threads": t, "fences": fence_counts.get(w),
                         "fixes_per_second": (v if v == v else None), "fixes_per_cpu_second": cpu_rates.get((w, e)),
                         "pairs": p, "note": n}
                        for w, e, t, v, p, n in rows],
               "ratios": ratios, "in_turn": in_turn if a.scattered else []}
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
        print(f"wrote {a.json}")


if __name__ == "__main__":
    sys.exit(main())
