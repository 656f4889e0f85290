#!/usr/bin/env bash
# Does decoding progressive JPEG previews slow the final image? Time to the final image over loopback with and
# without `.progressiveJPEG`, for the progressive photos of Debian's plasma-workspace-wallpapers.
#
#   Benchmarks/progressive-previews.sh [rounds] [photos]     # defaults: 3 rounds, 8 photos
#
# ProgressiveTimer (release) serves the photos from an in-process loopback server, at full speed and paced
# (64 KB every 5 ms) so that scans arrive one by one, and retrieves each one both ways per round (default
# processor: a full decode), alternating the order. Runs under `nice`; prints medians, ratios and previews per
# image. The goal: ratio <= 1.10.
set -euo pipefail
ROUNDS="${1:-3}"
COUNT="${2:-8}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ -d /usr/share/wallpapers ] || apt-get install -y plasma-workspace-wallpapers >/dev/null

# Progressive JPEGs have an SOF2 marker (FF C2) before their first scan.
mapfile -t PHOTOS < <(find /usr/share/wallpapers -path '*/images*/*.jpg' -type f -size +20k | sort |
    while read -r f; do python3 -c "
import sys
d = open(sys.argv[1], 'rb').read(1 << 16)
sys.exit(0 if b'\xff\xc2' in d else 1)" "$f" && echo "$f"; done | head -n "$COUNT")
[ "${#PHOTOS[@]}" -gt 0 ] || { echo "no progressive photos found"; exit 1; }

echo "== building ProgressiveTimer (release)"
(cd "$ROOT/Benchmarks" && nice swift build -c release --product ProgressiveTimer 2>&1 | grep -E "error|Build" | tail -1)
BIN="$(cd "$ROOT/Benchmarks" && swift build -c release --show-bin-path)/ProgressiveTimer"
echo "== ${#PHOTOS[@]} progressive photos: $(du -ch "${PHOTOS[@]}" | tail -1 | cut -f1)"
nice "$BIN" "$ROUNDS" "${PHOTOS[@]}"
