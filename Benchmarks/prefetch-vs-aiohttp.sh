#!/usr/bin/env bash
# Side by side over loopback: ImagePrefetcher (DownsamplingImageProcessor 256x256 + a fresh temp-dir disk cache,
# JPEG Q80) against aiohttp + Pillow (draft + thumbnail to 256, JPEG Q80, 2 worker processes), same server, same
# 200 URLs, same run, interleaved round by round. Prints a markdown table: images/s medians, the ratio, peak RSS.
#
#   Benchmarks/prefetch-vs-aiohttp.sh [rounds]      # from anywhere; rounds defaults to 3; needs root for apt-get
#
# Environment:
#   KF_ENV="VIPS_CONCURRENCY=1 MALLOC_ARENA_MAX=2"   extra environment for the Kingfisher side only
#   KF_CONCURRENCY=5                                 ImagePrefetcher.maxConcurrentDownloads (default 5)
#   PY_CONCURRENCY=4                                 downloads in flight per Python worker (default 4)
#
# Corpus: every JPEG of Debian's plasma-workspace-wallpapers (/usr/share/wallpapers, all resolutions), repeated to
# 200 URLs with distinct query strings so each is its own cache key. Served by nginx (python3 -m http.server if
# nginx is missing) from a temp dir of symlinks.
set -euo pipefail

ROUNDS="${1:-3}"
COUNT=200
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY=/usr/bin/python3  # Debian's, where python3-aiohttp and python3-pil live

need=()
[ -d /usr/share/wallpapers ] && find /usr/share/wallpapers -name '*.jpg' -print -quit | grep -q . \
    || need+=(plasma-workspace-wallpapers)
"$PY" -c 'import aiohttp' 2>/dev/null || need+=(python3-aiohttp)
"$PY" -c 'import PIL' 2>/dev/null || need+=(python3-pil)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
    echo "== installing ${need[*]}"
    apt-get install -y "${need[@]}" >/dev/null
fi

echo "== building PrefetchTimer (release)"
(cd "$ROOT/Benchmarks" && swift build -c release --product PrefetchTimer 2>&1 | grep -E "error|complete" || true)
BIN="$(cd "$ROOT/Benchmarks" && swift build -c release --show-bin-path)/PrefetchTimer"
[ -x "$BIN" ] || { echo "build failed"; exit 1; }

WORK="$(mktemp -d /tmp/kf-prefetch-bench.XXXXXX)"
chmod 755 "$WORK"
SERVER_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/www"
mapfile -t FILES < <(find /usr/share/wallpapers -name '*.jpg' | sort)
for i in "${!FILES[@]}"; do ln -s "${FILES[$i]}" "$WORK/www/$i.jpg"; done
N=${#FILES[@]}
BYTES=$(du -Lcb "$WORK"/www/*.jpg | tail -1 | cut -f1)
cat "${FILES[@]}" >/dev/null  # into the page cache before the first round

# shellcheck source=lib/loopback-server.sh
source "$ROOT/Benchmarks/lib/loopback-server.sh"
serve_directory "$WORK/www" "$WORK"

for i in $(seq 0 $((COUNT - 1))); do echo "http://127.0.0.1:$PORT/$((i % N)).jpg?r=$i"; done >"$WORK/urls.txt"

echo "== corpus: $N JPEGs, $((BYTES / 1048576)) MB, as $COUNT URLs; server: $SERVER on 127.0.0.1:$PORT"
echo "== load before: $(uptime | sed 's/.*load average/load average/')"
echo "== Kingfisher env: ${KF_ENV:-(none)}"

# run <label> <command...>: runs under /usr/bin/time -v; appends "label images_per_s peak_rss_kb" to results.
run() {
    local label=$1
    shift
    local out="$WORK/out-$label"
    mkdir -p "$out"
    if ! /usr/bin/time -v -o "$WORK/time.txt" "$@" --url-file "$WORK/urls.txt" --out "$out" >"$WORK/json.txt" \
        2>"$WORK/stderr.txt"; then
        echo "   $label FAILED:"; cat "$WORK/json.txt" "$WORK/stderr.txt" | tail -5; exit 1
    fi
    local rate rss
    rate=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))['images_per_s'])" "$WORK/json.txt")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
    printf '   %-10s %6.1f images/s, peak RSS %5d MB\n' "$label" "$rate" $((rss / 1024))
    echo "$label $rate $rss" >>"$WORK/results.txt"
    rm -rf "$out"
}

KF=(env ${KF_ENV:-} "$BIN" --size 256 --quality 80 --concurrency "${KF_CONCURRENCY:-5}")
PYA=("$PY" "$ROOT/Benchmarks/anchors/aiohttp_pillow.py" --size 256 --quality 80 --workers 2
    --concurrency "${PY_CONCURRENCY:-4}")
for round in $(seq "$ROUNDS"); do
    echo "== round $round/$ROUNDS"
    if [ $((round % 2)) -eq 1 ]; then
        run kingfisher "${KF[@]}"
        run aiohttp "${PYA[@]}"
    else
        run aiohttp "${PYA[@]}"
        run kingfisher "${KF[@]}"
    fi
done
echo "== load after: $(uptime | sed 's/.*load average/load average/')"

"$PY" - "$WORK/results.txt" "$ROUNDS" <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
rate = {side: [float(r[1]) for r in rows if r[0] == side] for side in ("kingfisher", "aiohttp")}
rss = {side: [int(r[2]) / 1024 for r in rows if r[0] == side] for side in ("kingfisher", "aiohttp")}
kf, py = statistics.median(rate["kingfisher"]), statistics.median(rate["aiohttp"])
print()
print(f"| side ({sys.argv[2]} rounds) | images/s (median) | all rounds | peak RSS (max) |")
print("|---|---|---|---|")
print(f"| Kingfisher ImagePrefetcher | {kf:.1f} | {', '.join(f'{v:.1f}' for v in rate['kingfisher'])} "
      f"| {max(rss['kingfisher']):.0f} MB |")
print(f"| aiohttp + Pillow, 2 processes | {py:.1f} | {', '.join(f'{v:.1f}' for v in rate['aiohttp'])} "
      f"| {max(rss['aiohttp']):.0f} MB |")
print()
print(f"ratio (Kingfisher / anchor): **{kf / py:.2f}x** (goal >= 1.2x); "
      f"Kingfisher peak RSS {max(rss['kingfisher']):.0f} MB (goal < 250 MB)")
EOF
