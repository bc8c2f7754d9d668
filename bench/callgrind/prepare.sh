#!/bin/bash
# Instruction counts per request (ADR 0044; docs/performance.md, "Running the benchmark").
# prepare.sh NAME [REF]: compiles REF (default: the working tree) into $CALLGRIND_DIR/NAME
# (/dev/shm/vexil-callgrind unless set), seeds its SQLite database with the bench's 50 flags and
# writes the four scenarios' request bodies beside it. Then: count.sh SCENARIO NAME...
# AUTH=1: the server requires authentication (bootstrap token `vexil-bench-token`, unlimited) and a
# second token is made with roles [{client, default}]: their headers are written to $B/token-unlimited and
# $B/token-roles, for count.sh's NAME+unlimited and NAME+roles (role-limited vs unlimited, issue 41).
set -e
HERE=$(cd "$(dirname "$0")" && pwd); REPO=$(cd "$HERE/../.." && pwd)
ROOT=${CALLGRIND_DIR:-/dev/shm/vexil-callgrind}; B=$ROOT/$1; REF=$2
mkdir -p "$B"
TREE=$REPO
if [ -n "$REF" ]; then
  TREE=$B/tree; rm -rf "$TREE"; mkdir -p "$TREE"
  (cd "$REPO" && git archive --format=tar "$REF") | tar -x -C "$TREE"
  ln -s "$REPO/node_modules" "$TREE/node_modules"
  if grep -q '"proto:types"' "$TREE/package.json"; then (cd "$TREE" && npm run proto:types >/dev/null); fi
fi
(cd "$REPO" && npx tsx -e "import('./bench/server-process.ts').then((m) => m.compileServer('$B/home/dist', '$TREE'))")
PORT=$((20000 + RANDOM % 1000))
rm -f "$B"/bench.db* "$B"/token-*
AUTH_ENV=(); HEADERS='{}'
if [ -n "$AUTH" ]; then
  AUTH_ENV=(VEXIL_AUTHENTICATION_REQUIRED=true VEXIL_AUTHENTICATION_METHODS_TOKEN_ENABLED=true
    VEXIL_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN=vexil-bench-token)
  HEADERS='{"authorization":"Bearer vexil-bench-token"}'
fi
env "${AUTH_ENV[@]}" MALLOC_ARENA_MAX=2 VEXIL_DB_URL=file:$B/bench.db VEXIL_SERVER_HOST=127.0.0.1 VEXIL_SERVER_HTTP_PORT=$PORT \
  VEXIL_SERVER_GRPC_PORT=$((PORT + 1000)) VEXIL_LOG_LEVEL=warn NODE_ENV=production \
  node "$B/home/dist/main.js" serve > "$B/seed.log" 2>&1 &
PID=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.3; done
(cd "$REPO" && npx tsx -e "import('./bench/seed.ts').then(async (m) => console.log(JSON.stringify(await m.seedBenchmark('http://127.0.0.1:$PORT', 50, 'default', $HEADERS))))") > "$B/seed.json"
if [ -n "$AUTH" ]; then
  echo -n "Bearer vexil-bench-token" > "$B/token-unlimited"
  curl -sf -XPOST "http://127.0.0.1:$PORT/auth/v1/method/token" -H 'authorization: Bearer vexil-bench-token' \
    -H 'content-type: application/json' -d '{"name":"bench-client","roles":[{"role":"client","namespace":"default"}]}' |
    node -e 'let t="";process.stdin.on("data",(d)=>{t+=d}).on("end",()=>process.stdout.write("Bearer "+JSON.parse(t).clientToken))' \
    > "$B/token-roles"
fi
kill $PID; wait $PID || true
# The bodies bench/compare.ts sends.
node -e '
const s = require(process.argv[1]); const fs = require("fs"); const d = process.argv[2];
const ctx = { plan: "pro", country: "de", age: "34", beta: "true", email: "ada@example.com" };
const single = (k) => ({ namespaceKey: "default", flagKey: k, entityId: "user-1234", context: ctx });
const flags = [...s.booleanFlags.slice(0, 25), ...s.variantFlags.slice(0, 25)];
const keys = Array.from({ length: 50 }, (_, i) => flags[i % flags.length]);
fs.writeFileSync(d + "/boolean.json", JSON.stringify(single(s.booleanFlags[0])));
fs.writeFileSync(d + "/variant.json", JSON.stringify(single(s.variantFlags[0])));
fs.writeFileSync(d + "/batch.json", JSON.stringify({ requests: keys.map(single) }));
fs.writeFileSync(d + "/ofrep.json", JSON.stringify({ context: { targetingKey: "user-1234", ...ctx } }));
// The same evaluations over gRPC (proto field names), for the grpc-* scenarios of count.sh.
const call = (k) => ({ namespace_key: "default", flag_key: k, entity_id: "user-1234", context: ctx });
fs.writeFileSync(d + "/grpc-boolean.json", JSON.stringify(call(s.booleanFlags[0])));
fs.writeFileSync(d + "/grpc-variant.json", JSON.stringify(call(s.variantFlags[0])));
fs.writeFileSync(d + "/grpc-batch.json", JSON.stringify({ requests: keys.map(call) }));
' "$B/seed.json" "$B"
echo "prepared $B"
