// Tells whoever holds derived state (compiled snapshots, caches, other instances) that a namespace
// changed. Writes publish after their transaction commits.

export type ChangeListener = (namespaceKey: string) => void;

export class ChangeFeed {
  readonly #listeners = new Set<ChangeListener>();

  subscribe(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(namespaceKey: string): void {
    for (const listener of this.#listeners) listener(namespaceKey);
  }
}
