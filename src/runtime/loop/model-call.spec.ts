import type { ModelGateway } from '../../model/model-gateway';
import type { ModelChunk, ModelRequest } from '../../model/model.types';
import { ModelCall } from './model-call';

const REQUEST: ModelRequest = { model: { provider: 'openai', modelId: 'm' }, messages: [{ role: 'user', content: 'hi' }] };

/** A gateway whose one call yields `chunks` after `release()`, recording when it was sent and aborted. */
function fakeGateway(chunks: ModelChunk[]) {
  const seen = { sent: 0, aborted: false, closed: false, reason: undefined as unknown };
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const gateway = {
    async *stream(_request: ModelRequest, signal?: AbortSignal): AsyncGenerator<ModelChunk, void, undefined> {
      seen.sent++;
      signal?.addEventListener('abort', () => {
        seen.aborted = true;
        seen.reason = signal.reason;
      });
      try {
        await Promise.race([released, new Promise((_, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted'))))]);
        for (const chunk of chunks) yield chunk;
      } finally {
        seen.closed = true;
      }
    },
  };
  return { gateway: gateway as unknown as ModelGateway, seen, release };
}

async function collect(chunks: AsyncIterable<ModelChunk>): Promise<ModelChunk[]> {
  const out: ModelChunk[] = [];
  for await (const chunk of chunks) out.push(chunk);
  return out;
}

describe('ModelCall', () => {
  const text: ModelChunk[] = [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }];

  it('sends the call at once and hands every chunk to the taker', async () => {
    const { gateway, seen, release } = fakeGateway(text);
    const call = new ModelCall(gateway, REQUEST);
    expect(seen.sent).toBe(1); // before anyone asked for a chunk
    release();
    expect(await collect(call.take(new AbortController().signal))).toEqual(text);
    expect(seen.aborted).toBe(false);
  });

  it('discard aborts the call, quietly; taking it afterwards is an error', async () => {
    const { gateway, seen } = fakeGateway(text);
    const call = new ModelCall(gateway, REQUEST);
    call.discard();
    expect(seen.aborted).toBe(true);
    await new Promise((resolve) => setImmediate(resolve)); // no unhandled rejection from the aborted call
    expect(() => call.take(new AbortController().signal)).toThrow(/discarded/);
  });

  it("once taken, the run's signal aborts it and discard does nothing", async () => {
    const { gateway, seen } = fakeGateway(text);
    const call = new ModelCall(gateway, REQUEST);
    const run = new AbortController();
    const chunks = call.take(run.signal);
    call.discard();
    expect(seen.aborted).toBe(false);
    const reading = collect(chunks);
    run.abort(new Error('Run cancelled'));
    await expect(reading).rejects.toThrow('aborted');
    expect(seen.reason).toEqual(new Error('Run cancelled'));
  });

  it('a taker that stops early ends the call', async () => {
    const { gateway, seen, release } = fakeGateway([...text, { type: 'text', text: 'c' }]);
    const call = new ModelCall(gateway, REQUEST);
    release();
    const out: ModelChunk[] = [];
    for await (const chunk of call.take(new AbortController().signal)) {
      out.push(chunk);
      break;
    }
    expect(out).toEqual([text[0]]);
    expect(seen.closed).toBe(true);
  });
});
