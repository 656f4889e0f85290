#!/usr/bin/env bash
# `kf serve` against thumbor 7.8 on the same 2 cores: the wallpaper photos (Debian's plasma-workspace-wallpapers,
# from a loopback nginx that sends `Cache-Control: max-age=3600`), thumbnailed `fit-in/256x256` as JPEG q80 and the
# same as WebP, load from wrk with 16 connections for 30 s, rounds interleaved.
#
#   Benchmarks/serve-vs-thumbor.sh [rounds] [seconds]     # 3 rounds of 30 s by default; from anywhere
#
# Entries per round:
#   thumbor cold   thumbor 7.8 (PyPI, in Benchmarks/.venv-thumbor), --processes 2 (one per core), PIL engine,
#                  file storage for originals (its default), result storage off (its default), unsafe URLs
#   kf cold        kf serve (release), every request a result never made before: the wrk script walks the widths
#                  256, 255, 254... per photo, so results are made, not cached (originals are, as thumbor's are)
#   kf warm        kf serve with the 2 x photos URLs made once: results from its memory
# Both servers get the same URLs: thumbor walks the same widths (it caches no results either way).
# Reported: requests/s, p50 and p99 latency (wrk --latency), non-2xx answers, peak RSS (VmHWM; thumbor: the sum
# over its processes). Then kf cold again with 64 connections, for peak RSS.
# Goals (issue 18): cold >= 2x thumbor's requests/s with a lower p99; warm >= 5,000 requests/s; peak RSS < 400 MB at
# 64 connections.
set -euo pipefail

ROUNDS="${1:-3}"
SECONDS_PER_RUN="${2:-30}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/loopback-server.sh
source "$ROOT/Benchmarks/lib/loopback-server.sh"
# shellcheck source=lib/wallpapers.sh
source "$ROOT/Benchmarks/lib/wallpapers.sh"

require_wallpaper_origin wrk:wrk
VENV="$ROOT/Benchmarks/.venv-thumbor"
if [ ! -x "$VENV/bin/thumbor" ]; then
    echo "== installing thumbor 7.8 into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "thumbor==7.8.*" libthumbor
fi

build_kf_release

WORK="$(mktemp -d -t kf-serve-bench.XXXXXX)"
chmod 755 "$WORK"
mkdir -p "$WORK/corpus"
link_wallpapers "$WORK/corpus"
SERVE_DIRECTIVES='add_header Cache-Control "max-age=3600" always;' serve_directory "$WORK/corpus" "$WORK"
ORIGIN_PID=$SERVER_PID
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill $(pgrep -P "$pid" || true) "$pid" 2>/dev/null || true; done
    kill "$ORIGIN_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
PHOTOS=$(ls "$WORK/corpus" | wc -l)
echo "== $PHOTOS photos ($(du -shL "$WORK/corpus" | cut -f1)) on 127.0.0.1:$PORT ($SERVER)"

# wrk script: request i goes to photo i % PHOTOS, JPEG or WebP by turns; in "walk" mode the width steps down by one
# each time every photo and format has been asked once, so no result repeats within a run.
cat >"$WORK/urls.lua" <<EOF
local photos = $PHOTOS
local origin = "127.0.0.1:$PORT"
local walk = os.getenv("WALK") == "1"
local counter = 0
local start = tonumber(os.getenv("START") or "0")
request = function()
    local i = counter + start
    counter = counter + 1
    local photo = i % photos
    local webp = math.floor(i / photos) % 2 == 1
    local width = 256
    if walk then width = 256 - (math.floor(i / (2 * photos)) % 250) end
    local filters = webp and "filters:quality(80):format(webp)" or "filters:quality(80)"
    local path = string.format("/unsafe/fit-in/%dx256/%s/%s/%02d.jpg", width, filters, origin, photo)
    return wrk.format("GET", path)
end
EOF

# thumbor's configuration: unsafe URLs, JPEG quality 80, no result storage, originals in file storage.
cat >"$WORK/thumbor.conf" <<EOF
ALLOW_UNSAFE_URL = True
QUALITY = 80
RESULT_STORAGE = None
STORAGE = 'thumbor.storages.file_storage'
FILE_STORAGE_ROOT_PATH = '$WORK/thumbor-storage'
HTTP_LOADER_VALIDATE_CERTS = False
MAX_AGE = 86400
EOF

peak_rss_mb() {  # the sum of VmHWM over the given pids and their children, in MB
    local total=0 pid kb
    for pid in "$@"; do
        for p in $pid $(pgrep -P "$pid" || true); do
            kb=$(awk '/VmHWM/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
            total=$((total + ${kb:-0}))
        done
    done
    echo $((total / 1024))
}

RESULTS="$WORK/results.tsv"
: >"$RESULTS"
run_wrk() {  # name connections walk start base_url pids...
    local name=$1 conns=$2 walk=$3 start=$4 base=$5
    shift 5
    local out="$WORK/wrk-$name-$conns.txt"
    WALK=$walk START=$start wrk -t2 -c"$conns" -d"${SECONDS_PER_RUN}s" --latency -s "$WORK/urls.lua" "$base" >"$out" 2>&1
    local rps p50 p99 errors rss
    rps=$(awk '/Requests\/sec/ {print $2}' "$out")
    p50=$(awk '$1 == "50%" {print $2}' "$out")
    p99=$(awk '$1 == "99%" {print $2}' "$out")
    errors=$(awk '/Non-2xx or 3xx responses/ {print $5}' "$out")
    rss=$(peak_rss_mb "$@")
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$name" "$conns" "$rps" "$p50" "$p99" "${errors:-0}" "$rss" | tee -a "$RESULTS"
}

start_thumbor() {
    THUMBOR_PORT=$(free_port)
    "$VENV/bin/thumbor" -p "$THUMBOR_PORT" -i 127.0.0.1 -c "$WORK/thumbor.conf" --processes 2 -l error \
        >"$WORK/thumbor.log" 2>&1 &
    THUMBOR_PID=$!
    PIDS+=("$THUMBOR_PID")
    wait_for "http://127.0.0.1:$THUMBOR_PORT/healthcheck"
}

start_kf() {  # cache dir
    KF_PORT=$(free_port)
    "$KF" serve --port "$KF_PORT" --unsafe --allow-source "127.0.0.1:$PORT" --cache-dir "$1" --log-level error \
        >"$WORK/kf.log" 2>&1 &
    KF_PID=$!
    PIDS+=("$KF_PID")
    wait_for "http://127.0.0.1:$KF_PORT/healthz"
}

stop() {  # pid: the process and the children it forked (thumbor's --processes workers outlive their parent)
    local children
    children=$(pgrep -P "$1" || true)
    kill "$1" $children 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

printf "entry\tconnections\trequests/s\tp50\tp99\tnon-2xx\tpeak RSS MB\n"
for round in $(seq "$ROUNDS"); do
    echo "== round $round of $ROUNDS" >&2
    start=$((round * 100000))

    start_thumbor
    # Originals into thumbor's storage first, as kf's are below: both runs then start with the originals cached.
    for i in $(seq 0 $((PHOTOS - 1))); do
        curl -sf -o /dev/null "http://127.0.0.1:$THUMBOR_PORT/unsafe/fit-in/16x16/127.0.0.1:$PORT/$(printf %02d "$i").jpg" || true
    done
    run_wrk "thumbor cold" 16 1 "$start" "http://127.0.0.1:$THUMBOR_PORT" "$THUMBOR_PID"
    stop "$THUMBOR_PID"

    rm -rf "$WORK/kf-cache"
    start_kf "$WORK/kf-cache"
    for i in $(seq 0 $((PHOTOS - 1))); do
        curl -sf -o /dev/null "http://127.0.0.1:$KF_PORT/unsafe/fit-in/16x16/127.0.0.1:$PORT/$(printf %02d "$i").jpg" || true
    done
    run_wrk "kf cold" 16 1 "$start" "http://127.0.0.1:$KF_PORT" "$KF_PID"
    # Warm: the fixed 2 x PHOTOS URLs, made once, then served from memory.
    for i in $(seq 0 $((PHOTOS - 1))); do
        p=$(printf %02d "$i")
        curl -sf -o /dev/null "http://127.0.0.1:$KF_PORT/unsafe/fit-in/256x256/filters:quality(80)/127.0.0.1:$PORT/$p.jpg"
        curl -sf -o /dev/null "http://127.0.0.1:$KF_PORT/unsafe/fit-in/256x256/filters:quality(80):format(webp)/127.0.0.1:$PORT/$p.jpg"
    done
    run_wrk "kf warm" 16 0 0 "http://127.0.0.1:$KF_PORT" "$KF_PID"
    stop "$KF_PID"
done

echo "== kf cold at 64 connections (peak RSS)" >&2
rm -rf "$WORK/kf-cache"
start_kf "$WORK/kf-cache"
run_wrk "kf cold" 64 1 900000 "http://127.0.0.1:$KF_PORT" "$KF_PID"
stop "$KF_PID"

echo
python3 - "$RESULTS" <<'PY'
import statistics, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
def ms(text):
    value = float(text[:-2]) if text.endswith("ms") else float(text[:-2]) / 1000 if text.endswith("us") else float(text[:-1]) * 1000
    return value
groups = {}
for name, conns, rps, p50, p99, errors, rss in rows:
    groups.setdefault((name, conns), []).append((float(rps), ms(p50), ms(p99), int(errors), int(rss)))
print("| entry | connections | runs | requests/s (median) | p50 ms | p99 ms | non-2xx | peak RSS MB |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for (name, conns), runs in groups.items():
    med = lambda i: statistics.median(r[i] for r in runs)
    print(f"| {name} | {conns} | {len(runs)} | {med(0):.0f} | {med(1):.1f} | {med(2):.1f} | {sum(r[3] for r in runs)} | {max(r[4] for r in runs)} |")
thumbor = groups.get(("thumbor cold", "16"))
kf = groups.get(("kf cold", "16"))
if thumbor and kf:
    ratio = statistics.median(r[0] for r in kf) / statistics.median(r[0] for r in thumbor)
    print(f"\nkf cold / thumbor cold requests/s: {ratio:.2f}x; p99 {statistics.median(r[2] for r in kf):.0f} ms vs "
          f"{statistics.median(r[2] for r in thumbor):.0f} ms")
PY
