#!/usr/bin/env bash
# `kf serve` and thumbor 7.8 side by side on the same photos and URLs: every filter and the geometry cases. For
# each URL: both statuses, result sizes and formats, and the mean absolute difference (0-255) of the two results
# rendered at 64 x 64 RGB (when both answered with an image of about one size). thumbor runs from PyPI in
# Benchmarks/.venv-thumbor with its PIL engine and no detectors; both read the originals from one loopback nginx.
#
#   Benchmarks/thumbor-parity.sh            # from anywhere; prints a markdown table and a summary
#
# Goal (issue 31): the same status, format and size (+-1 px) everywhere, a difference < 10 where the filter is
# deterministic (noise is not: its pattern is each server's own).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/loopback-server.sh
source "$ROOT/Benchmarks/lib/loopback-server.sh"
# shellcheck source=lib/wallpapers.sh
source "$ROOT/Benchmarks/lib/wallpapers.sh"

require_wallpaper_origin
VENV="$ROOT/Benchmarks/.venv-thumbor"
if [ ! -x "$VENV/bin/thumbor" ]; then
    echo "== installing thumbor 7.8 into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "thumbor==7.8.*" libthumbor
fi
# thumbor writes (and Pillow reads) HEIF only with pillow-heif.
"$VENV/bin/python" -c "import pillow_heif" 2>/dev/null || "$VENV/bin/pip" install -q pillow-heif

build_kf_release

WORK="$(mktemp -d -t kf-parity.XXXXXX)"
chmod 755 "$WORK"
mkdir -p "$WORK/corpus"
# Two photos (a landscape one and the same turned to portrait) and a PNG with transparency.
"$VENV/bin/python" "$ROOT/Benchmarks/thumbor-parity.py" prepare "$WORK/corpus"
serve_directory "$WORK/corpus" "$WORK"
ORIGIN_PID=$SERVER_PID
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill $(pgrep -P "$pid" || true) "$pid" 2>/dev/null || true; done
    kill "$ORIGIN_PID" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

cat >"$WORK/thumbor.conf" <<EOF
ALLOW_UNSAFE_URL = True
QUALITY = 80
RESULT_STORAGE = None
STORAGE = 'thumbor.storages.no_storage'
DETECTORS = []
EOF
THUMBOR_PORT=$(free_port)
"$VENV/bin/thumbor" -p "$THUMBOR_PORT" -i 127.0.0.1 -c "$WORK/thumbor.conf" -l error >"$WORK/thumbor.log" 2>&1 &
PIDS+=($!)
wait_for "http://127.0.0.1:$THUMBOR_PORT/healthcheck"

KF_PORT=$(free_port)
"$KF" serve --port "$KF_PORT" --unsafe --allow-source "127.0.0.1:$PORT" --cache-dir "$WORK/kf-cache" \
    --log-level error >"$WORK/kf.log" 2>&1 &
PIDS+=($!)
wait_for "http://127.0.0.1:$KF_PORT/healthz"

echo "== thumbor 7.8 on :$THUMBOR_PORT, kf serve on :$KF_PORT, originals on 127.0.0.1:$PORT"
timeout 600 "$VENV/bin/python" "$ROOT/Benchmarks/thumbor-parity.py" compare \
    "http://127.0.0.1:$THUMBOR_PORT" "http://127.0.0.1:$KF_PORT" "127.0.0.1:$PORT"
