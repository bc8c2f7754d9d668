// The instance's readiness, shared by HTTP /health and gRPC grpc.health.v1.Health.

export type ServingStatus = 'SERVING' | 'NOT_SERVING';

export class HealthState {
  #status: ServingStatus = 'NOT_SERVING';
  readonly #listeners = new Set<(status: ServingStatus) => void>();

  status(): ServingStatus {
    return this.#status;
  }

  set(status: ServingStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    for (const listener of this.#listeners) listener(status);
  }

  onChange(listener: (status: ServingStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
