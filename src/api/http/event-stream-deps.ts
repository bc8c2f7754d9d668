// What the OFREP and snapshot routes need when ofrep.event_streams is on, as they see it: the change
// stream feature (features/event-streams) builds it, and api/ may not import a feature.

import type { FastifyRequest } from 'fastify';
import type { OfrepFreshness } from '../../services/ofrep-freshness.js';
import type { HttpApp } from './http-app.js';

export interface EventStreamDeps {
  /** Registers OFREP's event stream in the OFREP scope (its error bodies), among the OFREP routes. */
  ofrepRoutes(scope: HttpApp): void;
  /** Registers the native change stream beside the client snapshot. */
  snapshotRoutes(app: HttpApp): void;
  /** The `eventStreams` of bulk answers. */
  advert: {
    /** Varies the bulk ETag with what the advert carries (the ticket's window). */
    etagVariant(): string;
    /** The bulk answer's closing part that names the stream; undefined: none is advertised to this caller. */
    tail(request: FastifyRequest, namespaceKey: string): Buffer | undefined;
  };
  /** flagConfigEtag read-your-writes. */
  freshness: OfrepFreshness;
}
