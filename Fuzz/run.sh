#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/Targets/ into .build-fuzz/ and runs each, one after the other, for SECONDS,
# seeded with Fuzz/Corpus/, at nice 19 (fuzzing must not slow builds down). Prints per target: seconds run,
# executions, exec/s, coverage (cov: edges, ft: features, from libFuzzer's last status line), corpus size and findings.
#
#   Fuzz/run.sh SECONDS [TARGET...]     e.g. Fuzz/run.sh 600; Fuzz/run.sh 60 ImageFormatFuzzer
#
# Each target is its parser's own source files compiled with an entry file (no SwiftPM: `swift build` and CI never
# see it), by swiftc -sanitize=fuzzer,address, unoptimised by default (FUZZ_OPT=-O for speed): the parsers index
# UnsafeBufferPointers, whose bounds checks only debug builds keep, and the targets hand them libFuzzer's own
# buffer, so AddressSanitizer also sees a read past its end. Inputs that crash, trip an assertion or take longer than
# FUZZ_TIMEOUT seconds (default 30) land in FUZZ_FINDINGS (default .build-fuzz/findings/TARGET/); libFuzzer stops
# a target at its first finding. The corpus it grows is kept in .build-fuzz/corpus/TARGET/ and reused by the next
# run (FUZZ_FRESH=1 starts from the seeds alone). Logs: .build-fuzz/logs/TARGET.log. Exits 1 if anything was found.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:?usage: Fuzz/run.sh SECONDS [TARGET...]}
shift
swiftc=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
build=$root/.build-fuzz
findings=${FUZZ_FINDINGS:-$build/findings}
image=$root/Sources/Kingfisher/Image

# Target name -> the library files it compiles (besides Fuzz/Targets/NAME.swift, or NAME.c for a C target, which
# clang builds with the same sanitizers).
clang=${CLANG:-$(dirname "$swiftc")/clang}
declare -A sources=(
    [JPEGEighthFuzzer]="$root/Sources/CJPEGEighth/jpeg_eighth.c"
    [ProgressiveJPEGDCStreamFuzzer]="$image/ProgressiveJPEGDCStream.swift $image/JPEGFrameHeader.swift"
    [JPEGFrameHeaderFuzzer]="$image/JPEGFrameHeader.swift"
    [BMPHeaderFuzzer]="$image/BMPHeader.swift"
    [ImageHeaderSizeFuzzer]="$image/ImageHeaderSize.swift $image/ImageFormat.swift $image/JPEGFrameHeader.swift
        $image/BMPHeader.swift $root/Sources/Kingfisher/General/Kingfisher.swift"
    [ImageFormatFuzzer]="$image/ImageFormat.swift $image/BMPHeader.swift $root/Sources/Kingfisher/General/Kingfisher.swift"
    [ImageDataEndFuzzer]="$image/ImageDataEnd.swift $image/ImageFormat.swift $image/BMPHeader.swift
        $root/Sources/Kingfisher/General/Kingfisher.swift"
)
order=(JPEGEighthFuzzer ProgressiveJPEGDCStreamFuzzer JPEGFrameHeaderFuzzer BMPHeaderFuzzer ImageHeaderSizeFuzzer ImageFormatFuzzer
    ImageDataEndFuzzer)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${order[@]}")
for target in "${targets[@]}"; do
    [ -n "${sources[$target]:-}" ] || { echo "unknown target $target (known: ${order[*]})" >&2; exit 2; }
done

# Builds TARGET into BINARY: a C target with clang, a Swift one with swiftc, both with libFuzzer and AddressSanitizer.
build_target() {
    local target=$1 binary=$2
    # shellcheck disable=SC2086  # the source lists split on whitespace
    if [ -f "$root/Fuzz/Targets/$target.c" ]; then
        nice -n 19 "$clang" "${FUZZ_OPT:--O0}" -g -fsanitize=fuzzer,address -I"$root/Sources/CJPEGEighth/include" \
            ${sources[$target]} "$root/Fuzz/Targets/$target.c" -lm -o "$binary"
    else
        nice -n 19 "$swiftc" -swift-version 6 "${FUZZ_OPT:--Onone}" -g -parse-as-library \
            -sanitize=fuzzer,address -use-ld=lld \
            -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault \
            -enable-upcoming-feature MemberImportVisibility -module-name "$target" \
            ${sources[$target]} "$root/Fuzz/Targets/$target.swift" -o "$binary"
    fi
}

mkdir -p "$build/logs" "$build/corpus"
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
{
    echo "| target | seconds | executions | exec/s | cov | ft | corpus (files/bytes) | findings |"
    echo "|---|---:|---:|---:|---:|---:|---:|---|"
} >"$summary"
status=0
for target in "${targets[@]}"; do
    binary=$build/$target
    echo "== $target: building" >&2
    if ! build_target "$target" "$binary" >"$build/logs/$target.build.log" 2>&1
    then
        cat "$build/logs/$target.build.log" >&2
        echo "| $target | build failed | | | | | | |" >>"$summary"
        status=1
        continue
    fi
    corpus=$build/corpus/$target
    [ "${FUZZ_FRESH:-0}" = 1 ] && rm -rf "$corpus"
    mkdir -p "$corpus" "$findings/$target"
    log=$build/logs/$target.log
    echo "== $target: fuzzing for $seconds s (log: $log)" >&2
    started=$(date +%s)
    nice -n 19 "$binary" -max_total_time="$seconds" -timeout="${FUZZ_TIMEOUT:-30}" -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$findings/$target/" "$corpus" "$root/Fuzz/Corpus" >"$log" 2>&1
    ran=$(($(date +%s) - started))
    # The last status line ("#N DONE cov: C ft: F corp: U/Sb ... exec/s: E ...") and the final stats.
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    field() { sed -nE "s/.* $1: ([^ ]+).*/\1/p" <<<"$last"; }
    stat() { sed -nE "s/^stat::$1: *([0-9]+).*/\1/p" "$log" | tail -1; }
    executions=$(stat number_of_executed_units)
    rate=$(stat average_exec_per_sec)
    found=$(find "$findings/$target" -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) \
        -newer "$binary" -printf '%f ' 2>/dev/null)
    [ -n "$found" ] && status=1
    echo "| $target | $ran | ${executions:-?} | ${rate:-?} | $(field cov) | $(field ft) | $(field corp) | ${found:-none} |" \
        >>"$summary"
done
cat "$summary"
exit $status
