#!/usr/bin/env bash
# How long `kf` takes to start and exit (`kf --version`, and `kf --help`, which needs no pixels), against the floor:
# a C program linked against libvips that prints libvips' version (Benchmarks/floor/start_floor.c: the loader maps what libvips brings, its static
# initialisers run). Both run ROUNDS times, interleaved; medians, the ratio, and each one's peak RSS.
#
#   Benchmarks/start-time.sh [rounds] [kf...]    # rounds defaults to 50; kf defaults to a release build here
#
# Goal (issue 30): kf --version within 1.5x of the floor in the same run.
set -euo pipefail

ROUNDS="${1:-50}"
shift || true
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$(mktemp -d -t kf-start.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

if [ $# -eq 0 ]; then
    echo "== building kf (release)"
    (cd "$ROOT" && swift build -c release --product kf 2>&1 | grep -E "error|Build" | tail -2)
    set -- "$(cd "$ROOT" && swift build -c release --show-bin-path)/kf"
fi
echo "== building the floor"
cc -O2 -o "$WORK/floor" "$ROOT/Benchmarks/floor/start_floor.c" $(pkg-config --cflags --libs vips)

python3 - "$ROUNDS" "$WORK/floor" "$@" <<'PY'
import os, resource, statistics, subprocess, sys, time

rounds = int(sys.argv[1])
floor, kfs = sys.argv[2], sys.argv[3:]
# `kf --version` loads libvips (to name its version); `kf --help` is a run that needs no pixels, and a kf that loads
# libvips only when first needed starts it without.
entries = [("floor (C, libvips)", [floor])] + [
    (f"{k} {flag}", [k, flag]) for k in kfs for flag in ("--version", "--help")]

def once(command):
    start = time.perf_counter()
    pid = os.posix_spawn(command[0], command, os.environ, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        sys.exit(f"{command} exited with {status}")
    return elapsed * 1000, usage.ru_maxrss / 1024

def libraries(binary):
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    return sum(1 for line in out.splitlines() if "=>" in line or line.strip().startswith("/"))

for _, command in entries:  # warm the page cache
    once(command)
times = {name: [] for name, _ in entries}
rss = {name: 0.0 for name, _ in entries}
for _ in range(rounds):
    for name, command in entries:
        ms, mb = once(command)
        times[name].append(ms)
        rss[name] = max(rss[name], mb)

floor_median = statistics.median(times[entries[0][0]])
print()
print("| entry | median ms | p90 ms | x floor | peak RSS MB | size MB | shared libraries |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name, command in entries:
    values = sorted(times[name])
    median = statistics.median(values)
    p90 = values[int(len(values) * 0.9) - 1]
    size = os.path.getsize(command[0]) / 1e6
    print(f"| {name} | {median:.1f} | {p90:.1f} | {median / floor_median:.2f} | {rss[name]:.0f} | {size:.1f} | "
          f"{libraries(command[0])} |")
PY
