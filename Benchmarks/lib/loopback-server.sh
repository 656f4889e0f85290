# Sourced by the benchmark scripts: serves a directory of files on 127.0.0.1 with nginx (python3 -m http.server
# when nginx is missing), for as long as the script runs.
#
#   serve_directory DIR WORK      # WORK: a scratch directory for nginx's configuration, pid and log
#
# SERVE_DIRECTIVES, when set, is added to nginx's server block (e.g. an `add_header`).
#
# Sets PORT, SERVER (what serves) and SERVER_PID (stop it with `kill "$SERVER_PID"`), and returns once the server
# answers a request for DIR's first file.
serve_directory() {
    local dir=$1 work=$2 py=/usr/bin/python3
    PORT=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    if command -v nginx >/dev/null; then
        SERVER=nginx
        cat >"$work/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 256; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 10000;
    types { image/jpeg jpg; }
    server {
        listen 127.0.0.1:$PORT;
        root $dir;
        ${SERVE_DIRECTIVES:-}
    }
}
EOF
        nginx -c "$work/nginx.conf" -p "$work" &
    else
        SERVER="python3 -m http.server"
        (cd "$dir" && exec "$py" -m http.server --bind 127.0.0.1 "$PORT" >/dev/null 2>&1) &
    fi
    SERVER_PID=$!
    local first
    # sed reads to the end: `head -1` would close the pipe early, and under pipefail ls's SIGPIPE ended the
    # calling script now and then (a large directory), leaving the server running.
    first=$(ls "$dir" | sed -n 1p)
    for _ in $(seq 100); do
        "$py" -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/$first').read()" 2>/dev/null \
            && return 0
        sleep 0.1
    done
    echo "the loopback server did not answer" >&2
    return 1
}
