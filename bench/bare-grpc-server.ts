// The gRPC transport's floor for bench/transport-cost.ts: a bare node:http2 server that reads each
// call's request and answers every stream with the same canned unary gRPC answer (grpc-js's response
// headers, one length-prefixed message, `grpc-status: 0` trailers), and nothing else: no gRPC library,
// no authentication, no evaluation. What Vexil's gRPC evaluation costs above this is Vexil's; this
// much is Node's HTTP/2. Prints its port on stdout.

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
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
