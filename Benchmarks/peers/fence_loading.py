"""Fence loading side by side: the GeoJSON files geofence-bench's `fences` suite wrote
(--fence-files DIR) read by shapely (`shapely.from_geojson` on the whole document: geometries
only) and by pyogrio (`pyogrio.read_arrow`: geometries as WKB and every property, through GDAL),
next to our figures for the same files from the same run (`--ours`, the suite's --json output:
load into the compact index ready for queries, and `geofence nearest` as a whole process).

Each peer load runs in a fresh Python process under GNU time, best of --repeats: the load time
is measured inside the process around the call (interpreter start and imports excluded), the
peak RSS is the whole process's (imports included; a process that only imports is reported as
the baseline).

usage: fence_loading.py --dir DIR [--ours fences.json] [--json OUT] [--repeats 3]
"""
import argparse
import json
import os
import subprocess
import sys

SNIPPETS = {
    "shapely from_geojson": (
        "import shapely, time, json, sys\n"
        "p = sys.argv[1]\n"
        "t = time.perf_counter()\n"
        "with open(p, encoding='utf-8') as f: g = shapely.from_geojson(f.read())\n"
        "n = shapely.get_num_geometries(g)\n"
        "print(json.dumps({'seconds': time.perf_counter() - t, 'count': int(n)}))\n"),
    "pyogrio read_arrow": (
        "import pyogrio, time, json, sys\n"
        "p = sys.argv[1]\n"
        "t = time.perf_counter()\n"
        "meta, table = pyogrio.read_arrow(p)\n"
        "print(json.dumps({'seconds': time.perf_counter() - t, 'count': table.num_rows}))\n"),
}
BASELINE = "import shapely, pyogrio, json\nprint(json.dumps({'seconds': 0, 'count': 0}))\n"


def run(snippet, path):
    """(seconds, count, peak RSS bytes) of one fresh process."""
    r = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-c", snippet, path],
                       capture_output=True, text=True, check=True)
    out = json.loads(r.stdout.strip().splitlines()[-1])
    kb = int(r.stderr.strip().splitlines()[-1])
    return out["seconds"], out["count"], kb * 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", required=True, help="the files geofence-bench --filter fences --fence-files DIR wrote")
    ap.add_argument("--ours", help="geofence-bench --json output of the fences suite (same run)")
    ap.add_argument("--json", help="write the rows here")
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args()

    ours = {}
    if a.ours:
        with open(a.ours, encoding="utf-8") as f:
            for r in json.load(f)["results"]:
                if r["suite"] == "fences":
                    ours[(r["workload"], r["engine"])] = r["value"]
    _, _, base_rss = run(BASELINE, "")
    rows = []
    names = sorted(n for n in os.listdir(a.dir) if n.endswith(".geojson"))
    for name in names:
        path = os.path.join(a.dir, name)
        stem = name[:-len(".geojson")]
        # The suite names a file after its workload, spaces made dashes.
        workload = next((w for (w, _) in ours if w.replace(" ", "-") == stem), stem.replace("-", " "))
        size = os.path.getsize(path) / 1e6
        for engine in ("GeoJSON open+index", "CSV open+index", "compiled open+index"):
            if (workload, engine) in ours:
                nearest = ours.get((workload, engine.replace("open+index", "nearest")))
                rss = ours.get((workload, engine.replace("open+index", "peak RSS")))
                rows.append({"workload": workload, "engine": "ours " + engine.replace(" open+index", ""), "ms": ours[(workload, engine)],
                             "peak_rss_mb": rss, "note": f"into the index, ready for queries; `geofence nearest` whole process {nearest:.0f} ms" if nearest else ""})
        for engine, snippet in SNIPPETS.items():
            best = None
            for _ in range(a.repeats):
                s, n, rss = run(snippet, path)
                if best is None or s < best[0]:
                    best = (s, n, rss)
            rows.append({"workload": workload, "engine": engine, "ms": best[0] * 1e3, "peak_rss_mb": best[2] / 1e6,
                         "count": best[1], "note": f"{size:.1f} MB GeoJSON; peak RSS of the process, imports alone {base_rss / 1e6:.0f} MB"})
    print(f"{'workload':22}{'engine':26}{'load ms':>10}{'peak RSS MB':>13}  note")
    for r in rows:
        rss = r["peak_rss_mb"]
        print(f"{r['workload']:22}{r['engine']:26}{r['ms']:>10.1f}{'' if rss is None else format(rss, '.0f'):>13}  {r['note']}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump({"python": sys.version.split()[0], "rows": rows}, f, indent=1)
        print(f"wrote {a.json}")


if __name__ == "__main__":
    sys.exit(main())
