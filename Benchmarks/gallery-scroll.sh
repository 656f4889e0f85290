#!/usr/bin/env bash
# `kf gallery` scrolled end to end through 500 photo URLs: Debian's wallpaper photos (plasma-workspace-wallpapers,
# 1-15 MP JPEGs, each served several times under different names) from a loopback nginx, in a 1000x720 window of
# 200x150 tiles under Xvfb, scrolled top to bottom by the gallery's own script (--scroll-through).
#
#   Benchmarks/gallery-scroll.sh [seconds]     # scroll over 40 s by default; from anywhere
#
# Entries:
#   cold    an empty cache: every tile that comes on screen is downloaded and thumbnailed while the grid scrolls
#   warm    the same cache again: thumbnails from the disk cache
#   still   an empty cache, no scrolling, a screenshot at 5 s: what the first screen and the prefetched rows cost
# GTK draws with its cairo renderer (GSK_RENDERER=cairo): Xvfb has no GPU, and GTK's GL renderer would run on
# Mesa's llvmpipe, a software GL (about 80 MB more resident memory, slower frames).
# Reported from the gallery's --report: frames drawn, main-loop time per frame (the frame clock's before-paint to
# after-paint: ticks, layout, drawing) p50/p99/max, the gap between frames p99 and the gaps over two frames, loads
# started/cancelled/loaded, shown (loads whose image reached their tile, the loaded ones and those that came as the
# tile was leaving the screen), tiles ever on screen against images decoded (the library's metrics), tiles prefetched
# (bytes only), peak RSS (VmHWM).
# Goals (issue 19): frame time p99 < 16 ms while loading, peak RSS < 400 MB, no decode of a tile never on screen
# (decoded <= ever on screen).
set -euo pipefail

SCROLL_SECONDS="${1:-40}"
TILES=500
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/loopback-server.sh
source "$ROOT/Benchmarks/lib/loopback-server.sh"
# shellcheck source=lib/wallpapers.sh
source "$ROOT/Benchmarks/lib/wallpapers.sh"

require_wallpaper_origin xvfb-run:"xvfb xauth"

build_kf_release kf-gallery

WORK="$(mktemp -d -t kf-gallery-bench.XXXXXX)"
chmod 755 "$WORK"
mkdir -p "$WORK/corpus"
link_wallpapers "$WORK/corpus" 21  # 24 photos: 504 names
SERVE_DIRECTIVES='add_header Cache-Control "max-age=3600" always;' serve_directory "$WORK/corpus" "$WORK"
ORIGIN_PID=$SERVER_PID
cleanup() {
    kill "$ORIGIN_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
# (sed -n, not head: head closing the pipe early would end the script under pipefail)
ls "$WORK/corpus" | sed -n "1,${TILES}p" | sed "s|^|http://127.0.0.1:$PORT/|" >"$WORK/urls.txt"
echo "== $(wc -l <"$WORK/urls.txt") URLs of $(ls "$WORK/corpus" | wc -l) photo copies on 127.0.0.1:$PORT ($SERVER)"

gallery() { # NAME CACHE ARGS...: runs kf gallery under Xvfb, its report into $WORK/NAME.json
    local name=$1 cache=$2
    shift 2
    GSK_RENDERER=cairo GTK_A11Y=none xvfb-run -a -s "-screen 0 1280x1024x24" "$KF" gallery --url-file "$WORK/urls.txt" \
        --size 1000x720 --cell 200 --cache-dir "$cache" --report "$WORK/$name.json" "$@" 2>"$WORK/$name.err" || {
        cat "$WORK/$name.err" >&2
        return 1
    }
}

echo "== cold: scrolling over $SCROLL_SECONDS s, empty cache"
gallery cold "$WORK/cache" --scroll-through "$SCROLL_SECONDS"
echo "== warm: the same again, thumbnails in the disk cache"
gallery warm "$WORK/cache" --scroll-through "$SCROLL_SECONDS"
echo "== still: the first screen, empty cache, a screenshot at 5 s"
gallery still "$WORK/cache-still" --screenshot "$WORK/still.png" --screenshot-after 5

python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
print()
print("| entry | frames | frame p50 ms | frame p99 ms | frame max ms | gap p99 ms | gaps > 2 frames | started | cancelled | loaded | shown | on screen | decoded | prefetched | peak RSS MB |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for name in ("cold", "warm", "still"):
    r = json.load(open(f"{work}/{name}.json"))
    f, c = r["frames"], r["counts"]
    print(f"| {name} | {f['frames']} | {f['workP50Milliseconds']:.2f} | {f['workP99Milliseconds']:.2f} | "
          f"{f['workMaxMilliseconds']:.1f} | {f['intervalP99Milliseconds']:.1f} | {f['longGaps']} | {c['started']} | "
          f"{c['cancelled']} | {c['loaded']} | {c.get('shown', '-')} | {c['everVisible']} | {r['imagesDecoded']} | {c['prefetchRequested']} | "
          f"{r['peakRSSMegabytes']} |")
PY
