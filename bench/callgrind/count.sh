#!/bin/bash
# count.sh SCENARIO NAME... [WARM=20000 N=3000 in the environment]: for each prepared build (prepare.sh),
# at once, a fresh server under callgrind: WARM requests of SCENARIO (boolean, variant, batch, ofrep,
# or over gRPC grpc-boolean, grpc-variant, grpc-batch) uncounted, then N counted; prints instructions
# per request (summary.py). Slow: minutes per build.
# NAME `bare`: the transport's floor instead of a build: bench/bare-server.ts (Fastify, a fixed JSON)
# for the HTTP scenarios, bench/bare-grpc-server.mjs (node:http2, a fixed gRPC answer) for the gRPC
# ones, sent the bodies of the first other build named (`count.sh grpc-boolean main bare`).
# NAME+unlimited / NAME+roles: a build prepared with AUTH=1, authentication required, every request
# carrying that token (the bootstrap token, or the one made with roles [{client, default}]).
# NAMES=1: V8 also writes its perf map (--perf-basic-prof, for both builds alike), and names.py names
# the JavaScript functions in each dump (named.out), which functions.py compares between two builds.
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=${CALLGRIND_DIR:-/dev/shm/vexil-callgrind}; S=$1; shift
WARM=${WARM:-20000}; N=${N:-3000}
NAMES=${NAMES:-}
declare -A P=([boolean]=/evaluate/v1/boolean [variant]=/evaluate/v1/variant [batch]=/evaluate/v1/batch [ofrep]=/ofrep/v1/evaluate/flags
  [grpc-boolean]=Boolean [grpc-variant]=Variant [grpc-batch]=Batch)
REPO=$(cd "$HERE/../.." && pwd)
BODIES=; for b in "$@"; do [ "$b" != bare ] && BODIES=$ROOT/${b%%+*} && break; done
# WARM then N requests of the scenario, N counted: DRIVE PORT GRPC_PORT COUNT [AUTHORIZATION].
drive() {
  if [[ $S == grpc-* ]]; then node "$HERE/drive-grpc.mjs" "127.0.0.1:$2" "${P[$S]}" "$BODIES/$S.json" "$3" 8
  else node "$HERE/drive.mjs" "$1" "${P[$S]}" "$BODIES/$S.json" "$3" 8 "$4"; fi
}
bare() {
  local OUT=$ROOT/count-$S-bare FILE=bench/bare-server.ts
  [[ $S == grpc-* ]] && FILE=bench/bare-grpc-server.mjs
  rm -rf "$OUT"; mkdir -p "$OUT"
  local PROF=; [ "$NAMES" = 1 ] && PROF="--perf-basic-prof --logfile=$OUT/v8.log --no-logfile-per-isolate"
  (cd "$REPO" && MALLOC_ARENA_MAX=2 valgrind --tool=callgrind --instr-atstart=no --toggle-collect=uv__io_poll \
    --separate-threads=yes --callgrind-out-file="$OUT/callgrind.out.%p" \
    node $PROF --max-semi-space-size=8 --no-concurrent-recompilation --import tsx "$FILE" > "$OUT/port" 2> "$OUT/server.log") &
  local VG=$! PORT=
  for _ in $(seq 600); do PORT=$(head -1 "$OUT/port" 2>/dev/null); [ -n "$PORT" ] && break; sleep 0.5; done
  VG=$(pgrep -f "out-file=$OUT/callgrind" | head -1)
  drive "$PORT" "$PORT" "$WARM"
  callgrind_control -i on $VG >/dev/null
  drive "$PORT" "$PORT" "$N"
  callgrind_control --dump=counted_$S $VG >/dev/null
  kill $VG; wait
  names "$OUT" $VG
}
# With NAMES=1: the JavaScript functions named in the counted dump (named.out).
names() {
  [ "$NAMES" = 1 ] || return 0
  mv "/tmp/perf-$2.map" "$1/perf.map"
  for f in "$1"/callgrind.out.*.1-01; do python3 "$HERE/names.py" "$f" "$1/perf.map" "$1/named.out"; done
}
one() {
  [ "$1" = bare ] && { bare; return; }
  local NAME=${1%%+*} TOKEN= AUTH_ENV=() HEADER=()
  [ "$NAME" != "$1" ] && TOKEN=${1#*+}
  local B=$ROOT/$NAME OUT=$ROOT/count-$S-$1 PORT=$((21000 + RANDOM % 2000))
  rm -rf "$OUT"; mkdir -p "$OUT"; cp "$B/bench.db" "$OUT/db.sqlite"
  local AUTHORIZATION=
  if [ -n "$TOKEN" ]; then
    AUTHORIZATION=$(cat "$B/token-$TOKEN")
    AUTH_ENV=(VEXIL_AUTHENTICATION_REQUIRED=true VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED=true
      VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN=vexil-bench-token)
    HEADER=(-H "authorization: $AUTHORIZATION")
  fi
  # With the perf map V8 also writes its log, by default into the working directory: into OUT instead.
  local PROF=; [ "$NAMES" = 1 ] && PROF="--perf-basic-prof --logfile=$OUT/v8.log --no-logfile-per-isolate"
  # Timers are left out (their cost is per second); optimization runs on the main thread, to be subtracted.
  env "${AUTH_ENV[@]}" MALLOC_ARENA_MAX=2 VEXIL_DB_URL=file:$OUT/db.sqlite VEXIL_SERVER_HOST=127.0.0.1 VEXIL_SERVER_HTTP_PORT=$PORT \
    VEXIL_SERVER_GRPC_PORT=$((PORT + 3000)) VEXIL_LOG_LEVEL=warn NODE_ENV=production \
    valgrind --tool=callgrind --instr-atstart=no --toggle-collect=uv__io_poll --separate-threads=yes \
    --callgrind-out-file="$OUT/callgrind.out.%p" \
    node $PROF --max-semi-space-size=8 --no-concurrent-recompilation "$B/home/dist/main.js" serve > "$OUT/server.log" 2>&1 &
  local VG=$!
  for _ in $(seq 600); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.5; done
  # As bench/compare.ts: one evaluation and one management read first (ADR 0009).
  # (The management read with the bootstrap token: a client token may not read flags.)
  curl -sf -XPOST "http://127.0.0.1:$PORT/evaluate/v1/boolean" "${HEADER[@]}" -d @"$B/boolean.json" >/dev/null
  curl -sf "http://127.0.0.1:$PORT/api/v1/namespaces/default/flags?limit=5" \
    ${TOKEN:+-H "authorization: Bearer vexil-bench-token"} >/dev/null
  BODIES=$B drive $PORT $((PORT + 3000)) "$WARM" "$AUTHORIZATION"
  callgrind_control -i on $VG >/dev/null
  BODIES=$B drive $PORT $((PORT + 3000)) "$N" "$AUTHORIZATION"
  # --dump=NAME: `-d NAME` did not dump names with a digit first or a hyphen.
  callgrind_control --dump=counted_$S $VG >/dev/null
  kill $VG; wait $VG
  names "$OUT" $VG
}
for b in "$@"; do one "$b" & done
wait
python3 "$HERE/summary.py" "$N" $(for b in "$@"; do echo "$ROOT/count-$S-$b"; done)
