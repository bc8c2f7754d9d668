// What route modules receive from the composition root.

import type { Config } from '../../../config/schema.js';
import type { Services } from '../../../services/index.js';
import type { HealthState } from '../../health-state.js';

export interface RouteDeps {
  config: Config;
  services: Services;
  health: HealthState;
}
