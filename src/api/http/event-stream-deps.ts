// What the change stream routes and the OFREP bulk answer need when ofrep.event_streams is on.

import type { OfrepFreshness } from '../../services/ofrep-freshness.js';
import type { OfrepEventStreamAdvert } from './ofrep-event-streams.js';
import type { SseHub } from './sse-hub.js';

export interface EventStreamDeps {
  /** The open streams and what each is sent. */
  hub: SseHub;
  /** The `eventStreams` of bulk answers. */
  advert: OfrepEventStreamAdvert;
  /** flagConfigEtag read-your-writes. */
  freshness: OfrepFreshness;
}
