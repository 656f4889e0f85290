#!/usr/bin/env bash
# The disk cache's checksum against SHA-256 (what it replaced) on 128 MB, the size of the compare corpus: the
# CRC-32C of Sources/CChecksum (hardware instructions where the CPU has them), best of 5, and OpenSSL's SHA-256
# (SHA-NI where the CPU has it, as BoringSSL in swift-crypto uses) in 16 KB blocks.
#
#   Benchmarks/checksum-speed.sh [megabytes]      # 128 by default; from anywhere
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
MB="${1:-128}"
BIN="$(mktemp -d)"
trap 'rm -rf "$BIN"' EXIT
cc -O2 -I "$ROOT/Sources/CChecksum/include" "$ROOT/Sources/CChecksum/crc32c.c" "$ROOT/Benchmarks/checksum/speed.c" \
    -o "$BIN/speed"
"$BIN/speed" "$MB"
if command -v openssl >/dev/null; then
    # openssl speed reports bytes per second; the time for MB megabytes follows from it.
    rate="$(openssl speed -bytes 16384 -seconds 2 -evp sha256 2>/dev/null | awk '/^sha256/ {print $2}')"
    rate="${rate%k}"
    awk -v r="$rate" -v mb="$MB" 'BEGIN { printf "SHA-256 of %d MB: %.1f ms (%.2f GB/s, openssl speed -evp sha256)\n", mb, mb * 1048576 / (r * 1000) * 1000, r * 1000 / 1e9 }'
fi
