#!/usr/bin/env bash
# Revalidating a warm cache whose every entry is stale, against downloading it again and against curl doing the
# same conditional requests: the 120-URL compare corpus (Debian's plasma-workspace-wallpapers photos x 5 names,
# 128 MB) from a loopback nginx that sends its ETag and Last-Modified with `Cache-Control: max-age=0`.
#
#   Benchmarks/revalidate-vs-curl.sh [rounds]      # rounds defaults to 7; from anywhere
#
# Entries, interleaved each round, wall clock including process start, medians:
#   kf revalidate   kf fetch URLS --original --cache-dir WARM          (120 conditional requests, 120 x 304)
#   kf refetch      kf fetch URLS --original --cache-dir WARM --force-refresh   (120 x 200)
#   curl etag       curl --parallel --parallel-max 8, per URL --etag-compare FILE   (120 x 304)
# Goal (issue 17): kf revalidate >= 5x faster than kf refetch, and at least as fast as curl etag.
#
# Then the library inside one running process, as a server keeps its cache (Sources/RevalidateTimer): the same
# 120 URLs downsampled to 256 and cached once, then rounds of 120 retrievals 8 at a time whose records are all
# stale (120 conditional requests, 120 x 304, the thumbnails from memory), against rounds with .forceRefresh.
set -euo pipefail

ROUNDS="${1:-7}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/loopback-server.sh
source "$ROOT/Benchmarks/lib/loopback-server.sh"
# shellcheck source=lib/wallpapers.sh
source "$ROOT/Benchmarks/lib/wallpapers.sh"

require_wallpaper_origin

build_kf_release
echo "== building RevalidateTimer (release)"
(cd "$ROOT/Benchmarks" && swift build -c release --product RevalidateTimer 2>&1 | grep -E "error|complete" || true)
TIMER="$(cd "$ROOT/Benchmarks" && swift build -c release --show-bin-path)/RevalidateTimer"

WORK="$(mktemp -d -t kf-revalidate.XXXXXX)"
chmod 755 "$WORK"  # nginx's workers run as another user
mkdir -p "$WORK/corpus" "$WORK/dl" "$WORK/etags"
link_wallpapers "$WORK/corpus" 5
SERVE_DIRECTIVES='add_header Cache-Control "max-age=0" always;' serve_directory "$WORK/corpus" "$WORK"
trap 'kill "$SERVER_PID" 2>/dev/null; rm -rf "$WORK"' EXIT

URLS=()
: >"$WORK/save.cfg"
: >"$WORK/compare.cfg"
for file in "$WORK"/corpus/*.jpg; do
    name="$(basename "$file")"
    url="http://127.0.0.1:$PORT/$name"
    URLS+=("$url")
    # `next` starts the options of the next URL afresh (`silent` included), so every block says it again.
    for config in save compare; do
        [ -s "$WORK/$config.cfg" ] && echo "next" >>"$WORK/$config.cfg"
        printf 'silent\nurl = "%s"\noutput = "%s/dl/%s"\netag-%s = "%s/etags/%s"\n' \
            "$url" "$WORK" "$name" "$config" "$WORK" "$name" >>"$WORK/$config.cfg"
    done
done
echo "== ${#URLS[@]} URLs, $SERVER on 127.0.0.1:$PORT, $ROUNDS rounds, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"

# Warm both: the kf cache (entries and their HTTP records) and curl's ETag files.
"$KF" fetch "${URLS[@]}" --original --cache-dir "$WORK/cache" >/dev/null 2>&1
curl -s --parallel --parallel-max 8 -K "$WORK/save.cfg"
check="$("$KF" fetch "${URLS[@]}" --original --cache-dir "$WORK/cache" --json 2>/dev/null \
    | python3 -c 'import sys, json, collections; print(dict(collections.Counter(json.loads(l)["validation"] for l in sys.stdin)))')"
echo "== what a kf revalidation round reports: $check"

seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null 2>&1; end=$(date +%s.%N); echo "$end - $start" | bc; }
: >"$WORK/times"
for round in $(seq "$ROUNDS"); do
    echo "revalidate $(seconds "$KF" fetch "${URLS[@]}" --original --cache-dir "$WORK/cache")" >>"$WORK/times"
    echo "refetch $(seconds "$KF" fetch "${URLS[@]}" --original --cache-dir "$WORK/cache" --force-refresh)" >>"$WORK/times"
    echo "curl $(seconds curl -s --parallel --parallel-max 8 -K "$WORK/compare.cfg")" >>"$WORK/times"
    echo "round $round: $(tail -3 "$WORK/times" | tr '\n' ' ')"
done
printf '%s\n' "${URLS[@]}" >"$WORK/urls.txt"
echo "== the library in one process, $ROUNDS rounds"
"$TIMER" --url-file "$WORK/urls.txt" --out "$WORK" --rounds "$ROUNDS" >"$WORK/in-process.json"
cat "$WORK/in-process.json"
python3 - "$WORK/times" "$WORK/in-process.json" <<'PY'
import sys, statistics, collections
times = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, value = line.split()
    times[name].append(float(value))
median = {name: statistics.median(values) for name, values in times.items()}
print()
print("| entry | median s | range s |")
print("|---|---:|---:|")
labels = {"revalidate": "kf revalidate (120 x 304)", "refetch": "kf refetch (--force-refresh, 120 x 200)",
          "curl": "curl --etag-compare (120 x 304)"}
for name in ["revalidate", "refetch", "curl"]:
    print(f"| {labels[name]} | {median[name]:.3f} | {min(times[name]):.3f}-{max(times[name]):.3f} |")
print()
print(f"revalidate vs refetch: {median['refetch'] / median['revalidate']:.2f}x faster (goal >= 5x)")
print(f"revalidate vs curl etag: {median['curl'] / median['revalidate']:.2f}x curl's speed (goal >= 1x)")
import json
inside = json.load(open(sys.argv[2]))
print()
print("| in one process (library) | median s |")
print("|---|---:|")
print(f"| revalidate 120 stale thumbnails (120 x 304, from memory) | {inside['revalidate_s']:.4f} |")
print(f"| refetch them (.forceRefresh: download, decode, downsample) | {inside['refetch_s']:.3f} |")
print()
print(f"in-process revalidate vs curl etag process: {median['curl'] / inside['revalidate_s']:.2f}x curl's speed")
print(f"in-process revalidate vs in-process refetch: {inside['refetch_s'] / inside['revalidate_s']:.1f}x faster")
PY
