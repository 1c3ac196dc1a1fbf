#!/bin/sh
# A throw-away PostgreSQL + PostGIS server for the peers: Debian's packages, a fresh
# cluster in a temporary directory, listening only on a Unix socket there (no TCP), run as the
# postgres user, stopped and deleted by `postgis.sh stop DIR`.
#
#   DIR=$(Benchmarks/peers/postgis.sh start)   prints the socket directory (port 54329)
#   Benchmarks/peers/postgis.sh stop "$DIR"
set -eu
PORT=54329
bindir() {
    for d in /usr/lib/postgresql/*/bin; do
        [ -x "$d/initdb" ] && { echo "$d"; return 0; }
    done
    return 1
}
case ${1:-} in
    start)
        if ! BIN=$(bindir) || ! ls /usr/share/postgresql/*/extension/postgis.control >/dev/null 2>&1; then
            if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
                echo "postgis.sh: installing postgresql and postgis (Debian)" >&2
                DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql postgis >/dev/null 2>&1 || true
            fi
            BIN=$(bindir) || { echo "postgis.sh: PostgreSQL is not installed" >&2; exit 1; }
            ls /usr/share/postgresql/*/extension/postgis.control >/dev/null 2>&1 || { echo "postgis.sh: PostGIS is not installed" >&2; exit 1; }
        fi
        id postgres >/dev/null 2>&1 || { echo "postgis.sh: no postgres user" >&2; exit 1; }
        DIR=$(mktemp -d /tmp/geofence-postgis.XXXXXX)
        chown postgres "$DIR"
        RUN="runuser -u postgres --"
        [ "$(id -u)" = 0 ] || RUN=""
        $RUN "$BIN/initdb" -D "$DIR/data" -A trust -U postgres >/dev/null
        $RUN "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w \
            -o "-k $DIR -p $PORT -c listen_addresses= -c shared_buffers=256MB -c work_mem=64MB -c fsync=off" start >/dev/null
        echo "$DIR"
        ;;
    stop)
        DIR=${2:?usage: postgis.sh stop DIR}
        BIN=$(bindir)
        RUN="runuser -u postgres --"
        [ "$(id -u)" = 0 ] || RUN=""
        $RUN "$BIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null 2>&1 || true
        case $DIR in /tmp/geofence-postgis.*) rm -rf "$DIR" ;; esac
        ;;
    *) echo "usage: postgis.sh start | stop DIR" >&2; exit 64 ;;
esac
