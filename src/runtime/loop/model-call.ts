import type { ModelGateway, CallObserver, ModelChunk, ModelRequest } from '../../model';

/**
 * A model call that is sent as soon as it is made, and read by whoever takes it. The loop takes
 * a step's call at once; a new run's first call is sent while the run is still being written
 * (RunStarter), so that the provider's time to first token overlaps the POST's database unit, and
 * its loop takes it once the run is committed; every other outcome (a conflict, a queued run, a
 * conversation that changed meanwhile) discards it, which aborts the request. Whoever holds one
 * must take or discard it.
 */
export class ModelCall {
  private readonly controller = new AbortController();
  private readonly stream: AsyncGenerator<ModelChunk, void, undefined>;
  private first?: Promise<IteratorResult<ModelChunk, void>>;
  private state: 'sent' | 'taken' | 'discarded' = 'sent';

  constructor(gateway: ModelGateway, request: ModelRequest, observer?: CallObserver) {
    this.stream = gateway.stream(request, this.controller.signal, observer);
    this.first = this.stream.next(); // runs the gateway up to the first chunk: the request goes out now
    this.first.catch(() => undefined); // the taker sees a failure; a discarded call's is nobody's
  }

  /** The call's chunks, for the run's loop; from now on the run's `signal` aborts the call. */
  take(signal: AbortSignal): AsyncIterable<ModelChunk> {
    if (this.state !== 'sent') throw new Error(`This model call was already ${this.state}`);
    this.state = 'taken';
    const abort = () => this.controller.abort(signal.reason);
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
    const unlink = () => signal.removeEventListener('abort', abort);
    const next = async (): Promise<IteratorResult<ModelChunk, void>> => {
      const pending = this.first ?? this.stream.next();
      this.first = undefined;
      try {
        const result = await pending;
        if (result.done) unlink();
        return result;
      } catch (error) {
        unlink();
        throw error;
      }
    };
    const iterator: AsyncIterator<ModelChunk, void> = {
      next,
      return: async () => {
        unlink();
        return this.stream.return();
      },
    };
    return { [Symbol.asyncIterator]: () => iterator };
  }

  /** Aborts the call unless the run's loop took it (then a no-op). */
  discard(): void {
    if (this.state !== 'sent') return;
    this.state = 'discarded';
    this.controller.abort();
  }
}
