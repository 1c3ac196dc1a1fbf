"""Run ``geofence evaluate`` as an Apache Spark job.

The Swift engine does all the work: :func:`evaluate` hash-partitions the fixes by device,
sorts each partition by (device, time) and streams it, as CSV, through the ``geofence``
binary on the executor (``geofence evaluate --log - --format csv``), then reads the events
back as they come. Python only moves rows and parses the binary's output; nothing of the
evaluation semantics is re-implemented here (see docs/evaluation.md).

Settings:

- the binary: the ``binary=`` argument, else the Spark conf key ``spark.geofence.binary``,
  else the executor's environment variable ``GEOFENCE_BIN``, else ``geofence`` on the
  executor's ``PATH``;
- the fence files are shipped to the executors with ``SparkContext.addFile``;
- this package ships itself to the executors with ``SparkContext.addPyFile`` (nothing to
  install on them but ``pyarrow``, which Spark's Arrow support needs anyway).
"""

from __future__ import annotations

import atexit
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time as _time
import zipfile
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Union

__all__ = [
    "EVENT_SCHEMA",
    "GeofenceError",
    "Summary",
    "cli_error",
    "evaluate",
    "parse_columns",
]

__version__ = "0.1.0"

ROLES = ("device", "time", "lat", "lon", "accuracy")
BINARY_CONF = "spark.geofence.binary"
BINARY_ENV = "GEOFENCE_BIN"

# Rows of recently written input kept per partition, so that an error on line N of the
# partition's input can quote the row (the binary reports errors close to where it reads).
_RECENT_ROWS = 200_000


def _event_schema():
    from pyspark.sql.types import (BooleanType, DoubleType, StringType, StructField,
                                   StructType, TimestampType)
    return StructType([
        StructField("device", StringType(), False),
        StructField("fence", StringType(), False),
        StructField("type", StringType(), False),
        StructField("time", TimestampType(), False),
        StructField("lat", DoubleType(), False),
        StructField("lon", DoubleType(), False),
        StructField("initial", BooleanType(), False),
        StructField("note", StringType(), True),
    ])


class _LazySchema:
    def __getattr__(self, name):
        return getattr(_event_schema(), name)

    def __repr__(self):
        return repr(_event_schema())


#: The events' schema: the fields of the CLI's event records, in the same order
#: (docs/evaluation.md, "Event records"): device, fence, type (enter/exit/dwell),
#: time (timestamp, UTC), lat, lon, initial (false unless an initial enter), note (null
#: when the fence has none).
EVENT_SCHEMA = _LazySchema()


class GeofenceError(RuntimeError):
    """A partition failed: the message is the binary's reason, with the partition, the line of
    the partition's input and that row."""


_ERROR_MARK = re.compile(r"GeofenceError: (.*)")


def cli_error(exc: BaseException) -> Optional[str]:
    """The geofence message inside an exception raised on the driver by a Spark action
    (Spark wraps the executor's Python exception), or None when it holds none."""
    if isinstance(exc, GeofenceError):
        return str(exc)
    text = str(exc)
    found = _ERROR_MARK.findall(text)
    return found[-1].strip() if found else None


def parse_columns(columns: Union[None, str, Dict[str, str]]) -> Dict[str, str]:
    """``role=name,...`` (as ``geofence evaluate --columns``) or a dict role -> column name;
    roles not named keep their default names."""
    result = {r: r for r in ROLES}
    if columns is None:
        return result
    if isinstance(columns, str):
        pairs = {}
        for part in columns.split(","):
            if "=" not in part:
                raise ValueError(f"columns: expected role=name, got {part.strip()!r}")
            role, name = (s.strip(" \t") for s in part.split("=", 1))
            if role in pairs:
                raise ValueError(f"columns: role {role!r} given twice")
            pairs[role] = name
        columns = pairs
    for role, name in columns.items():
        if role not in ROLES:
            raise ValueError(f"columns: unknown role {role!r} (roles: {', '.join(ROLES)})")
        if not name:
            raise ValueError(f"columns: empty name for {role!r}")
        result[role] = name
    return result


# -- summary accumulator ---------------------------------------------------------------------

def _merge(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        if k not in out:
            out[k] = dict(v) if isinstance(v, dict) else v
        elif isinstance(v, dict):
            out[k] = _merge(out[k], v)
        elif k.endswith("_max"):
            out[k] = max(out[k], v)
        else:
            out[k] = out[k] + v
    return out


try:
    from pyspark.accumulators import AccumulatorParam as _AccumulatorParam
except ImportError:  # pragma: no cover - pyspark is a dependency
    _AccumulatorParam = object


class _SummaryParam(_AccumulatorParam):
    def zero(self, value):
        return {}

    def addInPlace(self, a, b):
        return _merge(a, b)


class Summary:
    """The per-partition ``--summary`` JSON of the binary, added up on the driver through an
    accumulator: ``partitions`` (binary runs), ``fixes``, ``devices``, ``events`` by type,
    ``skipped`` rows by reason, ``skipped_total``, ``fence_problems_skipped``, and timings
    (``fence_seconds`` summed and ``fence_seconds_max``, ``seconds``, ``wall_seconds``: the
    binary's whole run per partition, start-up included). Values are complete once an action
    on the events has finished; each computation of the events adds again (``reset()``)."""

    def __init__(self, spark_context):
        self._acc = spark_context.accumulator({}, _SummaryParam())

    @property
    def value(self) -> dict:
        return self._acc.value

    def reset(self) -> None:
        self._acc.value = {}

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        v = self._acc.value
        if name in ("skipped", "events"):
            return dict(v.get(name, {}))
        if name in v:
            return v[name]
        if name in ("partitions", "fixes", "devices", "skipped_total", "fence_problems_skipped"):
            return 0
        raise AttributeError(name)

    def __repr__(self):
        return f"Summary({self._acc.value!r})"


# -- shipping files --------------------------------------------------------------------------

_STAGE = None
_shipped = set()  # (id of the JVM SparkContext, staged name)
_lock = threading.Lock()


def _stage_dir() -> str:
    global _STAGE
    if _STAGE is None:
        _STAGE = tempfile.mkdtemp(prefix="geofence-spark-stage-")
        # The staged copies are served to executors while the driver runs; the driver's exit
        # removes them (a compiled fence file can be large, and each driver has its own stage).
        atexit.register(shutil.rmtree, _STAGE, True)
    return _STAGE


def _digest(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def _ship_file(sc, path: str) -> str:
    """Copies `path` under a content-addressed name and adds it with addFile; returns the name
    executors find it under with SparkFiles.get (same content, same name: added once)."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"fences file not found: {path}")
    name = f"{_digest(path)}-{os.path.basename(path)}"
    key = (id(sc._jsc), name)
    with _lock:
        if key not in _shipped:
            staged = os.path.join(_stage_dir(), name)
            if not os.path.exists(staged):
                shutil.copyfile(path, staged)
            sc.addFile(staged)
            _shipped.add(key)
    return name


def _ship_package(sc) -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256()
    files = sorted(f for f in os.listdir(here) if f.endswith(".py"))
    for f in files:
        with open(os.path.join(here, f), "rb") as fh:
            h.update(f.encode() + b"\0" + fh.read())
    name = f"geofence_spark-{h.hexdigest()[:16]}.zip"
    key = (id(sc._jsc), name)
    with _lock:
        if key in _shipped:
            return
        path = os.path.join(_stage_dir(), name)
        if not os.path.exists(path):
            with zipfile.ZipFile(path, "w") as z:
                for f in files:
                    z.write(os.path.join(here, f), f"geofence_spark/{f}")
        sc.addPyFile(path)
        _shipped.add(key)


# -- the driver side -------------------------------------------------------------------------

def evaluate(fixes, fences: Union[str, Sequence[str]], columns: Union[None, str, Dict[str, str]] = None,
             exit_margin: Optional[float] = None, dwell: Optional[float] = None,
             partitions: Optional[int] = None, skip_invalid: bool = False, crs: Optional[str] = None,
             threads: Optional[int] = None, binary: Optional[str] = None,
             memory_budget: Optional[str] = None, summary: Optional[Summary] = None):
    """Evaluates a DataFrame of fixes against fence files with ``geofence evaluate`` and returns
    the events as a DataFrame with :data:`EVENT_SCHEMA` (lazily: the work runs at the action).

    - ``fixes``: columns for the roles device, time, lat, lon and (optional) accuracy, named as
      ``columns`` says (``"device=mmsi,time=ts"`` or a dict; defaults are the role names; Spark
      matches names ignoring case). Any column types: strings are passed to the binary as they
      are (it parses and checks them, docs/logs.md), numbers as Spark writes them, timestamps
      as Unix seconds with microseconds.
    - ``fences``: one or more fence files (GeoJSON or CSV) readable on the driver; they reach
      the executors through ``SparkContext.addFile``.
    - ``exit_margin``, ``dwell``, ``skip_invalid``, ``crs``, ``memory_budget``: the binary's
      ``--exit-margin``, ``--dwell``, ``--skip-invalid``, ``--crs``, ``--memory-budget``.
    - ``partitions``: the number of device partitions (one binary run each); default Spark's
      ``spark.sql.shuffle.partitions``.
    - ``threads``: the binary's ``--threads`` (default ``spark.task.cpus``, else 1).
    - ``binary``: the ``geofence`` executable on the executors (see the module docs).
    - ``summary``: a :class:`Summary` to add the counts to (default: a new one); it is also
      the returned DataFrame's attribute ``geofence_summary``.

    A bad row (strict mode) or any failure of the binary fails the Spark job; the exception the
    driver gets holds the binary's reason (see :func:`cli_error`).
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    spark = fixes.sparkSession
    sc = spark.sparkContext
    if isinstance(fences, (str, os.PathLike)):
        fences = [fences]
    fences = [os.fspath(f) for f in fences]
    if not fences:
        raise ValueError("evaluate: at least one fences file is required")
    if partitions is not None and int(partitions) < 1:
        raise ValueError(f"evaluate: partitions must be >= 1, got {partitions}")
    names = parse_columns(columns)

    fields = {f.name.lower(): f for f in fixes.schema.fields}

    def field(role):
        return fields.get(names[role].lower())

    for role in ("device", "time", "lat", "lon"):
        if field(role) is None:
            raise ValueError(f"evaluate: no column {names[role]!r} for {role} "
                             f"(columns: {', '.join(fixes.columns)}); use columns='{role}=NAME'")
    roles = [r for r in ROLES if r != "accuracy" or field("accuracy") is not None]

    def wire(role):
        f = field(role)
        c = F.col(f"`{f.name}`")
        if isinstance(f.dataType, T.StringType):
            return c
        if role == "time" and isinstance(f.dataType, T.TimestampType):
            micros = F.unix_micros(c)
            return F.concat(F.floor(micros / F.lit(1_000_000)).cast("string"), F.lit("."),
                            F.lpad(F.pmod(micros, F.lit(1_000_000)).cast("string"), 6, "0"))
        if role == "time" and type(f.dataType).__name__ == "TimestampNTZType":
            return F.date_format(c, "yyyy-MM-dd'T'HH:mm:ss.SSSSSS")  # no zone: UTC for the binary
        return c.cast("string")

    def order_key():
        f = field("time")
        c = F.col(f"`{f.name}`")
        if isinstance(f.dataType, T.StringType):
            # Only to bring each device's fixes into time order: the binary parses the text.
            return F.coalesce(c.try_cast("double"),
                              F.unix_micros(c.try_cast("timestamp")) / F.lit(1_000_000))
        if isinstance(f.dataType, T.NumericType):
            return c.cast("double")
        return c

    ship = [_ship_file(sc, f) for f in fences]
    _ship_package(sc)

    if binary is None:
        binary = spark.conf.get(BINARY_CONF, None) or None
    if threads is None:
        threads = int(sc.getConf().get("spark.task.cpus", "1"))
    options = []
    if exit_margin is not None:
        options += ["--exit-margin", repr(float(exit_margin))]
    if dwell is not None:
        options += ["--dwell", repr(float(dwell))]
    if skip_invalid:
        options.append("--skip-invalid")
    if crs:
        options += ["--crs", crs]
    if memory_budget:
        options += ["--memory-budget", str(memory_budget)]
    options += ["--threads", str(int(threads))]

    if summary is None:
        summary = Summary(sc)
    config = {
        "binary": binary,
        "fences": ship,
        "originals": dict(zip(ship, fences)),
        "options": options,
        "roles": roles,
    }
    acc = summary._acc

    df = fixes.select(*[wire(r).alias(r) for r in roles],
                      order_key().alias("__geofence_key"),
                      F.monotonically_increasing_id().alias("__geofence_seq"))
    df = df.repartition(int(partitions), "device") if partitions else df.repartition("device")
    df = df.sortWithinPartitions("device", F.col("__geofence_key").asc_nulls_last(),
                                 "__geofence_seq", "time")
    df = df.select(*roles)

    def run(batches):
        from geofence_spark import _partition
        return _partition(batches, config, acc)

    events = df.mapInArrow(run, _event_schema())
    events.geofence_summary = summary
    return events


# -- the executor side -----------------------------------------------------------------------

def _find_binary(configured: Optional[str]) -> str:
    candidate = configured or os.environ.get(BINARY_ENV) or "geofence"
    if os.sep in candidate:
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
        found = None
    else:
        found = shutil.which(candidate)
    if not found:
        import socket
        raise GeofenceError(
            f"geofence binary {candidate!r} not found on executor host {socket.gethostname()}: "
            f"put 'geofence' on the executors' PATH, or set {BINARY_CONF} (Spark conf) or "
            f"{BINARY_ENV} (executor environment) to its path")
    return found


def _event_converter():
    import pyarrow as pa
    import pyarrow.csv as pcsv
    types = {
        "device": pa.string(), "fence": pa.string(), "type": pa.string(),
        "time": pa.timestamp("ms", tz="UTC"), "lat": pa.float64(), "lon": pa.float64(),
        "initial": pa.bool_(), "note": pa.string(),
    }
    convert = pcsv.ConvertOptions(column_types=types, strings_can_be_null=True,
                                  null_values=[""], true_values=["true"], false_values=["false"])
    target = pa.schema([
        ("device", pa.string()), ("fence", pa.string()), ("type", pa.string()),
        ("time", pa.timestamp("us", tz="UTC")), ("lat", pa.float64()), ("lon", pa.float64()),
        ("initial", pa.bool_()), ("note", pa.string()),
    ])

    def to_target(batch):
        cols = [batch.column(name).cast(target.field(name).type) for name in target.names]
        return pa.RecordBatch.from_arrays(cols, schema=target)

    return convert, to_target


_CLI_LINE = re.compile(r"^geofence evaluate: error: -:(\d+): (.*)$")


def _describe_failure(rc: int, stderr: str, partition: int, recent, config) -> str:
    lines = [l for l in stderr.strip().splitlines() if l.strip()]
    last = lines[-1] if lines else f"exited with status {rc} and no message"
    for staged, original in config["originals"].items():
        last = re.sub(r"[^\s:]*" + re.escape(staged), lambda _: original, last)
    m = _CLI_LINE.match(last)
    if not m:
        return f"partition {partition}: {last} (geofence evaluate exit {rc})"
    line, reason = int(m.group(1)), m.group(2)
    row = None
    for first, batch in recent:
        if first <= line < first + batch.num_rows:
            values = batch.slice(line - first, 1).to_pylist()[0]
            row = ", ".join(f"{k}={v!r}" for k, v in values.items())
            break
    where = f"partition {partition}, line {line} of its input"
    if row:
        where += f" ({row})"
    return f"{where}: {reason} (geofence evaluate exit {rc})"


def _partition(batches: Iterable, config: dict, acc) -> Iterator:
    import pyarrow as pa
    import pyarrow.csv as pcsv
    from pyspark import SparkFiles, TaskContext

    it = iter(batches)
    first = next(it, None)
    while first is not None and first.num_rows == 0:
        first = next(it, None)
    if first is None:
        return  # an empty partition: no binary run
    ctx = TaskContext.get()
    partition = ctx.partitionId() if ctx is not None else -1

    binary = _find_binary(config["binary"])
    work = tempfile.mkdtemp(prefix="geofence-spark-")
    summary_path = os.path.join(work, "summary.json")
    err_path = os.path.join(work, "stderr.txt")
    args = [binary, "evaluate"]
    for name in config["fences"]:
        args += ["--fences", SparkFiles.get(name)]
    args += ["--log", "-", "--log-format", "csv", "--format", "csv", "--quiet",
             "--summary", summary_path] + config["options"]

    started = _time.monotonic()
    err = open(err_path, "wb")
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
                            cwd=work)
    recent = collections.deque()
    state = {"error": None, "rows": 0}

    def feed():
        held = 0
        line = 2  # line 1 is the header
        try:
            writer = pcsv.CSVWriter(proc.stdin, first.schema)
            for batch in _chain(first, it):
                if batch.num_rows == 0:
                    continue
                recent.append((line, batch))
                held += batch.num_rows
                while held - recent[0][1].num_rows >= _RECENT_ROWS:
                    held -= recent.popleft()[1].num_rows
                writer.write_batch(batch)
                line += batch.num_rows
                state["rows"] += batch.num_rows
            writer.close()
        except (BrokenPipeError, pa.ArrowException, OSError) as e:
            if proc.poll() is None and not isinstance(e, BrokenPipeError):
                state["error"] = e
            # else: the binary stopped reading (it failed); its own message says why
        except BaseException as e:  # the input itself failed: the task must fail
            state["error"] = e
            proc.kill()
        finally:
            try:
                proc.stdin.close()
            except OSError:
                pass

    feeder = threading.Thread(target=feed, name=f"geofence-feed-{partition}", daemon=True)
    feeder.start()
    convert, to_target = _event_converter()
    finished = False
    try:
        try:
            reader = pcsv.open_csv(proc.stdout, read_options=pcsv.ReadOptions(block_size=1 << 20),
                                   parse_options=pcsv.ParseOptions(newlines_in_values=True),
                                   convert_options=convert)
            for batch in reader:
                if batch.num_rows:
                    yield to_target(batch)
        except pa.ArrowException:
            if proc.wait() == 0:
                raise
        feeder.join()
        rc = proc.wait()
        err.close()
        if state["error"] is not None and rc == 0:
            raise state["error"]
        if rc != 0:
            with open(err_path, "rb") as f:
                stderr = f.read().decode("utf-8", "replace")
            if state["error"] is not None and not isinstance(state["error"], (OSError, pa.ArrowException)):
                raise state["error"]
            raise GeofenceError(_describe_failure(rc, stderr, partition, recent, config))
        with open(summary_path) as f:
            s = json.load(f)
        wall = _time.monotonic() - started
        acc.add({
            "partitions": 1,
            "fixes": s.get("fixes", 0),
            "devices": s.get("devices", 0),
            "events": s.get("events", {}),
            "skipped": s.get("skipped", {}),
            "skipped_total": s.get("skipped_total", 0),
            "fence_problems_skipped": s.get("fence_problems_skipped", 0),
            "fence_seconds": s.get("fence_seconds", 0.0),
            "fence_seconds_max": s.get("fence_seconds", 0.0),
            "seconds": s.get("seconds", 0.0),
            "wall_seconds": wall,
        })
        finished = True
    finally:
        if not finished and proc.poll() is None:
            proc.kill()
            proc.wait()
        if not err.closed:
            err.close()
        try:
            proc.stdout.close()
        except OSError:
            pass
        shutil.rmtree(work, ignore_errors=True)


def _chain(first, rest):
    yield first
    yield from rest
