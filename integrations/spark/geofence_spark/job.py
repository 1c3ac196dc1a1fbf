"""spark-submit job: evaluate location logs (Parquet or CSV, globs) against fence files with the
geofence binary on the executors, and write the events as Parquet.

    spark-submit integrations/spark/geofence_spark/job.py \\
        --fences data/ports.csv --fences data/us_counties_va_nc.geojson \\
        --log 'logs/2020-06-*.parquet' --out events.parquet --partitions 64 --dwell 900

Exit codes: 0 success, 64 usage, 65 a bad row or a failed partition (the binary's message,
with the partition, line and row, on stderr), 66 missing fences.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

if __package__ in (None, ""):  # run as a file by spark-submit: make the package importable
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import geofence_spark  # noqa: E402


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="geofence-spark",
        description="Evaluate location logs with `geofence evaluate` on Spark; events as Parquet.")
    p.add_argument("--fences", "-f", action="append", required=True, metavar="FILE",
                   help="fence file (GeoJSON or CSV), repeatable; shipped to executors with addFile")
    p.add_argument("--log", "-l", action="append", required=True, metavar="PATH",
                   help="fixes: Parquet or CSV files, directories or globs, repeatable")
    p.add_argument("--log-format", choices=["parquet", "csv"],
                   help="input format (default: from the first path's extension; directories: parquet)")
    p.add_argument("--out", "-o", required=True, metavar="PATH", help="events, written as Parquet")
    p.add_argument("--overwrite", action="store_true", help="replace --out when it exists")
    p.add_argument("--partitions", type=int, metavar="N", help="device partitions (one binary run each)")
    p.add_argument("--columns", metavar="SPEC", help="role=name,... as geofence evaluate --columns")
    p.add_argument("--exit-margin", type=float, metavar="M")
    p.add_argument("--dwell", type=float, metavar="S")
    p.add_argument("--skip-invalid", action="store_true",
                   help="skip bad rows and fences; the counts are printed and written with --summary")
    p.add_argument("--crs", metavar="CRS")
    p.add_argument("--threads", type=int, metavar="N", help="--threads of each binary run")
    p.add_argument("--memory-budget", metavar="BYTES")
    p.add_argument("--binary", metavar="PATH",
                   help=f"geofence on the executors (default: conf {geofence_spark.BINARY_CONF}, "
                        f"env {geofence_spark.BINARY_ENV}, else PATH)")
    p.add_argument("--summary", metavar="FILE", help="write the driver's summary as JSON")
    p.add_argument("--master", help="Spark master when not given to spark-submit")
    return p


def read_fixes(spark, paths, fmt):
    if fmt is None:
        first = paths[0].rstrip("/")
        lower = first.lower()
        fmt = "csv" if (lower.endswith(".csv") or lower.endswith(".csv.gz")) else "parquet"
    if fmt == "csv":
        # Every column as text: the binary parses and checks the values (docs/logs.md).
        return spark.read.option("header", True).option("inferSchema", False).csv(paths)
    return spark.read.parquet(*paths)


def run(args, spark) -> int:
    fixes = read_fixes(spark, args.log, args.log_format)
    summary = geofence_spark.Summary(spark.sparkContext)
    events = geofence_spark.evaluate(
        fixes, fences=args.fences, columns=args.columns, exit_margin=args.exit_margin,
        dwell=args.dwell, partitions=args.partitions, skip_invalid=args.skip_invalid, crs=args.crs,
        threads=args.threads, binary=args.binary, memory_budget=args.memory_budget, summary=summary)
    try:
        events.write.mode("overwrite" if args.overwrite else "errorifexists").parquet(args.out)
    except Exception as exc:  # Spark wraps the executor's error: report the binary's message
        message = geofence_spark.cli_error(exc)
        if message is None:
            raise
        print(f"geofence-spark: error: {message}", file=sys.stderr)
        return 65
    s = summary.value
    line = (f"geofence-spark: fixes {s.get('fixes', 0)}, devices {s.get('devices', 0)}, "
            f"partitions {s.get('partitions', 0)}; events: "
            + ", ".join(f"{k} {v}" for k, v in s.get("events", {}).items()))
    if s.get("skipped_total"):
        line += (f"; skipped {s['skipped_total']} rows ("
                 + ", ".join(f"{k} {v}" for k, v in sorted(s["skipped"].items())) + ")")
    if s.get("fence_problems_skipped"):
        line += f"; skipped {s['fence_problems_skipped']} fence problems per partition run"
    print(line + f"; wrote {args.out}", file=sys.stderr)
    if args.summary:
        with open(args.summary, "w") as f:
            json.dump(s, f, sort_keys=True)
            f.write("\n")
    return 0


def main(argv=None, spark=None) -> int:
    args = parser().parse_args(argv)
    for f in args.fences:
        if not os.path.isfile(f):
            print(f"geofence-spark: error: {f}: fences file not found", file=sys.stderr)
            return 66
    own = spark is None
    if own:
        from pyspark.sql import SparkSession
        builder = SparkSession.builder.appName("geofence-evaluate")
        if args.master:
            builder = builder.master(args.master)
        spark = builder.getOrCreate()
        spark.sparkContext.setLogLevel("WARN")
    try:
        return run(args, spark)
    finally:
        if own:
            spark.stop()


if __name__ == "__main__":
    sys.exit(main())
