// The open long-lived streams (server-sent events, gRPC server streaming). A drain does not wait for
// them: when it starts, each is sent its last message and ended (endAll), so they neither delay the
// exit nor count as requests cut at the shutdown timeout.

export type EndStream = () => void;

export class LongLivedStreams {
  readonly #open = new Set<EndStream>();
  #draining = false;

  /** Registers a stream; call the returned function when it ends on its own. Ended at once during a drain. */
  add(end: EndStream): () => void {
    if (this.#draining) {
      end();
      return () => {};
    }
    this.#open.add(end);
    return () => this.#open.delete(end);
  }

  get size(): number {
    return this.#open.size;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Ends every open stream and every one added from now on. */
  endAll(): void {
    this.#draining = true;
    for (const end of [...this.#open]) {
      this.#open.delete(end);
      try {
        end();
      } catch {
        // A stream whose socket is already gone has nothing left to end.
      }
    }
  }
}
