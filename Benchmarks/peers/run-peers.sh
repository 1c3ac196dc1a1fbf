#!/bin/sh
# The side-by-side comparison of the peers: geofence vs shapely 2, DuckDB spatial, SedonaDB and
# PostGIS on the same real files and on the scattered workload (geofence-bench's evaluate-scattered
# files, kept in Benchmarks/peers/scattered/, git-ignored), in one run. Installs the peers into
# Benchmarks/peers/.venv (git-ignored) from PyPI.
#
#   Benchmarks/peers/run-peers.sh                  table on stdout; JSON in Benchmarks/results/
#   OUT=/tmp/x Benchmarks/peers/run-peers.sh       results elsewhere
#   PEERS_ARGS=--scattered-only Benchmarks/peers/run-peers.sh   only the scattered workload
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
PEERS=$ROOT/Benchmarks/peers
VENV=$PEERS/.venv
OUT=${OUT:-$ROOT/Benchmarks/results}
PY=${PYTHON:-python3}

[ -f data/fetched/cities.csv ] || ./scripts/fetch-data
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
"$VENV/bin/pip" install -q --disable-pip-version-check -r "$PEERS/requirements.txt"

swift build -c release --static-swift-stdlib --product geofence-bench
swift build -c release --static-swift-stdlib --product geofence          # the whole-CLI rows of evaluate-scattered
mkdir -p "$OUT"
SCATTERED=$PEERS/scattered
echo "== ours: geofence-bench --filter evaluate-real --filter evaluate-scattered"
.build/release/geofence-bench --filter evaluate-real --filter evaluate-scattered --scattered-dir "$SCATTERED" --json "$OUT/peers-ours.json"
echo "== peers"
# PostGIS: a throw-away server on a Unix socket (Debian's postgresql + postgis; skipped if absent).
PG=""
if PGDIR=$("$PEERS/postgis.sh" start); then
    PG="--postgis $PGDIR"
    trap '"$PEERS/postgis.sh" stop "$PGDIR"' EXIT
else
    echo "(PostGIS not available: skipped)"
fi
# shellcheck disable=SC2086
"$VENV/bin/python" "$PEERS/peers.py" --root "$ROOT" --ours "$OUT/peers-ours.json" --json "$OUT/peers.json" \
    --scattered "$SCATTERED" --cli .build/release/geofence $PG ${PEERS_ARGS:-}
# Fence loading: the fences suite's GeoJSON files (kept in Benchmarks/peers/fence-files/, git-ignored)
# read by us (text and compiled) and by shapely and pyogrio.
if [ -z "${PEERS_ARGS:-}" ] || [ -n "${FENCE_LOADING:-}" ]; then
    echo "== fence loading: geofence-bench --filter fences, then shapely and pyogrio on the same files"
    .build/release/geofence-bench --filter "fences airports" --filter "fences circles" --filter "fences polygons" \
        --fence-files "$PEERS/fence-files" --json "$OUT/fences-ours.json"
    "$VENV/bin/python" "$PEERS/fence_loading.py" --dir "$PEERS/fence-files" --ours "$OUT/fences-ours.json" --json "$OUT/fence-loading.json"
fi
# The chart with the peers, when a full run's JSON is there (make bench / geofence-bench --json).
if [ -f "$OUT/full.json" ]; then
    .build/release/geofence-bench --render "$OUT/full.json" --peers "$OUT/peers.json" --chart "$OUT/chart.svg" >/dev/null
    echo "wrote $OUT/chart.svg"
fi
