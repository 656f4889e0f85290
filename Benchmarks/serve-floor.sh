#!/usr/bin/env bash
# The floor under a cold `kf serve` request, and what kf spends above it (issue 47).
#
#   Benchmarks/serve-floor.sh [seconds] [rounds]     # 20 s, 3 rounds by default; from anywhere
#   PERF=1 Benchmarks/serve-floor.sh                 # also a profile of kf serve (perf, cpu-clock samples)
#   PERF=1 PERF_KEEP=FILE Benchmarks/serve-floor.sh 20 0   # the profile alone, kept in FILE
#
# The workload of Benchmarks/serve-vs-thumbor.sh's "kf cold": the wallpaper photos from a loopback nginx, every
# request a result never made before (`fit-in/WIDTHx256`, the width walking down from 256, JPEG q80 and WebP q80 by
# turns), originals already in kf's cache, wrk with 16 connections. Each round measures kf serve's CPU time
# (utime + stime of the process, /proc/PID/stat) over the requests wrk completed, then has libvips make the same
# results from the same bytes in C on one thread (Benchmarks/floor/serve_floor.c), two ways:
#   libvips thumbnail   vips_thumbnail_buffer, then the encode
#   libvips least       libjpeg's DCT scaling to the smallest size that covers the box, vips_thumbnail_image, the
#                       encode: the least decoding libvips can do for the same result
# Reported: CPU milliseconds per request of each, medians over the rounds, and kf's against each floor.
# With PERF=1, one more round runs under `perf record -e cpu-clock -g` and the profile is summarised by library
# and by function (libvips and its codecs, kf's own code, the Swift runtime, the kernel...).
set -euo pipefail

SECONDS_PER_RUN="${1:-20}"
ROUNDS="${2:-3}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/loopback-server.sh
source "$ROOT/Benchmarks/lib/loopback-server.sh"
# shellcheck source=lib/wallpapers.sh
source "$ROOT/Benchmarks/lib/wallpapers.sh"

require_wallpaper_origin wrk:wrk gcc:gcc pkg-config:pkg-config
[ "${PERF:-0}" = 1 ] && { command -v perf >/dev/null || install_missing linux-perf; }
build_kf_release

WORK="$(mktemp -d -t kf-serve-floor.XXXXXX)"
chmod 755 "$WORK"
mkdir -p "$WORK/corpus"
link_wallpapers "$WORK/corpus"
gcc -O2 -o "$WORK/serve_floor" "$ROOT/Benchmarks/floor/serve_floor.c" $(pkg-config --cflags --libs vips) -lm
SERVE_DIRECTIVES='add_header Cache-Control "max-age=3600" always;' serve_directory "$WORK/corpus" "$WORK"
ORIGIN_PID=$SERVER_PID
KF_PID=""
cleanup() {
    [ -n "$KF_PID" ] && kill "$KF_PID" 2>/dev/null || true
    kill "$ORIGIN_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
PHOTOS=$(ls "$WORK/corpus" | wc -l)
FILES=$(ls "$WORK/corpus"/*.jpg)
echo "== $PHOTOS photos ($(du -shL "$WORK/corpus" | cut -f1)) on 127.0.0.1:$PORT ($SERVER)"

# The wrk script of serve-vs-thumbor.sh: request i asks photo i % PHOTOS, JPEG or WebP by turns, the width walking.
cat >"$WORK/urls.lua" <<EOF
local photos = $PHOTOS
local origin = "127.0.0.1:$PORT"
local counter = 0
local start = tonumber(os.getenv("START") or "0")
request = function()
    local i = counter + start
    counter = counter + 1
    local photo = i % photos
    local webp = math.floor(i / photos) % 2 == 1
    local width = 256 - (math.floor(i / (2 * photos)) % 250)
    local filters = webp and "filters:quality(80):format(webp)" or "filters:quality(80)"
    return wrk.format("GET", string.format("/unsafe/fit-in/%dx256/%s/%s/%02d.jpg", width, filters, origin, photo))
end
EOF

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
TICKS=$(getconf CLK_TCK)

start_kf() {
    rm -rf "$WORK/kf-cache"
    KF_PORT=$(free_port)
    "$KF" serve --port "$KF_PORT" --unsafe --allow-source "127.0.0.1:$PORT" --cache-dir "$WORK/kf-cache" \
        --log-level error >"$WORK/kf.log" 2>&1 &
    KF_PID=$!
    wait_for "http://127.0.0.1:$KF_PORT/healthz"
    for i in $(seq 0 $((PHOTOS - 1))); do
        curl -sf -o /dev/null "http://127.0.0.1:$KF_PORT/unsafe/fit-in/16x16/127.0.0.1:$PORT/$(printf %02d "$i").jpg" || true
    done
}
stop_kf() {
    kill "$KF_PID" 2>/dev/null || true
    wait "$KF_PID" 2>/dev/null || true
    KF_PID=""
}

RESULTS="$WORK/results.tsv"
: >"$RESULTS"
printf "round\trequests\tkf ms/request\tthumbnail ms/request\tleast ms/request\n"
for round in $(seq "$ROUNDS"); do
    start=$((round * 100000))
    start_kf
    before=$(cpu_ticks "$KF_PID")
    START=$start wrk -t2 -c16 -d"${SECONDS_PER_RUN}s" -s "$WORK/urls.lua" "http://127.0.0.1:$KF_PORT" \
        >"$WORK/wrk-$round.txt" 2>&1
    after=$(cpu_ticks "$KF_PID")
    stop_kf
    requests=$(awk '/requests in/ {print $1}' "$WORK/wrk-$round.txt")
    kf_ms=$(python3 -c "print(f'{($after - $before) * 1000 / $TICKS / $requests:.2f}')")
    # The first of the same requests (every photo, both formats, four widths), made by libvips alone.
    floor_requests=$((requests < 8 * PHOTOS ? requests : 8 * PHOTOS))
    thumbnail_ms=$(VIPS_WARNING=0 "$WORK/serve_floor" thumbnail "$floor_requests" "$start" $FILES 2>/dev/null |
        awk '$1 == "all" {print $3}')
    least_ms=$(VIPS_WARNING=0 "$WORK/serve_floor" shrink "$floor_requests" "$start" $FILES 2>/dev/null |
        awk '$1 == "all" {print $3}')
    printf "%s\t%s\t%s\t%s\t%s\n" "$round" "$requests" "$kf_ms" "$thumbnail_ms" "$least_ms" | tee -a "$RESULTS"
done

echo
[ "$ROUNDS" -gt 0 ] && python3 - "$RESULTS" <<'PY'
import statistics, sys
rows = [line.split("\t") for line in open(sys.argv[1]) if line.strip()]
kf = statistics.median(float(r[2]) for r in rows)
thumbnail = statistics.median(float(r[3]) for r in rows)
least = statistics.median(float(r[4]) for r in rows)
print("| CPU per cold request | ms (median of %d rounds) | kf against it |" % len(rows))
print("|---|---:|---:|")
print(f"| kf serve (the whole process) | {kf:.2f} | |")
print(f"| libvips thumbnail + encode, one thread | {thumbnail:.2f} | {kf / thumbnail:.2f}x |")
print(f"| libvips least decoding + resize + encode, one thread | {least:.2f} | {kf / least:.2f}x |")
PY

if [ "${PERF:-0}" = 1 ]; then
    echo
    echo "== profile: one more round of ${SECONDS_PER_RUN} s under perf record -e cpu-clock -g"
    start_kf
    perf record -q -e cpu-clock -F 999 -g -p "$KF_PID" -o "$WORK/perf.data" -- sleep "$SECONDS_PER_RUN" 2>/dev/null &
    PERF_PID=$!
    START=900000 wrk -t2 -c16 -d"${SECONDS_PER_RUN}s" -s "$WORK/urls.lua" "http://127.0.0.1:$KF_PORT" >/dev/null 2>&1
    wait "$PERF_PID" || true
    stop_kf
    echo "-- by library (self time)"
    { perf report -i "$WORK/perf.data" --no-children --sort dso --stdio 2>/dev/null || true; } |
        grep -E '^ +[0-9]' | head -20 || true
    echo "-- by function (self time, top 40)"
    { perf report -i "$WORK/perf.data" --no-children --sort dso,sym --stdio 2>/dev/null || true; } |
        grep -E '^ +[0-9]' | head -40 || true
    if [ -n "${PERF_KEEP:-}" ]; then cp "$WORK/perf.data" "$PERF_KEEP"; echo "(profile kept at $PERF_KEEP)"; fi
fi
