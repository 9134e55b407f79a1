import type { ModelChunk, ModelRef } from '../model.types';
import type { ModelTarget } from '../model-router';
import { OpenAiCompatibleProvider } from './openai-compatible.provider';

const ref: ModelRef = { provider: 'openai', modelId: 'mock-model' };
const target: ModelTarget = {
  ref, kind: 'openai-compatible', baseURL: 'http://provider.invalid/v1', apiKey: 'key', toolsEnabled: true,
  info: { ref, contextWindow: 8192, inputPrice: 0, outputPrice: 0, supportsTools: true, vision: false, structuredOutput: false },
};
const PIECE_BYTES = 64 * 1024;

/**
 * A transport whose answer is a stream body already whole in memory, in network-sized pieces: as
 * a burst that arrived in one go, the reader never waits for data and never leaves its chain of
 * microtasks unless it gives the event loop a turn itself.
 */
function burstFetch(deltas: Array<Record<string, unknown>>): typeof fetch {
  const event = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'mock-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const body = new TextEncoder().encode(`${deltas.map((d) => event(d)).join('')}${event({}, 'stop')}data: [DONE]\n\n`);
  return async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < body.length; at += PIECE_BYTES) controller.enqueue(body.slice(at, at + PIECE_BYTES));
          controller.close();
        },
      }),
      { status: 200, headers: { 'content-type': 'text/event-stream' } },
    );
}

describe('OpenAiCompatibleProvider', () => {
  it('reads a burst that arrived at once in slices, giving the event loop turns, the first token out alone', async () => {
    const burst = 20_000;
    const provider = new OpenAiCompatibleProvider({
      fetch: burstFetch([{ reasoning_content: 'r0' }, { reasoning_content: 'r1' }, ...Array.from({ length: burst }, (_, i) => ({ content: `t${i} ` }))]),
    });
    // what a consumer does for a chunk (a token stored, then sent) needs later turns of the event loop
    let turns = 0;
    let chunksAtFirstTurn = 0;
    let ended = false;
    const chunks: ModelChunk[] = [];
    const countTurn = () => {
      if (turns++ === 0) chunksAtFirstTurn = chunks.length;
      if (!ended) setImmediate(countTurn);
    };
    for await (const chunk of provider.stream({ target, request: { model: ref, messages: [{ role: 'user', content: 'hi' }] }, streaming: true })) {
      if (chunk.type !== 'text' && chunk.type !== 'reasoning') continue;
      chunks.push(chunk);
      if (chunks.length === 1) setImmediate(countTurn);
    }
    ended = true;
    const texts = (type: 'text' | 'reasoning') => chunks.flatMap((c) => (c.type === type ? [c.text] : []));
    expect(texts('text').join('')).toBe(Array.from({ length: burst }, (_, i) => `t${i} `).join(''));
    // the first delta of each kind comes alone, at once
    expect(texts('reasoning')).toEqual(['r0', 'r1']);
    expect(texts('text')[0]).toBe('t0 ');
    // the event loop turned while the burst was read, not only once all of it was …
    expect(chunksAtFirstTurn).toBeLessThan(chunks.length);
    expect(turns).toBeGreaterThan(2);
    // … and the rest came joined (a chunk per slice or piece), not a chunk per delta
    expect(chunks.length).toBeLessThan(burst / 20);
  });

  it("lets what its consumer queued for an answer's first delta finish before it reads on", async () => {
    const provider = new OpenAiCompatibleProvider({
      fetch: burstFetch([{ reasoning_content: 'r0' }, { reasoning_content: 'r1' }, ...Array.from({ length: 5_000 }, (_, i) => ({ content: `t${i} ` }))]),
    });
    // a chain of microtasks, as storing a token is (the event writer to the database thread's port)
    const chain = async (hops: number) => {
      for (let i = 0; i < hops; i++) await Promise.resolve();
    };
    const seenWhenStored: Record<string, number> = {};
    const chunks: ModelChunk[] = [];
    for await (const chunk of provider.stream({ target, request: { model: ref, messages: [{ role: 'user', content: 'hi' }] }, streaming: true })) {
      if (chunk.type !== 'text' && chunk.type !== 'reasoning') continue;
      chunks.push(chunk);
      const { type } = chunk;
      if (!(type in seenWhenStored)) void chain(50).then(() => (seenWhenStored[type] = chunks.length));
    }
    // each first delta was stored before the provider handed over the next chunk
    expect(seenWhenStored).toEqual({ reasoning: 1, text: 3 });
  });
});
