#!/usr/bin/env bash
# `kf prefetch --original` (ImagePrefetcher storing original bytes after a header check) against
# `curl --parallel --parallel-max 8`, with `kf fetch --original` beside them: compare.sh's workload (c), the same
# 120-URL corpus (Debian's plasma-workspace-wallpapers photos x 5 names) from a loopback nginx, interleaved
# rounds, medians, peak RSS of each process tree. Prints compare.py's markdown table.
#
#   Benchmarks/prefetch-original-vs-curl.sh [rounds]      # rounds defaults to 7; from anywhere
#
# Goal (issue 16): kf prefetch --original >= 0.9x curl in the same run, peak RSS < 100 MB.
set -euo pipefail

ROUNDS="${1:-7}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

need=()
[ -d /usr/share/wallpapers/Volna ] || need+=(plasma-workspace-wallpapers)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v curl >/dev/null || need+=(curl)
if [ ${#need[@]} -gt 0 ]; then
    echo "== installing ${need[*]}"
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get install -y "${need[@]}" >/dev/null 2>&1 || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y "${need[@]}" >/dev/null; }
fi

echo "== building kf (release)"
(cd "$ROOT" && swift build -c release --product kf 2>&1 | grep -E "error|Build" | tail -2)
KF="$(cd "$ROOT" && swift build -c release --show-bin-path)/kf"
[ -x "$KF" ] || { echo "kf build failed"; exit 1; }

exec python3 "$ROOT/Benchmarks/compare.py" --kf "$KF" --rounds "$ROUNDS" --workloads c
