"""The Spark job's events equal the CLI's on the bundled real trace and fences (circles and
polygons together), field for field once both are sorted by (device, time, fence, type)."""
import csv
import datetime
import os
import random
import subprocess
import sys

import pytest
from pyspark.sql import functions as F

import geofence_spark as gs
from geofence_spark import job

from conftest import DATA, ROOT

FENCES = [os.path.join(DATA, "ports.csv"), os.path.join(DATA, "us_counties_va_nc.geojson")]
LOG = os.path.join(DATA, "virginia_beach_ais.csv")
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def cli_key(e):
    t = datetime.datetime.fromisoformat(e["time"].replace("Z", "+00:00"))
    micros = (t - EPOCH) // datetime.timedelta(microseconds=1)
    return (e["device"], micros, e["fence"], e["type"], e["lat"], e["lon"],
            bool(e.get("initial", False)), e.get("note"))


def spark_rows(events):
    rows = events.select("device", F.unix_micros("time").alias("t"), "fence", "type", "lat", "lon",
                         "initial", "note").collect()
    return sorted(tuple(r) for r in rows)


def assert_same(events, cli_events):
    expected = sorted(cli_key(e) for e in cli_events)
    got = spark_rows(events)
    assert len(expected) > 100, "the comparison needs events"
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g == e


@pytest.fixture(scope="module")
def csv_fixes(spark):
    return spark.read.option("header", True).csv(LOG)


@pytest.fixture(scope="module")
def accuracy_log(tmp_path_factory):
    """The real trace with a seeded accuracy column (0-400 m, some empty: 0)."""
    rng = random.Random(20260905)
    path = tmp_path_factory.mktemp("acc") / "ais-accuracy.csv"
    with open(LOG, newline="") as src, open(path, "w", newline="") as dst:
        r, w = csv.reader(src), csv.writer(dst, lineterminator="\n")
        w.writerow(next(r) + ["accuracy"])
        for row in r:
            a = "" if rng.random() < 0.05 else f"{rng.uniform(0, 400):.1f}"
            w.writerow(row + [a])
    return str(path)


@pytest.fixture(scope="module")
def accuracy_parquet(spark, accuracy_log, tmp_path_factory):
    """The same fixes as typed Parquet: time timestamp, lat/lon/accuracy double."""
    out = str(tmp_path_factory.mktemp("parquet") / "fixes")
    (spark.read.option("header", True).csv(accuracy_log)
     .select("device", F.col("time").cast("timestamp").alias("time"),
             F.col("lat").cast("double").alias("lat"), F.col("lon").cast("double").alias("lon"),
             F.col("accuracy").cast("double").alias("accuracy"))
     .repartition(3).write.parquet(out))
    return out


@pytest.mark.parametrize("partitions", [1, 3, 8])
def test_same_events_as_cli(spark, binary, cli, csv_fixes, partitions):
    expected, _ = cli(FENCES, [LOG])
    events = gs.evaluate(csv_fixes, FENCES, partitions=partitions, binary=binary)
    assert_same(events, expected)
    s = events.geofence_summary
    assert s.fixes == 6132 and s.devices == 12
    assert 1 <= s.partitions <= partitions


@pytest.mark.parametrize("partitions", [1, 3, 8])
def test_options_and_accuracy(spark, binary, cli, accuracy_log, partitions):
    expected, _ = cli(FENCES, [accuracy_log], "--exit-margin", "75", "--dwell", "900")
    assert any(e["type"] == "dwell" for e in expected)
    fixes = spark.read.option("header", True).csv(accuracy_log)
    events = gs.evaluate(fixes, FENCES, exit_margin=75, dwell=900, partitions=partitions,
                         binary=binary)
    assert_same(events, expected)


def test_parquet_input_equals_csv_input(spark, binary, cli, accuracy_log, accuracy_parquet):
    expected, _ = cli(FENCES, [accuracy_log], "--exit-margin", "75", "--dwell", "900")
    from_csv = gs.evaluate(spark.read.option("header", True).csv(accuracy_log), FENCES,
                           exit_margin=75, dwell=900, partitions=3, binary=binary)
    from_parquet = gs.evaluate(spark.read.parquet(accuracy_parquet), FENCES, exit_margin=75,
                               dwell=900, partitions=3, binary=binary)
    assert spark_rows(from_parquet) == spark_rows(from_csv)
    assert_same(from_parquet, expected)


def test_renamed_columns(spark, binary, cli, csv_fixes):
    expected, _ = cli(FENCES, [LOG])
    renamed = csv_fixes.toDF("MMSI", "BaseDateTime", "LAT", "LON")
    events = gs.evaluate(renamed, FENCES, columns="device=MMSI,time=BaseDateTime", partitions=2,
                         binary=binary)
    assert_same(events, expected)


def bad_log(tmp_path, replace):
    """The real trace with some rows changed: {row index: (column, value)}."""
    path = tmp_path / "bad.csv"
    with open(LOG, newline="") as src, open(path, "w", newline="") as dst:
        r, w = csv.reader(src), csv.writer(dst, lineterminator="\n")
        header = next(r)
        w.writerow(header)
        for i, row in enumerate(r):
            if i in replace:
                column, value = replace[i]
                row[header.index(column)] = value
            w.writerow(row)
    return str(path)


def test_bad_row_fails_with_the_cli_reason(spark, binary, tmp_path):
    path = bad_log(tmp_path, {1000: ("lat", "91.5")})
    p = subprocess.run([binary, "evaluate", "--quiet", "--fences", FENCES[0], "--log", path],
                       capture_output=True, text=True)
    assert p.returncode == 65
    reason = 'latitude "91.5" is out of range [-90, 90]'
    assert reason in p.stderr
    events = gs.evaluate(spark.read.option("header", True).csv(path), FENCES, partitions=3,
                         binary=binary)
    with pytest.raises(Exception) as info:
        events.collect()
    message = gs.cli_error(info.value)
    assert message is not None, str(info.value)[:2000]
    assert reason in message and "partition" in message and "line" in message
    assert "lat='91.5'" in message  # the row itself
    assert reason in str(info.value)


def test_job_reports_the_bad_row(spark, binary, tmp_path, capsys):
    path = bad_log(tmp_path, {17: ("time", "2020-06-04T25:00:00Z")})
    rc = job.main(["--fences", FENCES[0], "--log", path, "--out", str(tmp_path / "out"),
                   "--binary", binary], spark=spark)
    assert rc == 65
    err = capsys.readouterr().err
    assert err.startswith("geofence-spark: error: partition ")
    assert 'time "2020-06-04T25:00:00Z" is not ISO 8601 or an epoch number' in err


def test_skip_invalid_counts_reach_the_driver(spark, binary, cli, tmp_path):
    path = bad_log(tmp_path, {10: ("lat", "91.5"), 2000: ("time", "yesterday"),
                              3000: ("lon", "abc"), 4000: ("lat", "-95")})
    expected, cli_summary = cli(FENCES, [path], "--skip-invalid")
    assert cli_summary["skipped_total"] == 4
    events = gs.evaluate(spark.read.option("header", True).csv(path), FENCES, partitions=3,
                         skip_invalid=True, binary=binary)
    assert_same(events, expected)
    s = events.geofence_summary
    assert s.skipped == cli_summary["skipped"]
    assert s.skipped_total == 4
    assert s.fixes == cli_summary["fixes"]


def test_missing_binary_fails_the_job_with_a_clear_message(spark, csv_fixes):
    events = gs.evaluate(csv_fixes, FENCES, partitions=2, binary="/nonexistent/geofence")
    with pytest.raises(Exception) as info:
        events.count()
    assert "geofence binary '/nonexistent/geofence' not found" in gs.cli_error(info.value)


def test_job_parquet_glob_in_parquet_out(spark, binary, cli, accuracy_log, accuracy_parquet,
                                         tmp_path):
    expected, cli_summary = cli(FENCES, [accuracy_log], "--dwell", "900")
    out = str(tmp_path / "events.parquet")
    summary = tmp_path / "summary.json"
    rc = job.main(["--fences", FENCES[0], "--fences", FENCES[1], "--log",
                   accuracy_parquet + "/*.parquet", "--out", out, "--partitions", "4",
                   "--dwell", "900", "--binary", binary, "--summary", str(summary)], spark=spark)
    assert rc == 0
    events = spark.read.parquet(out)
    assert events.schema == gs.EVENT_SCHEMA or [f.name for f in events.schema] == \
        ["device", "fence", "type", "time", "lat", "lon", "initial", "note"]
    assert_same(events, expected)
    import json
    assert json.loads(summary.read_text())["events"] == cli_summary["events"]


def test_spark_submit(binary, cli, tmp_path):
    """The job script under spark-submit (its own JVM), CSV in, Parquet out."""
    expected, _ = cli(FENCES, [LOG], "--exit-margin", "20", "--dwell", "900")
    venv_bin = os.path.dirname(sys.executable)
    submit = os.path.join(venv_bin, "spark-submit")
    out = str(tmp_path / "events.parquet")
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    log4j = os.path.join(os.path.dirname(__file__), "..", "log4j2.properties")
    p = subprocess.run([submit, "--master", "local[2]", "--conf", "spark.ui.enabled=false",
                        "--driver-java-options", f"-Dlog4j2.configurationFile=file:{log4j}",
                        os.path.join(ROOT, "integrations", "spark", "geofence_spark", "job.py"),
                        "--fences", FENCES[0], "--fences", FENCES[1], "--log", LOG, "--out", out,
                        "--partitions", "3", "--exit-margin", "20", "--dwell", "900",
                        "--binary", binary], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    # spark-submit passes the Python driver's stderr on to its stdout
    assert "geofence-spark: fixes 6132, devices 12, partitions 3" in p.stdout + p.stderr
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pq.read_table(out)
    micros = table["time"].cast(pa.timestamp("us")).cast(pa.int64()).to_pylist()
    got = sorted(
        (r["device"], t, r["fence"], r["type"], r["lat"], r["lon"], r["initial"], r["note"])
        for r, t in zip(table.drop_columns(["time"]).to_pylist(), micros))
    assert got == sorted(cli_key(e) for e in expected)
