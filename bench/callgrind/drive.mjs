// drive.mjs PORT PATH BODY_FILE TOTAL CONNECTIONS [AUTHORIZATION]: sends exactly TOTAL POSTs of the body
// over that many keep-alive connections, with that Authorization header when given, then exits (non-zero
// if any answer was not 200). wrk cannot stop at a count.
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [port, path, bodyFile, total, connections, authorization] = process.argv.slice(2);
const body = readFileSync(bodyFile);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections) });
let left = Number(total);
let failed = 0;

function one() {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port: Number(port),
        path,
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          ...(authorization ? { authorization } : {}),
        },
      },
      (response) => {
        if (response.statusCode !== 200) failed++;
        response.resume();
        response.on('end', resolve);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

async function connection() {
  while (left > 0) {
    left--;
    await one();
  }
}

await Promise.all(Array.from({ length: Number(connections) }, connection));
agent.destroy();
if (failed > 0) {
  console.error(`${failed} answers were not 200`);
  process.exit(1);
}
