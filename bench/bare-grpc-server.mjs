// The gRPC transport's floor for bench/transport-cost.ts: a bare node:http2 server that reads each
// call's request and answers every stream with the same canned unary gRPC answer (grpc-js's response
// headers, one length-prefixed message, `grpc-status: 0` trailers), and nothing else: no gRPC library,
// no authentication, no evaluation. What Vexil's gRPC evaluation costs above this is Vexil's; this
// much is Node's HTTP/2.
//
// Two ways to run it. On its own (`node bench/bare-grpc-server.mjs`, tsx or not): it listens on a free
// port and prints it on stdout. Preloaded into Vexil's server (`node --import ./bench/bare-grpc-server.mjs
// dist/main.js serve` with VEXIL_BENCH_BARE_GRPC_PORT set): it listens on that port beside Vexil's own
// and leaves the process's output and signals to Vexil, so the same fixed answer is measured inside the
// application's process (its heap, its modules, Node's stream code shared with everything else).
// Plain JavaScript, so the compiled server can preload it without a TypeScript loader.

import { constants, createServer } from 'node:http2';

// A flipt.evaluation.BooleanEvaluationResponse: enabled, reason MATCH, flag_key 'bool-0', a request
// id and a duration; the bytes need only be a well-formed message of the method's answer type.
const MESSAGE = Buffer.from(
  '080110021a2430303030303030302d303030302d343030302d383030302d3030303030303030303030302109c0ea6fd1fbf83f3206626f6f6c2d30',
  'hex',
);
const FRAME = Buffer.alloc(5 + MESSAGE.length);
FRAME.writeUInt32BE(MESSAGE.length, 1);
MESSAGE.copy(FRAME, 5);

const HEADERS = {
  [constants.HTTP2_HEADER_STATUS]: 200,
  [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc+proto',
  'grpc-accept-encoding': 'identity,deflate,gzip',
  'grpc-encoding': 'identity',
};
const TRAILERS = { 'grpc-status': 0, 'grpc-message': 'OK' };

const preloadPort = process.env.VEXIL_BENCH_BARE_GRPC_PORT;
const server = createServer();
server.on('stream', (stream) => {
  stream.on('error', () => {});
  stream.on('data', () => {});
  stream.once('end', () => {
    stream.respond(HEADERS, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers(TRAILERS));
    stream.end(FRAME);
  });
});
if (preloadPort === undefined) {
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
} else {
  server.listen(Number(preloadPort), '127.0.0.1');
  // Vexil's shutdown waits for its own servers only: this one must not keep the process alive.
  server.unref();
}
