#!/usr/bin/env bash
# The shape of the library's core, counted in its source (Sources/Kingfisher), at the working tree or at commits:
#   continuations   every spelling that suspends on a continuation (withCheckedContinuation and its throwing,
#                   unsafe and sanitized forms, wrappers included)
#   tasks           unstructured tasks made (Task { }, Task(priority:) { }, Task.init, Task<...>, Task.detached)
#   child tasks     structured child tasks (a task group's addTask, async let), counted apart
#   locked states   states behind a lock (Locked(...) and Locked<...>(...))
#   other locks     NSLock, Mutex, os_unfair_lock and pthread mutexes made outside KingfisherLocking
#   atomics         Atomic<...> and ManagedAtomic values
#   thread-locals   ThreadSpecificVariable, threadDictionary, pthread_getspecific
#   task-locals     @TaskLocal values (scoped to a task and what it calls, never shared between two tasks)
#   static state    static stored properties that hold state or a resource (a lock, an atomic, a queue, a pool,
#                   a task, a `static var` with a value), not constants
#   files, lines    Swift files and their lines
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
    continuations=$( { grep -oE 'with(Sanitized)?(Checked|Unsafe)(Throwing)?Continuation\b' <<<"$code" || true; } | wc -l)
    tasks=$(grep -oE '\bTask(\.init|\.detached)?[[:space:]]*(\([^)]*\))?[[:space:]]*\{|\bTask(<[^>]*>)?\.(init|detached)\b|\bTask<[^>]*>[[:space:]]*\(' <<<"$code" |
        sort | wc -l)
    children=$( { grep -oE '\.addTask(UnlessCancelled)?\b|\basync let\b' <<<"$code" || true; } | wc -l)
    locks=$( { grep -oE '\bLocked(<([^<>]|<[^<>]*>)*>)?\(' <<<"$code" || true; } | wc -l)
    others=$( { grep -oE '\bNSLock\(\)|\bNSRecursiveLock\(\)|\bMutex(<[^>]*>)?\(|os_unfair_lock\(|pthread_mutex_init' <<<"$code" || true; } | wc -l)
    atomics=$( { grep -oE '\b(Managed)?Atomic(<[^>]*>)?\(' <<<"$code" || true; } | wc -l)
    threadlocals=$( { grep -oE '\bThreadSpecificVariable\b|\bthreadDictionary\b|\bpthread_getspecific\b' <<<"$code" || true; } | wc -l)
    tasklocals=$( { grep -oE '@TaskLocal\b' <<<"$code" || true; } | wc -l)
    statics=$(grep -E '\bstatic (let|var) ' <<<"$code" |
        grep -cE 'static var [A-Za-z_]+[^{]*= |static let [A-Za-z_]+[^=]*= *(Locked|Atomic|ManagedAtomic|NSLock|DispatchQueue|DispatchSemaphore|OperationQueue|ThreadSpecificVariable|MappingPool|PeriodicWork|Limiter|DiskIO|NIOThreadPool|Task)\b' || true)
    files=$(find "$dir" -name '*.swift' | wc -l)
    lines=$(find "$dir" -name '*.swift' -exec cat {} + | wc -l)
    printf '%-12s continuations %3d   tasks %3d   child tasks %3d   locked states %3d\n' "$2" "$continuations" "$tasks" \
        "$children" "$locks"
    printf '%-12s other locks %3d   atomics %3d   thread-locals %3d   task-locals %3d   static state %3d   files %3d   lines %5d\n' \
        "" "$others" "$atomics" "$threadlocals" "$tasklocals" "$statics" "$files" "$lines"
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
