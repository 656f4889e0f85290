#!/usr/bin/env bash
# `kf prefetch --original` of several kf builds against `curl --parallel --parallel-max 8`, on compare.py's
# workload (c): the 120-URL corpus (the wallpaper photos x 5 names) from a loopback nginx, each entry once per round
# into a fresh directory (the previous one deleted first, as compare.py does), the entries interleaved. Prints each
# entry's median wall time and its ratio to curl's median, then each build's per-round ratios (curl's time in that
# round over the build's). Many short rounds: this machine's speed drifts by ±30% within minutes, so what compares
# is what ran in the same rounds.
#
#   Benchmarks/prefetch-original-ab.sh ROUNDS KF...        # e.g. 30 /tmp/kf-before .build/release/kf
#
# Each KF is a kf binary; nothing is built.
set -euo pipefail

ROUNDS="${1:?rounds}"
shift
[ $# -gt 0 ] || { echo "usage: $0 ROUNDS KF..." >&2; exit 2; }
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/Benchmarks/lib/loopback-server.sh"
source "$ROOT/Benchmarks/lib/wallpapers.sh"

WORK="$(mktemp -d -t kf-prefetch-ab.XXXXXX)"
chmod 755 "$WORK"
mkdir -p "$WORK/corpus"
link_wallpapers "$WORK/corpus" 5
serve_directory "$WORK/corpus" "$WORK"
trap 'kill "$SERVER_PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
ls "$WORK/corpus" | sed -n "1,120p" | sed "s|^|http://127.0.0.1:$PORT/|" >"$WORK/urls.txt"
i=0
while read -r url; do
    i=$((i + 1))
    printf 'url = "%s"\noutput = "%d"\n' "$url" "$i" >>"$WORK/curl.cfg"
done <"$WORK/urls.txt"

for round in $(seq 1 "$ROUNDS"); do
    for entry in "$@" curl; do
        out="$WORK/out"
        rm -rf "$out"
        mkdir -p "$out"
        start=$(date +%s.%N)
        if [ "$entry" = curl ]; then
            curl -s --parallel --parallel-max 8 --output-dir "$out" -K "$WORK/curl.cfg" >/dev/null 2>&1
        else
            "$entry" prefetch --url-file "$WORK/urls.txt" --original --cache-dir "$out/cache" >/dev/null 2>&1 || {
                echo "failed: $entry" >&2
                exit 1
            }
        fi
        end=$(date +%s.%N)
        echo "$entry $start $end"
    done
done | python3 -c '
import collections, statistics, sys
times, order = collections.defaultdict(list), []
for line in sys.stdin:
    entry, start, end = line.split()
    times[entry].append(float(end) - float(start))
    if entry not in order:
        order.append(entry)
curl = statistics.median(times["curl"])
rounds = len(times["curl"])
print(f"{rounds} rounds, 120 photos (128 MB) each")
for entry in order:
    median = statistics.median(times[entry])
    print(f"{entry:40} median {median:.3f} s  {120 / median:6.1f} images/s  {curl / median:.2f}x curl")
for entry in order[:-1]:
    ratios = sorted(c / k for c, k in zip(times["curl"], times[entry]))
    print(f"{entry:40} per-round ratio to curl: median {statistics.median(ratios):.2f}, {ratios[0]:.2f} to {ratios[-1]:.2f}")
'
