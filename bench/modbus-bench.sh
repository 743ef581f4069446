#!/usr/bin/env bash
# modbus-bench.sh: the project's Modbus slave against the anchors of the load-generator bench
# (BENCH_DIR) in one run.
#
# Copies the shared bench folder (read-only) to a temp dir, builds its C tools there (gcc +
# libmodbus-dev), starts bench/modbus-slave.ts compiled to JavaScript as the daemon runs (default
# layout, one reading per second) and runs run-modbus.sh with the slave as EXTRA target "gateway"
# (pinned and CPU-measured like the anchors).
#
# Environment: BENCH_DIR (default: the bench folder beside the repository), PORT (15502), RESULTS (a temp
# dir, printed at the end), plus everything run-modbus.sh takes (SERVERS, CONNS, DURATION, REPS ...).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-$ROOT/../shared/bench}
PORT=${PORT:-15502}
RESULTS=${RESULTS:-$(mktemp -d "${TMPDIR:-/tmp}/meter-gateway-modbus-results.XXXXXX")}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/meter-gateway-modbus-bench.XXXXXX")
SLAVE_PID=""
cleanup() {
    if [ -n "$SLAVE_PID" ]; then
        kill "$SLAVE_PID" 2>/dev/null || true
        wait "$SLAVE_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

tar -C "$BENCH_DIR" --exclude=./results --exclude=./node_modules -cf - . | tar -C "$WORK" -xf -
(cd "$WORK" && ./build.sh >/dev/null)

# The daemon runs compiled JavaScript, so the benchmark does too (tsc into the git-ignored .tmp/).
DIST="$ROOT/.tmp/bench-dist"
"$ROOT/node_modules/.bin/tsc" -p "$ROOT" --outDir "$DIST" --incremental false >"$WORK/tsc.log" 2>&1 || true
[ -f "$DIST/bench/modbus-slave.js" ] || { cat "$WORK/tsc.log" >&2; exit 1; }

cd "$ROOT"
node "$DIST/bench/modbus-slave.js" "$PORT" &
SLAVE_PID=$!
for _ in $(seq 1 100); do
    if "$WORK/modbus-load" -p 127.0.0.1 "$PORT" 1 1 0 125 1 >/dev/null 2>&1; then break; fi
    sleep 0.1
done

EXTRA="gateway=127.0.0.1:$PORT:$SLAVE_PID" RESULTS="$RESULTS" "$WORK/run-modbus.sh"
echo "results kept in $RESULTS"
