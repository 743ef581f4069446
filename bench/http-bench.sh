#!/usr/bin/env bash
# http-bench.sh: the gateway's HTTP API against the bare node:http floor of the load-generator
# bench (BENCH_DIR).
#
#   1. the bench's run-http.sh with EXTRA=gateway: GET /api/v1/report of the gateway (simulator
#      meter, no auth) beside node-fixed and node-stringify, the shared tool's own method. A second,
#      identical copy of the floor (floor-copy) runs as one more EXTRA target: its ratio to
#      node-fixed shows how far two identical servers drift apart in the same run on this machine.
#   2. Digest: the same method (CPU pinning from lib.sh, 1 s unmeasured warm-up, alternated
#      repetitions, medians and ratios by summarize.mjs) for node-fixed, gateway and
#      gateway-digest. run-http.sh cannot send credentials, so this part drives wrk itself;
#      gateway-digest uses bench/http-digest.lua (a new nonce count and MD5 response per request,
#      prepared before wrk's measured window so that the client's MD5 does not take the CPU the
#      server shares with it; a fresh nonce per wrk run).
#   3. SSE fan-out: bench/http-sse-fanout.ts, 200 clients, delivery latency percentiles.
#
# RUNS > 1 repeats parts 1 and 2 with fresh server processes each time (gateways, floor copy and
# run-http.sh's own floor) and ends with every run's ratios and their median (bench/http-runs.ts):
# to node-fixed, and for part 1 also to the floor copy. On this kind of shared VM two identical
# servers differ by up to a third for their whole life, so one run's ratio is one draw from that
# spread.
#
# Everything runs as compiled JavaScript (tsc into .tmp/bench-dist), as the daemon does.
#
# Environment: BENCH_DIR (the load-generator bench folder beside the repository), CONNS (1 64), DURATION (5),
# REPS (3), RUNS (1), BASE_PORT (18180), PIN / BENCH_CPU (see lib.sh), NODE (node), RESULTS
# (bench/results), SKIP (parts to skip, e.g. "1 3").
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$HERE")
BENCH_DIR=$(cd "${BENCH_DIR:-$ROOT/../shared/bench}" && pwd)
# shellcheck source=/dev/null
. "$BENCH_DIR/lib.sh"

CONNS=${CONNS:-"1 64"}
DURATION=${DURATION:-5}
REPS=${REPS:-3}
BASE_PORT=${BASE_PORT:-18180}
NODE=${NODE:-node}
RESULTS=${RESULTS:-$HERE/results}
SKIP=${SKIP:-}
RUNS=${RUNS:-1}
PASSWORD=bench-digest-password
GW_PORT=$BASE_PORT
GWD_PORT=$((BASE_PORT + 1))
FLOOR_PORT=$((BASE_PORT + 2))
COPY_PORT=$((BASE_PORT + 3))

command -v wrk >/dev/null || { echo "wrk not found (apt-get install wrk)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'cleanup_pids; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
mkdir -p "$RESULTS"
SRV_PREFIX=$(pin_server_prefix)
CLI_PREFIX=$(pin_client_prefix)
skipped() { [[ " $SKIP " == *" $1 "* ]]; }

start_gateway() { # port [--password PW]
    local out="$TMP/gateway-$1.out"
    # shellcheck disable=SC2086
    $SRV_PREFIX "$NODE" "$DIST/bench/http-server.js" "$@" >"$out" 2>&1 &
    track_pid $!
    echo $! >"$TMP/pid-$1"
    for ((i = 0; i < 300; i++)); do
        grep -q '^ready' "$out" && return 0
        sleep 0.1
    done
    echo "gateway on port $1 did not start:" >&2
    cat "$out" >&2
    exit 1
}

# The daemon runs compiled JavaScript, so the benchmark does too (tsc into the git-ignored .tmp/).
DIST="$ROOT/.tmp/bench-dist"
echo "compiling into $DIST"
"$ROOT/node_modules/.bin/tsc" -p "$ROOT" --outDir "$DIST" --incremental false >"$TMP/tsc.log" 2>&1 || true
[ -f "$DIST/bench/http-server.js" ] || { cat "$TMP/tsc.log" >&2; exit 1; }

cd "$ROOT"

part_1() {
    echo "== 1. run-http.sh with the gateway as EXTRA target"
    # shellcheck disable=SC2086
    $SRV_PREFIX "$NODE" "$BENCH_DIR/http-baseline.mjs" "$COPY_PORT" 2>"$TMP/copy.err" &
    COPY_PID=$!
    track_pid "$COPY_PID"
    targets="gateway=http://127.0.0.1:$GW_PORT/api/v1/report,pid=$GW_PID"
    targets="$targets floor-copy=http://127.0.0.1:$COPY_PORT/api/v1/report,pid=$COPY_PID"
    (cd "$BENCH_DIR" && EXTRA="$targets" RESULTS="$RESULTS" \
        CONNS="$CONNS" DURATION="$DURATION" REPS="$REPS" ./run-http.sh) | tee "$TMP/part-1.out"
    # run-http.sh ends with "raw: FILE.tsv  log: FILE.log" (relative to its own folder).
    PART_1_TSVS="$PART_1_TSVS $(cd "$BENCH_DIR" && realpath "$(awk '/^raw: / { print $2 }' "$TMP/part-1.out")")"
}

# A fresh Digest challenge of the protected gateway: exports DIGEST_NONCE and DIGEST_REALM.
fresh_nonce() {
    local challenge
    challenge=$(curl -s -D - -o /dev/null "http://127.0.0.1:$GWD_PORT/api/v1/report" | grep -i '^www-authenticate: Digest' | head -1)
    DIGEST_NONCE=$(sed -E 's/.*nonce="([^"]*)".*/\1/' <<<"$challenge")
    DIGEST_REALM=$(sed -E 's/.*realm="([^"]*)".*/\1/' <<<"$challenge")
    export DIGEST_NONCE DIGEST_REALM DIGEST_PASSWORD=$PASSWORD
}

# wrk --latency output -> "rate p50_us p99_us errors requests"
wrk_numbers() {
    awk '
        function micros(v) {
            if (v ~ /us$/) return v + 0
            if (v ~ /ms$/) return v * 1000
            if (v ~ /s$/) return v * 1e6
            return v + 0
        }
        /Latency Distribution/ { in_dist = 1 }
        in_dist && $1 == "50%" { p50 = micros($2) }
        in_dist && $1 == "99%" { p99 = micros($2) }
        / requests in / { requests = $1 }
        /^Requests\/sec:/ { rate = $2 }
        /Socket errors:/ { gsub(/,/, ""); errors += $4 + $6 + $8 + $10 }
        /Non-2xx or 3xx responses:/ { errors += $NF }
        END { printf "%s %.1f %.1f %d %s\n", rate, p50, p99, errors, requests }'
}

run_wrk() { # target conns seconds [--latency]
    local target=$1 conns=$2 seconds=$3
    shift 3
    local script=()
    if [ "$target" = gateway-digest ]; then
        fresh_nonce
        # Enough prepared requests for 50,000 req/s over the run.
        export DIGEST_PREPARED=$((seconds * 50000))
        script=(-s "$HERE/http-digest.lua")
    fi
    # shellcheck disable=SC2086
    $CLI_PREFIX wrk -t1 -c"$conns" -d"${seconds}s" "${script[@]}" "$@" "${URL[$target]}" 2>&1 || true
}

part_2() {
    echo "== 2. report with Digest auth, same method"
    # shellcheck disable=SC2086
    $SRV_PREFIX "$NODE" "$BENCH_DIR/http-baseline.mjs" "$FLOOR_PORT" 2>"$TMP/floor.err" &
    FLOOR_PID=$!
    track_pid "$FLOOR_PID"
    sleep 1
    pin_pid "$GW_PID"
    pin_pid "$GWD_PID"
    declare -A URL PID
    URL[node-fixed]="http://127.0.0.1:$FLOOR_PORT/api/v1/report"
    URL[gateway]="http://127.0.0.1:$GW_PORT/api/v1/report"
    URL[gateway-digest]="http://127.0.0.1:$GWD_PORT/api/v1/report"
    PID[node-fixed]=$FLOOR_PID
    PID[gateway]=$GW_PID
    PID[gateway-digest]=$GWD_PID
    STAMP=$(date -u +%Y%m%d-%H%M%S)
    TSV="$RESULTS/http-digest-$STAMP.tsv"
    printf 'variant\ttarget\trep\trate\tp50_us\tp99_us\terrors\tsrv_cpu_us\n' >"$TSV"
    machine_info
    for ((rep = 1; rep <= REPS; rep++)); do
        for c in $CONNS; do
            for t in $(rotate $((rep - 1)) node-fixed gateway gateway-digest); do
                run_wrk "$t" "$c" 1 >/dev/null
                before=$(cpu_ticks "${PID[$t]}")
                out=$(run_wrk "$t" "$c" "$DURATION" --latency)
                after=$(cpu_ticks "${PID[$t]}")
                read -r rate p50 p99 errors requests <<<"$(wrk_numbers <<<"$out")"
                cpu=$(cpu_per_op "$before" "$after" "$requests")
                echo "rep $rep c=$c $t: $rate req/s p50=$p50 us p99=$p99 us errors=$errors srv_cpu=${cpu:--} us/req"
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "c=$c" "$t" "$rep" "$rate" "$p50" "$p99" "$errors" "$cpu" >>"$TSV"
            done
        done
    done
    "$NODE" "$BENCH_DIR/summarize.mjs" "$TSV" node-fixed req/s
    echo "raw: $TSV"
    PART_2_TSVS="$PART_2_TSVS $TSV"
}

PART_1_TSVS=""
PART_2_TSVS=""
for ((run = 1; run <= RUNS; run++)); do
    [ "$RUNS" -gt 1 ] && echo "=== run $run of $RUNS, fresh server processes"
    start_gateway "$GW_PORT"
    start_gateway "$GWD_PORT" --password "$PASSWORD"
    GW_PID=$(cat "$TMP/pid-$GW_PORT")
    GWD_PID=$(cat "$TMP/pid-$GWD_PORT")
    skipped 1 || part_1
    skipped 2 || part_2
    cleanup_pids
done

if [ "$RUNS" -gt 1 ]; then
    echo "== ratios of the $RUNS runs"
    # shellcheck disable=SC2086
    skipped 1 || "$NODE" "$DIST/bench/http-runs.js" node-fixed $PART_1_TSVS
    # The same runs against the identical floor copy, started by this script like the gateway.
    # shellcheck disable=SC2086
    skipped 1 || "$NODE" "$DIST/bench/http-runs.js" floor-copy $PART_1_TSVS
    # shellcheck disable=SC2086
    skipped 2 || "$NODE" "$DIST/bench/http-runs.js" node-fixed $PART_2_TSVS
fi

if ! skipped 3; then
    echo "== 3. SSE fan-out to 200 clients"
    "$NODE" "$DIST/bench/http-sse-fanout.js" --clients 200 --events 300 --interval-ms 50
fi
