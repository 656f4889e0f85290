#!/usr/bin/env bash
# The shape of the library's core, counted in its source (Sources/Kingfisher), at the working tree or at commits:
#   continuations   every spelling that suspends on a continuation (withCheckedContinuation and its throwing,
#                   unsafe and sanitized forms, wrappers included)
#   tasks           unstructured tasks made (Task { }, Task(priority:) { }, Task.init, Task<...>, Task.detached)
#   child tasks     structured child tasks (a task group's addTask, async let), counted apart
#   locked states   states behind a lock (Locked(...) and Locked<...>(...))
# Comments are not counted.
#
#   Benchmarks/core-shape.sh                  # the working tree
#   Benchmarks/core-shape.sh ea569f1 HEAD     # at each commit
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

count() {
    local dir=$1
    local code
    code="$(grep -rhv '^[[:space:]]*//' "$dir" --include='*.swift')"
    local continuations tasks children locks
    continuations=$(grep -oE 'with(Sanitized)?(Checked|Unsafe)(Throwing)?Continuation\b' <<<"$code" | wc -l)
    tasks=$(grep -oE '\bTask(\.init|\.detached)?[[:space:]]*(\([^)]*\))?[[:space:]]*\{|\bTask(<[^>]*>)?\.(init|detached)\b|\bTask<[^>]*>[[:space:]]*\(' <<<"$code" |
        sort | wc -l)
    children=$(grep -oE '\.addTask(UnlessCancelled)?\b|\basync let\b' <<<"$code" | wc -l)
    locks=$(grep -oE '\bLocked(<([^<>]|<[^<>]*>)*>)?\(' <<<"$code" | wc -l)
    printf '%-12s continuations %3d   tasks %3d   child tasks %3d   locked states %3d\n' "$2" "$continuations" "$tasks" \
        "$children" "$locks"
}

if [ $# -eq 0 ]; then
    count "$ROOT/Sources/Kingfisher" "worktree"
    exit 0
fi
for commit in "$@"; do
    tree="$(mktemp -d)"
    git -C "$ROOT" archive "$commit" Sources/Kingfisher | tar -x -C "$tree"
    count "$tree/Sources/Kingfisher" "$(git -C "$ROOT" rev-parse --short "$commit")"
    rm -rf "$tree"
done
