#!/usr/bin/env bash
# `kf serve` across hosts behind nginx, on one machine: network namespaces stand for the hosts (an origin, three
# `kf serve` hosts each with its own cache, an nginx front), joined by veth pairs to a bridge in a namespace of its
# own; every address is in 10.77.0.0/24 inside those namespaces, nothing outside them is reached. The front picks
# the host by the image's source (`hash $kf_source consistent`, docs/SERVING.md), so every size of one original is
# made on one host, which fetches the original once; `proxy_next_upstream` moves a request of a host that died to
# the next one. wrk loads the front for SECONDS over the wallpaper photos x 100 widths; one `kf serve` host is
# killed (SIGKILL) at a third of the run. Then the same with round-robin, for comparison. Root only.
#
#   Benchmarks/serve-hosts.sh [seconds]                 # 30 s by default; from anywhere; KF_BINARY=PATH for that kf
#   Benchmarks/serve-hosts.sh --shared-store [seconds]  # the hosts also share one result store (an S3 bucket)
#
# Prints per run: hosts=3 requests=N failed=F origin_fetches_per_original=X
# Goals (issue 30): F = 0, X <= 1.4 with the hash (round-robin gives about 3).
#
# With --shared-store, a sixth namespace runs moto's S3-compatible server (from .venv-test, scripts/test-venv) and
# every host runs with --result-store s3://kf-results/bench; each run also prints results_made_per_result: the
# results written to the bucket over the distinct results written (each host writes what it makes).
set -euo pipefail

SHARED_STORE=0
if [ "${1:-}" = "--shared-store" ]; then
    SHARED_STORE=1
    shift
fi
DURATION="${1:-30}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib/loopback-server.sh
source "$ROOT/Benchmarks/lib/loopback-server.sh"
# shellcheck source=lib/wallpapers.sh
source "$ROOT/Benchmarks/lib/wallpapers.sh"
[ "$(id -u)" -eq 0 ] || { echo "error: serve-hosts.sh needs root (network namespaces)" >&2; exit 1; }
require_wallpaper_origin wrk:wrk
build_kf_release

WORK="$(mktemp -d -t kf-serve-hosts.XXXXXX)"
chmod 755 "$WORK"
mkdir -p "$WORK/corpus"
link_wallpapers "$WORK/corpus"
PHOTOS=$(ls "$WORK/corpus" | wc -l)
TAG="k$$"  # names of this run's namespaces and links
NET="$TAG-net"
HOSTS=(origin s1 s2 s3 front)
declare -A ADDRESS=([origin]=10.77.0.10 [s1]=10.77.0.11 [s2]=10.77.0.12 [s3]=10.77.0.13 [front]=10.77.0.20 [store]=10.77.0.30)
if [ "$SHARED_STORE" = 1 ]; then
    HOSTS+=(store)
    "$ROOT/scripts/test-venv"
fi
STORE="http://${ADDRESS[store]}:9000"
# The store's settings for kf and boto3, and no others of the caller's (no profile, no ~/.aws).
STORE_ENV=(-u AWS_PROFILE -u AWS_SESSION_TOKEN -u AWS_ENDPOINT_URL_S3 AWS_ACCESS_KEY_ID=bench
    AWS_SECRET_ACCESS_KEY=bench AWS_REGION=us-east-1 "AWS_ENDPOINT_URL=$STORE" "HOME=$WORK")
PIDS=()

stop_processes() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    PIDS=()
}
cleanup() {
    stop_processes
    for host in "${HOSTS[@]}"; do ip netns del "$TAG-$host" 2>/dev/null || true; done
    ip netns del "$NET" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # so that a stop runs the cleanup too

echo "== the hosts: ${HOSTS[*]} on a bridge in namespace $NET"
ip netns add "$NET"
ip -n "$NET" link add br0 type bridge
ip -n "$NET" link set br0 up
for host in "${HOSTS[@]}"; do
    ns="$TAG-$host"
    ip netns add "$ns"
    ip link add "$TAG${host:0:2}b" type veth peer name "$TAG${host:0:2}h"
    ip link set "$TAG${host:0:2}b" netns "$NET"
    ip link set "$TAG${host:0:2}h" netns "$ns"
    ip -n "$NET" link set "$TAG${host:0:2}b" master br0 up
    ip -n "$ns" link set "$TAG${host:0:2}h" name eth0
    ip -n "$ns" addr add "${ADDRESS[$host]}/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
done
# (Started in the background, a command is run with `ip netns exec` itself, not through a function: `$!` is then
# the command's own process, which `kill` stops.)
in_host() { local host=$1; shift; ip netns exec "$TAG-$host" "$@"; }

nginx_head() { # DIR: the top of an nginx configuration running in the foreground, its files in DIR
    cat <<CONF
worker_processes 1;
daemon off;
pid $1/nginx.pid;
error_log $1/error.log;
events { worker_connections 1024; }
CONF
}

# The origin: nginx serving the photos, logging each path it is asked for.
mkdir -p "$WORK/origin"
{ nginx_head "$WORK/origin" && cat <<CONF; } >"$WORK/origin/nginx.conf"
http {
    log_format path '\$uri';
    access_log $WORK/origin/access.log path;
    server {
        listen ${ADDRESS[origin]}:8080;
        root $WORK/corpus;
        add_header Cache-Control "max-age=3600" always;
    }
}
CONF
ORIGIN="${ADDRESS[origin]}:8080"

# The front: nginx choosing the host, by the image's source or round-robin.
front_config() { # POLICY (hash | round-robin)
    local balance=""
    [ "$1" = hash ] && balance='hash $kf_source consistent;'
    { nginx_head "$WORK/front" && cat <<CONF; } >"$WORK/front/nginx.conf"
http {
    access_log off;
    # The image's source: what follows thumbor's signature and options (docs/SERVING.md).
    map \$uri \$kf_source {
        "~^/[^/]+(?:/(?:meta|trim(?::[^/]*)?|\\d+x\\d+:\\d+x\\d+|(?:full-|adaptive-)?fit-in|-?\\d*x-?\\d*|left|center|right|top|middle|bottom|smart|filters:[^/]*))*/(?<source>.+)\$" \$source;
        default \$uri;
    }
    upstream kf_serve {
        $balance
        server ${ADDRESS[s1]}:8888 max_fails=1 fail_timeout=30s;
        server ${ADDRESS[s2]}:8888 max_fails=1 fail_timeout=30s;
        server ${ADDRESS[s3]}:8888 max_fails=1 fail_timeout=30s;
        keepalive 32;
    }
    server {
        listen ${ADDRESS[front]}:8080;
        location / {
            proxy_pass http://kf_serve;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_next_upstream error timeout http_502 http_503 http_504;
            proxy_next_upstream_tries 3;
            proxy_connect_timeout 1s;
            proxy_read_timeout 30s;
        }
    }
}
CONF
}

cat >"$WORK/load.lua" <<LUA
dofile("$ROOT/Benchmarks/lib/wrk-failures.lua")
local photos = $PHOTOS
local origin = "$ORIGIN"
local counter = 0
request = function()
    local i = counter
    counter = counter + 1
    local width = 256 - (math.floor(i / photos) % 100)
    return wrk.format("GET", string.format("/unsafe/fit-in/%dx256/%s/%02d.jpg", width, origin, i % photos))
end
LUA


run() { # POLICY
    local policy=$1
    rm -rf "$WORK/front" "$WORK"/cache-*
    mkdir -p "$WORK/front"
    : >"$WORK/origin/access.log"
    ip netns exec "$TAG-origin" nginx -c "$WORK/origin/nginx.conf" -p "$WORK/origin" &
    PIDS+=($!)
    local serving=() store_flags=()
    if [ "$SHARED_STORE" = 1 ]; then
        # moto's server, answering every key (it checks no signatures unless told to), logging each request.
        ip netns exec "$TAG-store" "$ROOT/.venv-test/bin/moto_server" -H "${ADDRESS[store]}" -p 9000 \
            >"$WORK/store.log" 2>&1 &
        PIDS+=($!)
        wait_for "$STORE/" in_host front
        in_host front env "${STORE_ENV[@]}" "$ROOT/.venv-test/bin/python3" -c \
            "import boto3; boto3.client('s3').create_bucket(Bucket='kf-results')"
        store_flags=(--result-store s3://kf-results/bench)
    fi
    for host in s1 s2 s3; do
        ip netns exec "$TAG-$host" env "${STORE_ENV[@]}" "$KF" serve --host "${ADDRESS[$host]}" --port 8888 --unsafe \
            --allow-source "$ORIGIN" --cache-dir "$WORK/cache-$host" --log-level error "${store_flags[@]}" \
            >"$WORK/$host.log" 2>&1 &
        PIDS+=($!)
        serving+=($!)
    done
    front_config "$policy"
    ip netns exec "$TAG-front" nginx -c "$WORK/front/nginx.conf" -p "$WORK/front" &
    PIDS+=($!)
    wait_for "http://${ADDRESS[origin]}:8080/00.jpg" in_host front
    for host in s1 s2 s3; do wait_for "http://${ADDRESS[$host]}:8888/healthz" in_host front; done
    wait_for "http://${ADDRESS[front]}:8080/healthz" in_host front
    : >"$WORK/origin/access.log"  # the probes' requests do not count

    ip netns exec "$TAG-front" wrk -t2 -c16 -d"${DURATION}s" -s "$WORK/load.lua" "http://${ADDRESS[front]}:8080" \
        >"$WORK/wrk-$policy.txt" 2>&1 &
    local load=$!
    sleep $((DURATION / 3))
    kill -9 "${serving[0]}"
    wait "${serving[0]}" 2>/dev/null || true
    wait "$load" || true
    stop_processes
    local counts
    counts="$(grep -oE '^requests=[0-9]+ failed=[0-9]+' "$WORK/wrk-$policy.txt" || echo "requests=0 failed=-1")"
    local fetches originals
    fetches=$(grep -c '\.jpg$' "$WORK/origin/access.log" || true)
    originals=$(grep '\.jpg$' "$WORK/origin/access.log" | sort -u | wc -l)
    local made="" writes distinct
    if [ "$SHARED_STORE" = 1 ]; then
        writes=$(grep -c '"PUT /kf-results/bench/' "$WORK/store.log" || true)
        distinct=$(grep -oE '"PUT /kf-results/bench/[^ ]+' "$WORK/store.log" | sort -u | wc -l)
        made=$(python3 -c "import sys; w, d = int(sys.argv[1]), int(sys.argv[2]); print(f' results_made_per_result={w / d if d else 0:.2f}')" "$writes" "$distinct")
    fi
    python3 -c "import sys; f, o = int(sys.argv[1]), int(sys.argv[2]); print(f'{sys.argv[3]}: hosts=3 {sys.argv[4]} origin_fetches_per_original={f / o if o else 0:.2f}{sys.argv[5]}')" \
        "$fetches" "$originals" "$policy" "$counts" "$made"
}

echo "== ${DURATION}s of wrk against the front; kf serve host s1 killed at $((DURATION / 3))s$([ "$SHARED_STORE" = 1 ] && echo "; results shared in s3://kf-results/bench")"
run hash
run round-robin
