#!/usr/bin/env bash
# A burst of concurrent retrievals: the 50 largest photos of Debian's plasma-workspace-wallpapers (served by nginx, or
# python3 -m http.server without it, on loopback), each retrieved 20 times at once through one KingfisherManager
# (1,000 retrievals), downsampled to fit 256 x 256, memory cache only. Prints BurstTimer's JSON line per round:
# time, failures, peak RSS of the process, its threads at the end. Goals (issue 16): peak RSS < 300 MB; decodes
# never more than the cores (the decode executor has one thread per core, see DecodeStageBoundTests).
#
#   Benchmarks/burst.sh [rounds]      # rounds defaults to 3
set -euo pipefail
ROUNDS="${1:-3}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ -d /usr/share/wallpapers ] || apt-get install -y plasma-workspace-wallpapers >/dev/null

echo "== building BurstTimer (release)"
(cd "$ROOT/Benchmarks" && swift build -c release --product BurstTimer 2>&1 | grep -E "error|complete" || true)
BIN="$(cd "$ROOT/Benchmarks" && swift build -c release --show-bin-path)/BurstTimer"
[ -x "$BIN" ] || { echo "build failed"; exit 1; }

WORK="$(mktemp -d /tmp/kf-burst-bench.XXXXXX)"
chmod 755 "$WORK"
SERVER_PID=""
cleanup() {
    [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/www"
# The 50 largest photos (full-size wallpapers, not their screenshots), repeated under other names when fewer.
mapfile -t FILES < <(find /usr/share/wallpapers -name '*.jpg' -printf '%s %p\n' | sort -rn | head -50 | cut -d' ' -f2-)
N=${#FILES[@]}
for i in $(seq 0 49); do ln -s "${FILES[$((i % N))]}" "$WORK/www/$i.jpg"; done
cat "${FILES[@]}" >/dev/null
# shellcheck source=lib/loopback-server.sh
source "$ROOT/Benchmarks/lib/loopback-server.sh"
serve_directory "$WORK/www" "$WORK"
for i in $(seq 0 49); do echo "http://127.0.0.1:$PORT/$i.jpg"; done >"$WORK/urls.txt"
echo "== 50 URLs, $N distinct photos ($(du -Lcb "$WORK"/www/*.jpg | tail -1 | cut -f1) bytes), load: $(uptime | sed 's/.*load average: //')"
for round in $(seq "$ROUNDS"); do
    "$BIN" --url-file "$WORK/urls.txt" --per-url 20 --size 256
done
