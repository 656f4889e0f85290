#!/usr/bin/env bash
# `kf serve` under a flood of idle connections (each opened and then silent), on loopback: does /healthz keep
# answering? Three runs, each bounded (at most about 80 s):
#   1. the default bound, 19,900 idle connections against a 20,000 open-file limit;
#   2. a server with an open-file limit of 4,096 and its default bound (3,584), 6,000 idle connections;
#   3. the same with the bound lifted (--max-connections 1000000): the comparison row, what an unbounded
#      server does when the flood reaches its open-file limit.
# Each prints: connections=N still_open=H healthz=OK/ASKED median_ms=M worst_ms=W
#
#   Benchmarks/serve-flood.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
swift build -c release --product kf 2>&1 | grep -E "error|Compiling kf|Build complete" || true
KF="$(swift build -c release --show-bin-path)/kf"
WORK="$(mktemp -d /tmp/kf-serve-flood.XXXXXX)"
SERVE_PID=""
cleanup() {
    if [ -n "$SERVE_PID" ]; then kill "$SERVE_PID" 2>/dev/null || true; wait "$SERVE_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT

run() {  # run LABEL NOFILE CONNECTIONS [kf serve flags...]
    local label=$1 nofile=$2 connections=$3
    shift 3
    : >"$WORK/out"
    (ulimit -n "$nofile" && exec "$KF" serve --port 0 --unsafe --cache-dir "$WORK/cache" --log-level error \
        --idle-timeout 600 --header-timeout 600 "$@" >"$WORK/out" 2>"$WORK/err") &
    SERVE_PID=$!
    local port=""
    for _ in $(seq 100); do
        port=$(sed -n 's/.*listening on http:\/\/127.0.0.1:\([0-9]*\).*/\1/p' "$WORK/out")
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { echo "kf serve did not start: $(cat "$WORK/err")"; exit 1; }
    printf '%-44s ' "$label"
    timeout 150 python3 "$ROOT/Benchmarks/lib/connection-flood.py" --port "$port" --connections "$connections" --open-seconds 60
    kill "$SERVE_PID"
    wait "$SERVE_PID" 2>/dev/null || true
    SERVE_PID=""
}

echo "== kf serve, idle connections held while /healthz is asked every 200 ms (load: $(uptime | sed 's/.*load average: //'))"
run "default bound, open-file limit 20000" 20000 19900
run "default bound, open-file limit 4096" 4096 6000
run "no bound (--max-connections 1000000), 4096" 4096 6000 --max-connections 1000000
