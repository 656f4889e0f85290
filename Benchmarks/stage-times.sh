#!/usr/bin/env bash
# One core, image by image: what Kingfisher's decode path costs against Pillow and against libvips from C.
#
#   Benchmarks/stage-times.sh [rounds]      # from anywhere; rounds defaults to 5
#
# 1. Thumbnails of the 24 wallpaper photos (the corpus of compare.sh) to fit 256x256 + a JPEG Q80 encode:
#    StageTimer (DownsamplingImageProcessor, then jpegRepresentation) against anchors/pillow_stages.py (draft +
#    thumbnail LANCZOS + save). Sums over the images of each one's fastest round.
# 2. A full decode of a 256x256 JPEG (the disk-hit benchmark's size): StageTimer against Pillow's and the C floor
#    (floor/decode_floor.c: copy_memory vs computing on the calling thread in 4 MB and 64 KB strips).
# Uses the Python of compare.sh (Benchmarks/.venv when the system one lacks Pillow).
set -euo pipefail
ROUNDS="${1:-5}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${PYTHON:-python3}"
"$PY" -c "import PIL" 2>/dev/null || PY="$ROOT/Benchmarks/.venv/bin/python"
"$PY" -c "import PIL" 2>/dev/null || { echo "no Pillow: run Benchmarks/compare.sh once (it makes the venv)"; exit 1; }
[ -d /usr/share/wallpapers ] || apt-get install -y plasma-workspace-wallpapers >/dev/null

mapfile -t PHOTOS < <(find /usr/share/wallpapers -path '*/images*/*.jpg' -type f -size +20k | sort)
WORK="$(mktemp -d /tmp/kf-stage-times.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

echo "== building StageTimer (release) and decode_floor"
(cd "$ROOT/Benchmarks" && swift build -c release --product StageTimer 2>&1 | grep -E "error|Build" | tail -1)
TIMER="$(cd "$ROOT/Benchmarks" && swift build -c release --show-bin-path)/StageTimer"
# shellcheck disable=SC2046
cc -O2 -o "$WORK/decode_floor" "$ROOT/Benchmarks/floor/decode_floor.c" $(pkg-config --cflags --libs vips)
"$PY" -c "
from PIL import Image
w = h = 256
image = Image.new('RGB', (w, h))
image.putdata([(x * 255 // w, y * 255 // h, ((x * 31 + y * 17) ^ (x * y)) & 255) for y in range(h) for x in range(w)])
image.save('$WORK/small.jpg', quality=80)
"

echo "== ${#PHOTOS[@]} photos to fit 256x256 + JPEG Q80, $ROUNDS rounds, load $(cut -d' ' -f1 /proc/loadavg)"
echo "Kingfisher: $("$TIMER" "$ROUNDS" 256 "${PHOTOS[@]}" | head -1)"
echo "Pillow:     $("$PY" "$ROOT/Benchmarks/anchors/pillow_stages.py" "$ROUNDS" 256 "${PHOTOS[@]}")"
echo "== full decode of a 256x256 JPEG, 1000 rounds"
echo "Kingfisher: $("$TIMER" 1000 0 "$WORK/small.jpg" | head -1)"
echo "Pillow:     $("$PY" "$ROOT/Benchmarks/anchors/pillow_stages.py" 1000 0 "$WORK/small.jpg")"
echo "libvips from C, one thread:"
"$WORK/decode_floor" "$WORK/small.jpg" 1000 2>/dev/null
