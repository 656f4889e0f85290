#!/usr/bin/env bash
# Side by side on the photos of Debian's plasma-workspace-wallpapers (24 JPEGs, 120 jobs): kf against Pillow,
# aiohttp + Pillow and curl + vipsthumbnail, interleaved in one session. Prints a markdown table.
#
#   Benchmarks/compare.sh [rounds] [--only TEXT]   # rounds defaults to 3; run from anywhere
#   Benchmarks/compare.sh 3 --corpus gnome-webp    # workload (a) on GNOME's 16 WebP wallpapers x 5 (80 jobs;
#                                                  # apt: gnome-backgrounds)
#   KF_BINARY=/path/to/kf Benchmarks/compare.sh    # that kf instead of building this checkout's (an A/B)
#
# Workloads:
#   (a) 256x256 JPEG Q80 thumbnails from local files
#   (b) fetch from a loopback nginx + thumbnail + disk cache (kf also runs it a second time, warm)
#   (c) fetch only, from the same nginx
# It installs what it needs (apt: plasma-workspace-wallpapers nginx-light libvips-tools curl; a Python venv in
# Benchmarks/.venv with Pillow and aiohttp from PyPI when the python3 on PATH lacks them) and builds kf in release
# mode.
set -euo pipefail

ROUNDS="${1:-3}"
shift || true   # further arguments go to compare.py, e.g. --only kf
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

need=()
[ -d /usr/share/wallpapers/Volna ] || need+=(plasma-workspace-wallpapers)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx-light)
command -v vipsthumbnail >/dev/null || need+=(libvips-tools)
command -v curl >/dev/null || need+=(curl)
case " $* " in *" gnome-webp "*|*"=gnome-webp "*) [ -d /usr/share/backgrounds/gnome ] || need+=(gnome-backgrounds) ;; esac
if [ ${#need[@]} -gt 0 ]; then
    echo "== installing ${need[*]}"
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get install -y "${need[@]}" >/dev/null 2>&1 || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y "${need[@]}" >/dev/null; }
fi

PY="${PYTHON:-python3}"
if ! "$PY" -c "import PIL, aiohttp" 2>/dev/null; then
    VENV="$ROOT/Benchmarks/.venv"
    if [ ! -x "$VENV/bin/python" ]; then
        echo "== creating $VENV (Pillow, aiohttp)"
        "$PY" -m venv "$VENV" 2>/dev/null || { apt-get install -y python3-venv >/dev/null; "$PY" -m venv "$VENV"; }
        "$VENV/bin/pip" install -q pillow aiohttp
    fi
    PY="$VENV/bin/python"
fi

if [ -n "${KF_BINARY:-}" ]; then  # another build's kf, e.g. for an A/B
    KF="$KF_BINARY"
else
    echo "== building kf (release)"
    (cd "$ROOT" && scripts/bootstrap >/dev/null && swift build -c release --product kf 2>&1 | grep -E "error|Compiling kf|Build" | tail -2)
    KF="$(cd "$ROOT" && swift build -c release --show-bin-path)/kf"
fi
[ -x "$KF" ] || { echo "kf build failed"; exit 1; }

exec "$PY" "$ROOT/Benchmarks/compare.py" --kf "$KF" --python "$PY" --rounds "$ROUNDS" "$@"
