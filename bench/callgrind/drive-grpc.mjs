// drive-grpc.mjs TARGET METHOD REQUEST_FILE TOTAL CONNECTIONS: sends exactly TOTAL unary calls of
// flipt.evaluation.EvaluationService/METHOD (Boolean, Variant, Batch) with the request in REQUEST_FILE
// (proto field names) over that many channels (one HTTP/2 connection each), each slot sending its next
// call when the last has answered; exits non-zero if any call failed. The gRPC twin of drive.mjs.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { credentials, loadPackageDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';

const [target, method, requestFile, total, connections] = process.argv.slice(2);
const request = JSON.parse(readFileSync(requestFile, 'utf8'));
const definition = loadSync('evaluation/evaluation.proto', {
  includeDirs: [fileURLToPath(new URL('../../proto', import.meta.url))],
  keepCase: true,
  defaults: true,
  oneofs: true,
});
const Service = loadPackageDefinition(definition).flipt.evaluation.EvaluationService;
let left = Number(total);
let failed = 0;

async function connection() {
  const client = new Service(target, credentials.createInsecure(), { 'grpc.use_local_subchannel_pool': 1 });
  while (left > 0) {
    left--;
    await new Promise((resolve) =>
      client[method](request, (err) => {
        if (err) failed++;
        resolve();
      }),
    );
  }
  client.close();
}

await Promise.all(Array.from({ length: Number(connections) }, connection));
if (failed > 0) {
  console.error(`${failed} calls failed`);
  process.exit(1);
}
