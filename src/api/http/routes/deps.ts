// What route modules receive from the composition root.

import type { Config } from '../../../config/schema.js';
import type { Services } from '../../../services/index.js';
import type { HealthState } from '../../health-state.js';
import type { LongLivedStreams } from '../../long-lived-streams.js';
import type { EventStreamDeps } from '../event-stream-deps.js';
import type { HttpApp } from '../http-app.js';

export interface RouteDeps {
  config: Config;
  services: Services;
  health: HealthState;
  /** Register every server-sent event stream here: a drain ends it instead of waiting for it. */
  streams: LongLivedStreams;
  /** Only with ofrep.event_streams.enabled. */
  eventStreams?: EventStreamDeps;
}

/** Registers a set of routes on the app (a route module of api/http/routes/ or a feature's). */
export type RouteModule = (app: HttpApp, deps: RouteDeps) => Promise<void>;
