"""One SparkSession (local[2]) for the whole test run, and the geofence binary under test.

The binary's path comes from GEOFENCE_TEST_BINARY (`make test-spark` sets it to the test
build); the tests fail, rather than skip, when it is missing.
"""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
DATA = os.path.join(ROOT, "data")


def pytest_collection_finish(session):
    if not session.items:
        raise pytest.UsageError("no Spark tests collected")


@pytest.fixture(scope="session")
def binary():
    path = os.environ.get("GEOFENCE_TEST_BINARY")
    if not path or not os.access(path, os.X_OK):
        pytest.fail("set GEOFENCE_TEST_BINARY to the geofence binary (make test-spark does)")
    return os.path.abspath(path)


@pytest.fixture(scope="session")
def spark():
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession
    log4j = os.path.join(HERE, "..", "log4j2.properties")
    spark = (SparkSession.builder.master("local[2]").appName("geofence-spark-tests")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile=file:{log4j}")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    yield spark
    spark.stop()


@pytest.fixture(scope="session")
def cli(binary):
    """Runs `geofence evaluate` on files; returns its events (NDJSON parsed) and summary."""
    import json
    import tempfile

    def run(fences, logs, *options):
        with tempfile.TemporaryDirectory() as d:
            summary = os.path.join(d, "summary.json")
            args = [binary, "evaluate", "--quiet", "--summary", summary]
            for f in fences:
                args += ["--fences", f]
            for l in logs:
                args += ["--log", l]
            p = subprocess.run(args + list(options), capture_output=True, text=True)
            if p.returncode != 0:
                raise RuntimeError(f"geofence exit {p.returncode}: {p.stderr}")
            with open(summary) as f:
                s = json.load(f)
        return [json.loads(l) for l in p.stdout.splitlines() if l.strip()], s

    return run
