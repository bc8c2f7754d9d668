// GET /internal/v1/evaluation/snapshot/namespace/{key}: the client-side evaluation snapshot as Flipt
// serves it to its client SDKs (behavior.md §11): ETag = lowercase hex SHA-1 of the namespace
// revision (unquoted), 304 on a matching If-None-Match, content by X-Flipt-Accept-Server-Version.
//
// The 304 answer needs only the held snapshot's revision; a rendered body is kept per namespace and
// client level until the revision changes, so polling clients cost neither a database read nor a
// re-render. A namespace that does not exist answers 200 with no flags and no ETag.

import { createHash } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import Type from 'typebox';
import { inTurns } from '../../../runtime/in-turns.js';
import type { HttpApp } from '../http-app.js';
import { ErrorBodySchema, ReferenceQuerystring } from '../schemas/common.js';
import {
  ClientSnapshotSchema,
  clientSnapshotJsonSteps,
  type SnapshotLevel,
  snapshotLevel,
} from '../schemas/snapshot.js';
import type { RouteDeps } from './deps.js';

const tags = ['evaluation'];

interface Rendered {
  revision: string;
  etag: string;
  /** By SnapshotLevel. */
  bodies: (string | undefined)[];
}

function etagOf(revision: string): string {
  return createHash('sha1').update(revision).digest('hex');
}

export async function snapshotRoutes(app: HttpApp, { services, eventStreams }: RouteDeps): Promise<void> {
  const evaluation = services.evaluation;
  const rendered = new Map<string, Rendered>();

  // The namespace's change stream (features/event-streams), here to keep the OpenAPI order.
  eventStreams?.snapshotRoutes(app);

  app.get(
    '/internal/v1/evaluation/snapshot/namespace/:key',
    {
      config: { kind: 'client-snapshot', access: { resource: 'snapshot', action: 'read', namespace: 'key' } },
      schema: {
        tags,
        summary: 'Client-side evaluation snapshot of a namespace (Flipt client SDKs)',
        params: Type.Object({ key: Type.String() }),
        querystring: ReferenceQuerystring,
        response: {
          200: ClientSnapshotSchema,
          400: ErrorBodySchema,
          401: ErrorBodySchema,
          403: ErrorBodySchema,
          500: ErrorBodySchema,
        },
      },
    },
    async (request, typedReply) => {
      // Bodies are pre-rendered JSON strings; the schema above documents them.
      const reply = typedReply as unknown as FastifyReply;
      const key = request.params.key;
      const level: SnapshotLevel = snapshotLevel(request.headers['x-flipt-accept-server-version']);
      const held = await evaluation.snapshot(key);
      const revision = held.revision;

      let entry = rendered.get(key);
      if (revision === '') {
        rendered.delete(key);
        entry = undefined;
      } else {
        if (entry === undefined || entry.revision !== revision) {
          entry = { revision, etag: etagOf(revision), bodies: [] };
          rendered.set(key, entry);
        }
        reply.header('etag', entry.etag);
        if (request.headers['if-none-match'] === entry.etag) return reply.code(304).send();
        const body = entry.bodies[level];
        if (body !== undefined) return reply.type('application/json').send(body);
      }

      const source = await evaluation.source(key);
      const sourceRevision = source?.revision ?? '';
      const body = await inTurns(clientSnapshotJsonSteps(key, source, level));
      if (sourceRevision === revision) {
        if (entry !== undefined) entry.bodies[level] = body;
      } else if (sourceRevision === '') {
        // Deleted between the two reads.
        reply.removeHeader('etag');
      } else {
        // Changed between the two reads: the ETag must describe the body sent.
        reply.header('etag', etagOf(sourceRevision));
      }
      return reply.type('application/json').send(body);
    },
  );
}
