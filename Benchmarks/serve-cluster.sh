#!/usr/bin/env bash
# Two `kf serve` instances on one cache directory behind nginx (load balancing, retries on the other instance,
# proxy_cache keyed on the URL and the negotiated format: the configuration of docs/SERVING.md), under load from
# wrk; one instance is killed (SIGKILL) a third of the way through. Reports the client's failed requests (the goal:
# none), how the requests were answered (nginx's cache status) and the cache hit ratio.
#
#   Benchmarks/serve-cluster.sh [seconds]      # 30 s by default; from anywhere
#
# Load: wrk, 16 connections; the wallpaper photos x 200 widths (fit-in/256x256 ... 57x256), half the requests
# accepting WebP (the instances run --auto-webp), from a loopback nginx origin with Cache-Control: max-age=3600.
# wrk's two threads walk the same list, so each URL is asked twice: once a miss, once a hit (or a wait on
# proxy_cache_lock while the first is made).
set -euo pipefail

DURATION="${1:-30}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/loopback-server.sh
source "$ROOT/Benchmarks/lib/loopback-server.sh"
# shellcheck source=lib/wallpapers.sh
source "$ROOT/Benchmarks/lib/wallpapers.sh"

require_wallpaper_origin wrk:wrk

build_kf_release

WORK="$(mktemp -d -t kf-serve-cluster.XXXXXX)"
chmod 755 "$WORK"
mkdir -p "$WORK/corpus" "$WORK/front" "$WORK/front/cache" "$WORK/shared-cache"
link_wallpapers "$WORK/corpus"
SERVE_DIRECTIVES='add_header Cache-Control "max-age=3600" always;' serve_directory "$WORK/corpus" "$WORK"
ORIGIN_PID=$SERVER_PID
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    kill "$ORIGIN_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
PHOTOS=$(ls "$WORK/corpus" | wc -l)

PORT_A=$(free_port)
PORT_B=$(free_port)
FRONT=$(free_port)
for port in "$PORT_A" "$PORT_B"; do
    "$KF" serve --port "$port" --unsafe --auto-webp --allow-source "127.0.0.1:$PORT" --cache-dir "$WORK/shared-cache" \
        --log-level error >"$WORK/kf-$port.log" 2>&1 &
    PIDS+=($!)
done
PID_A=${PIDS[0]}
wait_for "http://127.0.0.1:$PORT_A/healthz"
wait_for "http://127.0.0.1:$PORT_B/healthz"

cat >"$WORK/front/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $WORK/front/nginx.pid;
error_log $WORK/front/error.log;
events { worker_connections 1024; }
http {
    log_format cache '\$upstream_cache_status \$status';
    access_log $WORK/front/access.log cache;
    proxy_cache_path $WORK/front/cache levels=1:2 keys_zone=kf:16m max_size=1g inactive=1h use_temp_path=off;
    upstream kf_serve {
        server 127.0.0.1:$PORT_A max_fails=1 fail_timeout=5s;
        server 127.0.0.1:$PORT_B max_fails=1 fail_timeout=5s;
        keepalive 32;
    }
    map \$http_accept \$kf_format {
        ~*image/avif  "image/avif";
        ~*image/webp  "image/webp";
        default       "";
    }
    server {
        listen 127.0.0.1:$FRONT;
        location / {
            proxy_pass http://kf_serve;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Accept \$kf_format;
            proxy_cache kf;
            proxy_cache_key "\$request_uri|\$kf_format";
            proxy_ignore_headers Vary;
            proxy_cache_valid 404 1m;
            proxy_cache_lock on;
            proxy_cache_use_stale error timeout updating http_502 http_503 http_504;
            proxy_cache_revalidate on;
            add_header X-Cache-Status \$upstream_cache_status always;
            proxy_next_upstream error timeout http_502 http_503;
            proxy_next_upstream_tries 2;
            proxy_connect_timeout 2s;
            proxy_read_timeout 30s;
        }
    }
}
EOF
nginx -c "$WORK/front/nginx.conf" -p "$WORK/front" &
FRONT_PID=$!
PIDS+=("$FRONT_PID")
wait_for "http://127.0.0.1:$FRONT/unsafe/fit-in/16x16/127.0.0.1:$PORT/00.jpg"

cat >"$WORK/load.lua" <<EOF
dofile("$ROOT/Benchmarks/lib/wrk-failures.lua")
local photos = $PHOTOS
local origin = "127.0.0.1:$PORT"
local counter = 0
request = function()
    local i = counter
    counter = counter + 1
    local photo = i % photos
    local width = 256 - (math.floor(i / (2 * photos)) % 200)
    local headers = {}
    if math.floor(i / photos) % 2 == 1 then headers["Accept"] = "image/webp,image/*;q=0.8" end
    return wrk.format("GET", string.format("/unsafe/fit-in/%dx256/%s/%02d.jpg", width, origin, photo), headers)
end
EOF

echo "== load for ${DURATION}s; killing instance A (pid $PID_A) at $((DURATION / 3))s"
wrk -t2 -c16 -d"${DURATION}s" --latency -s "$WORK/load.lua" "http://127.0.0.1:$FRONT" >"$WORK/wrk.txt" 2>&1 &
WRK_PID=$!
sleep $((DURATION / 3))
kill -9 "$PID_A"
echo "== killed A; B answers alone"
wait "$WRK_PID" || echo "wrk exited with status $?"
cat "$WORK/wrk.txt"
echo "== nginx: how the requests were answered (upstream cache status, status)"
sort "$WORK/front/access.log" | uniq -c | sort -rn
python3 - "$WORK/front/access.log" <<'PY'
import collections, sys
counts = collections.Counter(line.split()[0] for line in open(sys.argv[1]) if line.strip())
total = sum(counts.values())
hits = counts.get("HIT", 0)
print(f"cache hit ratio: {hits}/{total} = {hits / total:.1%}" if total else "no requests logged")
PY
echo "== instance B still healthy: $(curl -s "http://127.0.0.1:$PORT_B/healthz")"
