#!/usr/bin/env bash
# Downsampling a 5120x2880 JPEG to fit 256x256: Kingfisher's DownsamplingImageProcessor against pyvips'
# thumbnail_buffer (same libvips), interleaved in one run. Reports median ms per image, peak RSS and ratios.
# Installs what it needs: Debian's plasma-workspace-wallpapers (the photos), GNU time, and pyvips from PyPI.
set -euo pipefail
cd "$(dirname "$0")"

ROUNDS=${ROUNDS:-5}
ITERATIONS=${ITERATIONS:-30}
SIDE=256

if [ ! -d /usr/share/wallpapers ] || [ ! -x /usr/bin/time ]; then
    apt-get install -y -qq plasma-workspace-wallpapers time >/dev/null
fi
python3 -c "import pyvips" 2>/dev/null || pip install -q pyvips
# A baseline and a progressive JPEG (progressive decoding buffers every coefficient, even when shrinking).
PHOTOS=${PHOTOS:-"/usr/share/wallpapers/Honeywave/contents/images/5120x2880.jpg /usr/share/wallpapers/Flow/contents/images/5120x2880.jpg"}

swift build -c release --product DownsampleTimer -q
TIMER="$(swift build -c release --show-bin-path)/DownsampleTimer"

run_photo() {
PHOTO=$1
echo
echo "photo: $PHOTO ($(stat -c %s "$PHOTO") bytes), $ROUNDS rounds x $ITERATIONS images, fit ${SIDE}x${SIDE}"
kf_ms=(); py_ms=(); kf_rss=(); py_rss=()
for round in $(seq "$ROUNDS"); do
    out=$( { /usr/bin/time -f "%M" "$TIMER" "$PHOTO" "$ITERATIONS" "$SIDE"; } 2>&1 )
    kf_ms+=("$(echo "$out" | head -1 | cut -d' ' -f1)"); kf_rss+=("$(echo "$out" | tail -1)")
    out=$( { /usr/bin/time -f "%M" python3 compare-downsampling.py "$PHOTO" "$ITERATIONS" "$SIDE"; } 2>&1 )
    py_ms+=("$(echo "$out" | head -1 | cut -d' ' -f1)"); py_rss+=("$(echo "$out" | tail -1)")
    echo "round $round: kingfisher ${kf_ms[-1]} ms, ${kf_rss[-1]} KB | pyvips ${py_ms[-1]} ms, ${py_rss[-1]} KB"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
km=$(median "${kf_ms[@]}"); pm=$(median "${py_ms[@]}"); kr=$(median "${kf_rss[@]}"); pr=$(median "${py_rss[@]}")
echo
echo "| | median ms / image | images/s | peak RSS (MB) |"
echo "|---|---|---|---|"
awk -v k="$km" -v p="$pm" -v kr="$kr" -v pr="$pr" 'BEGIN {
    printf "| Kingfisher DownsamplingImageProcessor | %.2f | %.1f | %.1f |\n", k, 1000 / k, kr / 1024
    printf "| pyvips thumbnail_buffer + copy_memory | %.2f | %.1f | %.1f |\n", p, 1000 / p, pr / 1024
    printf "\nspeed ratio (pyvips time / Kingfisher time): %.2f (goal >= 0.95)\n", p / k
    printf "memory ratio (Kingfisher RSS / pyvips RSS): %.2f (goal <= 1.2)\n", kr / pr
}'
}

for photo in $PHOTOS; do run_photo "$photo"; done
