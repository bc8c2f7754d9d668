// The change streams (ofrep.event_streams) as a feature slice: the SSE hub and its streams, OFREP's
// advert, stream tickets and the gRPC WatchNamespace, with the routes that ofrep.ts and snapshot.ts
// place. This builds them: the revision watch fed by this instance's writes, the revision poll and
// (with Redis) the revisions channel; stream tickets when authentication is required (they also end a
// stream once its identity loses the role it needs: ADR 48); the OFREP advert, the flagConfigEtag
// refresh and the SSE hub the routes use.

import type { Kysely } from 'kysely';
import type { WatchNamespaceRpc } from '../../api/grpc/change-service.js';
import type { EventStreamDeps } from '../../api/http/event-stream-deps.js';
import type { LongLivedStreams } from '../../api/long-lived-streams.js';
import { isExcluded } from '../../auth/access-groups.js';
import type { TokenCache } from '../../auth/token-cache.js';
import { RevisionWatch } from '../../cache/revision-watch.js';
import type { SnapshotCache } from '../../cache/snapshot-cache.js';
import { ConfigError, ms } from '../../config/load.js';
import type { Config } from '../../config/schema.js';
import type { Services } from '../../services/index.js';
import { OfrepFreshness } from '../../services/ofrep-freshness.js';
import type { Database } from '../../storage/schema.js';
import { readRevisionTag } from '../../storage/transaction.js';
import { OfrepEventStreamAdvert } from './ofrep-advert.js';
import { ofrepStreamRoute, snapshotStreamRoute } from './routes.js';
import { SseHub } from './sse-hub.js';
import { StreamTickets } from './tickets.js';
import { watchNamespace } from './watch-rpc.js';

export interface EventStreams {
  watch: RevisionWatch;
  /** The open SSE streams, sent a heartbeat by the jobs room every `heartbeatMs` (0: never). */
  hub: SseHub;
  heartbeatMs: number;
  /** Present when authentication is required: authenticated streams end with their token. */
  tickets: StreamTickets | undefined;
  /** Present when the OFREP routes require authentication: tickets stand in for the bearer token there. */
  ticketAuth: StreamTickets | undefined;
  http: EventStreamDeps;
  /** WatchNamespace's handler (vexil.changes.v1.ChangeService). */
  grpc: WatchNamespaceRpc;
  close(): void;
}

/** Settings no schema can check: called before anything starts, so a bad one is one clear line. */
export function checkEventStreamSettings(config: Config): void {
  const settings = config.ofrep.event_streams;
  if (!settings.enabled) return;
  if (ms(settings.ticket_window) <= 0) {
    throw new ConfigError('invalid config at ofrep.event_streams.ticket_window: must be longer than 0');
  }
  if (settings.public_url !== '' && !/^https?:\/\/[^/]/.test(settings.public_url)) {
    throw new ConfigError(
      `invalid config at ofrep.event_streams.public_url: "${settings.public_url}" is not an absolute http(s) URL`,
    );
  }
}

export function createEventStreams(
  config: Config,
  db: Kysely<Database>,
  parts: { services: Services; snapshots: SnapshotCache; streams: LongLivedStreams; tokens: TokenCache | undefined },
): EventStreams | undefined {
  const settings = config.ofrep.event_streams;
  if (!settings.enabled) return undefined;
  const { services, snapshots, streams, tokens } = parts;
  const watch = new RevisionWatch((namespaceKey) => readRevisionTag(db, namespaceKey));
  const unsubscribeWrites = services.changes.subscribe((namespaceKey) => watch.written(namespaceKey));
  const unsubscribePolls = snapshots.onRevisionsRead((revisions) => watch.polled(revisions));

  const heartbeatMs = ms(settings.heartbeat_interval);
  const pollMs = ms(config.cache.poll_interval);
  const tickets = config.authentication.required
    ? new StreamTickets(db, {
        windowMs: ms(settings.ticket_window),
        secret: settings.ticket_secret,
        checkEveryMs: pollMs > 0 ? pollMs : heartbeatMs,
        // People's roles, resolved again on every check: bindings stored meanwhile can take the role away.
        ...(services.auth.roles !== undefined ? { roles: services.auth.roles } : {}),
      })
    : undefined;
  const unsubscribeRevocations = tickets && tokens ? tokens.onForget((id) => tickets.revoked(id)) : () => {};
  // Tickets stand in for the bearer token only where OFREP itself requires one.
  const ofrepTickets = tickets && !isExcluded('ofrep', config.authentication.exclude) ? tickets : undefined;
  const hub = new SseHub({ watch, streams, tickets, maxBufferedBytes: settings.max_buffered_bytes });
  return {
    watch,
    hub,
    heartbeatMs,
    tickets,
    ticketAuth: ofrepTickets,
    http: {
      ofrepRoutes: (scope) => ofrepStreamRoute(scope, hub),
      snapshotRoutes: (app) => snapshotStreamRoute(app, hub),
      advert: new OfrepEventStreamAdvert(settings, ofrepTickets),
      freshness: new OfrepFreshness(snapshots),
    },
    grpc: watchNamespace({ watch, streams, tickets, maxBufferedBytes: settings.max_buffered_bytes }),
    close() {
      hub.closeAll();
      unsubscribeWrites();
      unsubscribePolls();
      unsubscribeRevocations();
    },
  };
}
