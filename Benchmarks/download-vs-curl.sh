#!/usr/bin/env bash
# Side by side over loopback: ImageDownloader vs `curl --parallel --parallel-max 8`, same server, same URLs,
# same run. Then peak RSS of a process downloading 200 x 5 MB bodies at concurrency 8.
#
#   Benchmarks/download-vs-curl.sh [rounds]      # from the repository root or anywhere; rounds defaults to 7
#
# It builds the Benchmarks package's DownloadVsCurl helper (server + client) in release mode, starts the loopback
# server (KingfisherTestSupport.TestHTTPServer) in its own process, and runs, interleaved per round:
#   kingfisher-raw     ImageDownloader with a processor that skips decoding (transport only, what curl does)
#   kingfisher-decode  ImageDownloader with the default processor (download + libvips decode)
#   curl               curl -s --parallel --parallel-max 8 -K <200 urls, output /dev/null>
# and prints medians and ratios (throughput of Kingfisher / throughput of curl; >= 0.9 is the target).
set -euo pipefail

ROUNDS="${1:-7}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
command -v curl >/dev/null || { echo "curl is missing (apt-get install -y curl)"; exit 1; }

echo "== building (release)"
(cd "$ROOT/Benchmarks" && swift build -c release --product DownloadVsCurl 2>&1 | grep -E "error|Build complete" || true)
BIN="$(cd "$ROOT/Benchmarks" && swift build -c release --show-bin-path)/DownloadVsCurl"
[ -x "$BIN" ] || { echo "build failed"; exit 1; }

# Server in its own process: prints "PORT n", serves until its stdin closes.
coproc SERVER { "$BIN" serve; }
read -r _ PORT <&"${SERVER[0]}"
trap 'exec {SERVER[1]}>&-; wait "$SERVER_PID" 2>/dev/null || true' EXIT
echo "== server on 127.0.0.1:$PORT (200 x ~500 KB PNG at /small/i.png, 200 x ~5 MB PNG at /big/i.png)"

echo "== throughput, 200 x ~500 KB, concurrency 8, $ROUNDS rounds"
"$BIN" compare "http://127.0.0.1:$PORT" "$ROUNDS"

echo "== peak RSS, 200 x ~5 MB, concurrency 8 (decoding each, results dropped as they arrive)"
"$BIN" rss "http://127.0.0.1:$PORT" raw
"$BIN" rss "http://127.0.0.1:$PORT" decode
