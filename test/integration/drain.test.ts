// Graceful drain of the real program on SIGTERM, as Go's http.Server.Shutdown drains: requests already
// received finish and are answered with `Connection: close`, idle keep-alive connections are closed at
// once, gRPC calls in flight finish, the process exits 0 right after the last answer, and only what is
// still running at server.shutdown_timeout is cut (exit code 3, the log says how many).
//
// What keeps a request in flight is what is slow for real: a body still arriving (announced with
// `Expect: 100-continue`, whose 100 answer proves the server has read the headers and begun the
// request), and on PostgreSQL a write waiting for a row lock the test holds.

import { Agent, type ClientRequest, request } from 'node:http';
import type { Socket } from 'node:net';
import type { ServiceError } from '@grpc/grpc-js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, describeEachBackend, type TestDatabase, testBackends } from '../helpers/backends.js';
import { FliptGrpc } from '../helpers/flipt-grpc.js';
import { type RunningVexil, startVexil } from '../helpers/process.js';

const CONNECTIONS = 50;
const EXIT_REQUESTS_CUT = 3;

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
  /** Date.now() when the last byte of the answer arrived. */
  at: number;
}

/** The answer to `req`, or the error its connection ended with. */
function answerOf(req: ClientRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('error', reject);
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body, at: Date.now() }),
      );
    });
  });
}

interface Trickle {
  req: ClientRequest;
  /** Resolves when the server has read the headers (its 100 Continue) and the first half of the body is sent. */
  started: Promise<void>;
  /** Sends the rest of the body. */
  finish(): void;
  answer: Promise<Answer>;
}

/** A POST whose body arrives in two parts, the second when the test says so. */
function trickle(agent: Agent, port: number, path: string, body: string): Trickle {
  const bytes = Buffer.from(body);
  const half = Math.floor(bytes.length / 2);
  const req = request({
    agent,
    host: '127.0.0.1',
    port,
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', 'content-length': bytes.length, expect: '100-continue' },
  });
  const answer = answerOf(req);
  answer.catch(() => {});
  const started = new Promise<void>((resolve, reject) => {
    req.once('error', reject);
    req.once('continue', () => req.write(bytes.subarray(0, half), () => resolve()));
  });
  req.flushHeaders();
  return { req, started, finish: () => req.end(bytes.subarray(half)), answer };
}

function send(agent: Agent, port: number, method: string, path: string, body?: string): Promise<Answer> {
  const req = request({
    agent,
    host: '127.0.0.1',
    port,
    method,
    path,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
  });
  const answer = answerOf(req);
  req.end(body);
  return answer;
}

/** `count` keep-alive connections, each having served one request and now idle in the agent. */
async function warmConnections(port: number, count: number): Promise<Agent> {
  const agent = new Agent({ keepAlive: true, maxSockets: count, maxFreeSockets: count });
  const answers = await Promise.all(Array.from({ length: count }, () => send(agent, port, 'GET', '/health')));
  expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
  await new Promise((r) => setImmediate(r));
  const free = Object.values(agent.freeSockets).reduce((n, list) => n + (list?.length ?? 0), 0);
  expect(free).toBe(count);
  return agent;
}

/** The one idle socket of an agent warmed with one connection. */
function idleSocketOf(agent: Agent): Socket {
  const sockets = Object.values(agent.freeSockets).flat();
  expect(sockets).toHaveLength(1);
  return sockets[0] as Socket;
}

function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
}

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Sends SIGTERM; resolves with the exit code and when the process exited. */
function terminate(vexil: RunningVexil): Promise<{ code: number | null; at: number }> {
  return vexil.stop('SIGTERM').then((code) => ({ code, at: Date.now() }));
}

const drainStarted = (vexil: RunningVexil) => () => vexil.output().includes('"msg":"shutting down"');

const flagBody = (key: string) => JSON.stringify({ key, name: key, type: 'BOOLEAN_FLAG_TYPE', enabled: true });

describeEachBackend('drain on SIGTERM', (backend) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => db?.drop());

  it(`answers requests in flight on ${CONNECTIONS} keep-alive connections with Connection: close, closes idle ones at once, and exits 0 right after the last answer`, async () => {
    const vexil = await startVexil({ VEXIL_DB_URL: db.url, VEXIL_LOG_LEVEL: 'info' });
    const agent = await warmConnections(vexil.httpPort, CONNECTIONS);
    const idleAgent = await warmConnections(vexil.httpPort, 1);
    const idle = idleSocketOf(idleAgent);
    try {
      expect(
        (await send(agent, vexil.httpPort, 'POST', '/api/v1/namespaces/default/flags', flagBody('drain'))).status,
      ).toBe(200);
      // Evaluations, the requests a server mostly has in flight (and no write contention to muddle the count).
      const requests = Array.from({ length: CONNECTIONS }, (_, i) =>
        trickle(
          agent,
          vexil.httpPort,
          '/evaluate/v1/boolean',
          JSON.stringify({ namespaceKey: 'default', flagKey: 'drain', entityId: `entity-${i}`, context: {} }),
        ),
      );
      await Promise.all(requests.map((r) => r.started));
      expect(requests.every((r) => r.req.reusedSocket)).toBe(true);

      const exit = terminate(vexil);
      await waitFor('the drain to start', drainStarted(vexil));
      // Closed while every request is still waiting for the rest of its body.
      await closed(idle);
      expect(vexil.process.exitCode).toBeNull();

      for (const r of requests) r.finish();
      const answers = await Promise.all(requests.map((r) => r.answer));
      const answered = answers.filter(
        (a) => a.status === 200 && a.connection === 'close' && JSON.parse(a.body).enabled === true,
      );
      expect(answered).toHaveLength(CONNECTIONS);
      const { code, at } = await exit;
      expect(code).toBe(0);
      const lastAnswer = Math.max(...answers.map((a) => a.at));
      expect(at - lastAnswer).toBeLessThan(1_000);
      expect(vexil.output()).not.toMatch(/cut/);
    } finally {
      agent.destroy();
      idleAgent.destroy();
      await vexil.stop('SIGKILL');
    }
  }, 90_000);

  it('cuts a request still arriving at server.shutdown_timeout, says how many, and exits 3', async () => {
    const vexil = await startVexil({
      VEXIL_DB_URL: db.url,
      VEXIL_LOG_LEVEL: 'info',
      VEXIL_SERVER_SHUTDOWN_TIMEOUT: '1s',
    });
    const agent = new Agent({ keepAlive: true });
    try {
      const stuck = trickle(agent, vexil.httpPort, '/api/v1/namespaces/default/flags', flagBody('never-finished'));
      await stuck.started;
      const { code } = await terminate(vexil);
      expect(code).toBe(EXIT_REQUESTS_CUT);
      await expect(stuck.answer).rejects.toThrow();
      const line = vexil
        .output()
        .split('\n')
        .find((l) => l.includes('requests cut'));
      expect(line && JSON.parse(line)).toMatchObject({ cutHttp: 1, cutGrpc: 0 });
    } finally {
      agent.destroy();
      await vexil.stop('SIGKILL');
    }
  }, 90_000);
});

const postgres = testBackends().find((b) => b.name === 'postgres');

describe.skipIf(!postgres?.adminUrl)(
  `drain with writes waiting for a row lock [postgres]${postgres?.skipReason ? ` (skipped: ${postgres.skipReason})` : ''}`,
  () => {
    let db: TestDatabase;
    beforeAll(async () => {
      if (postgres) db = await createTestDatabase(postgres);
    });
    afterAll(async () => db?.drop());

    /** Holds the default namespace's row: every write in it waits (foreign-key check, revision bump). */
    async function holdNamespace(): Promise<{ waiting(): Promise<number>; release(): Promise<void> }> {
      const holder = new pg.Client({ connectionString: db.url });
      // pg_stat_activity is read once per transaction: the count is asked on a connection of its own.
      const observer = new pg.Client({ connectionString: db.url });
      await Promise.all([holder.connect(), observer.connect()]);
      await holder.query('begin');
      await holder.query(`select key from namespaces where key = 'default' for update`);
      let released = false;
      return {
        waiting: async () =>
          Number(
            (
              await observer.query(
                `select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
              )
            ).rows[0].n,
          ),
        release: async () => {
          if (released) return;
          released = true;
          await holder.query('commit').catch(() => {});
          await Promise.all([holder.end(), observer.end()]);
        },
      };
    }

    const HTTP_WRITES = 5;

    it('lets HTTP writes and gRPC calls waiting on the database finish, then exits 0', async () => {
      const vexil = await startVexil({ VEXIL_DB_URL: db.url, VEXIL_LOG_LEVEL: 'info' });
      const grpc = new FliptGrpc(vexil.grpcPort);
      const agent = await warmConnections(vexil.httpPort, HTTP_WRITES);
      const idleAgent = await warmConnections(vexil.httpPort, 1);
      const idle = idleSocketOf(idleAgent);
      // The gRPC channel is connected before the lock is taken.
      await grpc.call('flipt.Flipt', 'GetNamespace', { key: 'default' });
      const lock = await holdNamespace();
      try {
        const writes = Array.from({ length: HTTP_WRITES }, (_, i) =>
          send(agent, vexil.httpPort, 'POST', '/api/v1/namespaces/default/flags', flagBody(`locked-${i}`)),
        );
        const grpcWrite = grpc.call('flipt.Flipt', 'CreateFlag', {
          namespaceKey: 'default',
          key: 'locked-grpc',
          name: 'locked-grpc',
          type: 'BOOLEAN_FLAG_TYPE',
        });
        await waitFor('every write to wait for the lock', async () => (await lock.waiting()) === HTTP_WRITES + 1);

        const exit = terminate(vexil);
        await waitFor('the drain to start', drainStarted(vexil));
        await closed(idle);
        // Still running: the writes hold it, and the database is still open for them.
        expect(vexil.process.exitCode).toBeNull();
        expect(await lock.waiting()).toBe(HTTP_WRITES + 1);

        await lock.release();
        const answers = await Promise.all(writes);
        expect(answers.map((a) => [a.status, a.connection])).toEqual(answers.map(() => [200, 'close']));
        expect((await grpcWrite).response).toMatchObject({ key: 'locked-grpc' });
        const { code, at } = await exit;
        expect(code).toBe(0);
        expect(at - Math.max(...answers.map((a) => a.at))).toBeLessThan(1_000);
      } finally {
        await lock.release();
        grpc.close();
        agent.destroy();
        idleAgent.destroy();
        await vexil.stop('SIGKILL');
      }
    }, 90_000);

    it('cuts the HTTP and gRPC writes still waiting at server.shutdown_timeout and exits 3', async () => {
      const vexil = await startVexil({
        VEXIL_DB_URL: db.url,
        VEXIL_LOG_LEVEL: 'info',
        VEXIL_SERVER_SHUTDOWN_TIMEOUT: '1s',
      });
      const grpc = new FliptGrpc(vexil.grpcPort);
      await grpc.call('flipt.Flipt', 'GetNamespace', { key: 'default' });
      const agent = new Agent({ keepAlive: true });
      const lock = await holdNamespace();
      try {
        const write = send(agent, vexil.httpPort, 'POST', '/api/v1/namespaces/default/flags', flagBody('cut-http'));
        write.catch(() => {});
        const grpcWrite = grpc.error('flipt.Flipt', 'CreateFlag', {
          namespaceKey: 'default',
          key: 'cut-grpc',
          name: 'cut-grpc',
          type: 'BOOLEAN_FLAG_TYPE',
        });
        await waitFor('both writes to wait for the lock', async () => (await lock.waiting()) === 2);
        const { code } = await terminate(vexil);
        expect(code, vexil.output()).toBe(EXIT_REQUESTS_CUT);
        await expect(write).rejects.toThrow();
        expect(((await grpcWrite) as ServiceError).code).toBeGreaterThan(0);
        const line = vexil
          .output()
          .split('\n')
          .find((l) => l.includes('requests cut'));
        expect(line && JSON.parse(line)).toMatchObject({ cutHttp: 1, cutGrpc: 1 });
      } finally {
        await lock.release();
        grpc.close();
        agent.destroy();
        await vexil.stop('SIGKILL');
      }
    }, 90_000);
  },
);
