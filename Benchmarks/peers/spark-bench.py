#!/usr/bin/env python3
"""The Spark job's throughput against the plain CLI on the same file (`make bench-spark`).

The input is the bundled real AIS trace (data/virginia_beach_ais.csv, 12 ships, 6,132 fixes)
repeated --copies times with the device ids suffixed (-0, -1, ...): real tracks, many devices.
Fences: data/ports.csv and data/us_counties_va_nc.geojson (circles and polygons together).

Measured, medians of --repeat runs (after one warm-up per Spark session):
  - CLI: `geofence evaluate --log big.csv -o /dev/null` with --threads 1 and 2;
  - CLI start-up: the same on a log with a header only (process start + fence loading);
  - Spark local[1] and local[2]: read the CSV, evaluate (partitions = cores), events to the
    `noop` sink, and the whole job with the events written as Parquet;
  - per-partition cost: local[1] with 1 and with --sweep partitions on the same input,
    (T_sweep - T_1) / (sweep - 1).

    PYSPARK_PYTHON=.venv-spark/bin/python .venv-spark/bin/python Benchmarks/peers/spark-bench.py
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "integrations", "spark"))
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
p.add_argument("--copies", type=int, default=200, help="copies of the trace (default 200: 1.23M fixes)")
p.add_argument("--repeat", type=int, default=3)
p.add_argument("--sweep", type=int, default=16, help="partitions for the per-partition cost")
p.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "geofence"))
p.add_argument("--json", default=os.path.join(ROOT, "Benchmarks", "results", "spark.json"))
a = p.parse_args()

FENCES = [os.path.join(ROOT, "data", "ports.csv"), os.path.join(ROOT, "data", "us_counties_va_nc.geojson")]
work = tempfile.mkdtemp(prefix="geofence-spark-bench-")
big = os.path.join(work, "ais-big.csv")
empty = os.path.join(work, "empty.csv")
with open(os.path.join(ROOT, "data", "virginia_beach_ais.csv")) as f:
    header, *rows = f.read().splitlines()
with open(big, "w") as out:
    out.write(header + "\n")
    for k in range(a.copies):
        suffix = f"-{k}"
        out.write("\n".join(r.replace(",", suffix + ",", 1) for r in rows))
        out.write("\n")
with open(empty, "w") as out:
    out.write(header + "\n")
fixes = len(rows) * a.copies


def median_time(fn, n):
    times = []
    for _ in range(n):
        t = time.monotonic()
        fn()
        times.append(time.monotonic() - t)
    return statistics.median(times)


def cli(log, threads):
    args = [a.binary, "evaluate", "--quiet", "-o", "/dev/null", "--log", log, "--threads", str(threads)]
    for f in FENCES:
        args += ["--fences", f]
    subprocess.run(args, check=True)


results = {"fixes": fixes, "copies": a.copies, "devices": 12 * a.copies, "cores": os.cpu_count()}
cli(big, 1)  # warm the page cache
for t in (1, 2):
    s = median_time(lambda: cli(big, t), a.repeat)
    results[f"cli_threads{t}_seconds"] = s
    results[f"cli_threads{t}_fixes_per_second"] = fixes / s
results["cli_startup_seconds"] = median_time(lambda: cli(empty, 1), max(5, a.repeat))

import geofence_spark as gs  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402


def session(cores):
    return (SparkSession.builder.master(f"local[{cores}]").appName("geofence-spark-bench")
            .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
            .config("spark.driver.memory", "4g").config("spark.sql.session.timeZone", "UTC")
            .getOrCreate())


for cores in (1, 2):
    spark = session(cores)
    spark.sparkContext.setLogLevel("ERROR")

    def job(partitions, sink, path=big):
        fixes_df = spark.read.option("header", True).csv(path)
        events = gs.evaluate(fixes_df, FENCES, partitions=partitions, binary=a.binary)
        if sink == "noop":
            events.write.format("noop").mode("overwrite").save()
        else:
            events.write.mode("overwrite").parquet(os.path.join(work, "events.parquet"))
        return events.geofence_summary

    job(cores, "noop")  # warm-up: JVM, Python workers
    s = median_time(lambda: job(cores, "noop"), a.repeat)
    results[f"spark_local{cores}_noop_seconds"] = s
    results[f"spark_local{cores}_noop_fixes_per_second"] = fixes / s
    s = median_time(lambda: job(cores, "parquet"), a.repeat)
    results[f"spark_local{cores}_parquet_seconds"] = s
    results[f"spark_local{cores}_parquet_fixes_per_second"] = fixes / s
    results[f"spark_local{cores}_empty_job_seconds"] = median_time(lambda: job(cores, "noop", empty), a.repeat)
    if cores == 1:
        one = median_time(lambda: job(1, "noop"), a.repeat)
        many = median_time(lambda: job(a.sweep, "noop"), a.repeat)
        summary = job(a.sweep, "noop")
        results["sweep_partitions"] = a.sweep
        results["local1_partitions1_seconds"] = one
        results[f"local1_partitions{a.sweep}_seconds"] = many
        results["per_partition_seconds"] = (many - one) / (a.sweep - 1)
        v = summary.value
        results["fence_seconds_per_partition"] = v["fence_seconds"] / v["partitions"]
        results["binary_wall_seconds_per_partition_sweep"] = v["wall_seconds"] / v["partitions"]
    spark.stop()
    SparkSession._instantiatedSession = None

shutil.rmtree(work, ignore_errors=True)
r = results
print(f"input: {fixes} fixes ({a.copies} copies of the AIS trace, {r['devices']} devices), "
      f"fences: ports.csv + us_counties_va_nc.geojson; {r['cores']} cores; medians of {a.repeat}")
print(f"{'run':44} {'seconds':>8} {'fixes/s':>10}")
for label, key in [("CLI --threads 1", "cli_threads1"), ("CLI --threads 2", "cli_threads2"),
                   ("Spark local[1] evaluate -> noop", "spark_local1_noop"),
                   ("Spark local[2] evaluate -> noop", "spark_local2_noop"),
                   ("Spark local[1] job -> Parquet", "spark_local1_parquet"),
                   ("Spark local[2] job -> Parquet", "spark_local2_parquet")]:
    print(f"{label:44} {r[key + '_seconds']:8.2f} {r[key + '_fixes_per_second']:10.0f}")
print(f"overhead local[1] vs CLI --threads 1: {r['spark_local1_noop_seconds'] / r['cli_threads1_seconds']:.2f}x "
      f"(Parquet job {r['spark_local1_parquet_seconds'] / r['cli_threads1_seconds']:.2f}x)")
print(f"overhead local[2] vs CLI --threads 2: {r['spark_local2_noop_seconds'] / r['cli_threads2_seconds']:.2f}x "
      f"(Parquet job {r['spark_local2_parquet_seconds'] / r['cli_threads2_seconds']:.2f}x)")
print(f"CLI start-up (process + fence loading, empty log): {r['cli_startup_seconds'] * 1000:.0f} ms; "
      f"fence loading in the binary: {r['fence_seconds_per_partition'] * 1000:.0f} ms per partition")
print(f"per-partition cost in Spark (local[1], 1 vs {a.sweep} partitions): {r['per_partition_seconds'] * 1000:.0f} ms; "
      f"empty-input job: local[1] {r['spark_local1_empty_job_seconds']:.2f} s, local[2] {r['spark_local2_empty_job_seconds']:.2f} s")
os.makedirs(os.path.dirname(a.json), exist_ok=True)
with open(a.json, "w") as f:
    json.dump(results, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"wrote {a.json}")
