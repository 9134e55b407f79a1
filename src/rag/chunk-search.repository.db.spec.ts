/**
 * The ranking rule of hybrid retrieval, which lives in one SQL statement (ChunkSearchRepository):
 * each list's top `candidates` numbered from 1, a chunk scoring the sum of 1 / (RRF_K + rank)
 * over the lists it is in, ties by chunk id, `k` kept. And RetrievalService over it: lexical-only
 * results flagged degraded, with the reason.
 */
import { BadRequestException } from '@nestjs/common';
import { VectorSupport } from '../database/database-handle';
import { HASHED_MODEL, hashedQuery, hashedVector, mediumTest, type MediumTest } from '../../test/support/medium';
import type { KeyAuth } from '../security/auth-context';
import { type ChunkSearch, ChunkSearchRepository, type ChunkSearchRow, RRF_K } from './chunk-search.repository';
import type { Embedder } from './embedder';
import { KnowledgeBaseRepository } from './knowledge-base.repository';
import { KnowledgeBaseService } from './knowledge-base.service';
import { lexicalQuery } from './lexical';
import { RetrievalService } from './retrieval.service';

const rrf = (...ranks: number[]) => ranks.reduce((sum, rank) => sum + 1 / (RRF_K + rank), 0);

/** The rule written out: lists of chunk ids, best first, fused; ties by chunk id. */
function fuse(...lists: string[][]): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + rrf(i + 1)));
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
}

const ranked = (rows: ChunkSearchRow[]) => rows.map((row) => ({ id: row.id, score: row.score }));
const closeTo = (expected: { id: string; score: number }[]) => expected.map(({ id, score }) => ({ id, score: expect.closeTo(score, 12) }));

describe('hybrid ranking (database)', () => {
  let t: MediumTest;
  let auth: KeyAuth;
  let search: ChunkSearchRepository;

  beforeAll(async () => {
    t = await mediumTest();
    auth = await t.workspace();
    search = t.repo(ChunkSearchRepository);
  });
  afterAll(() => t?.close());

  /** A knowledge base holding one document per text (ids `<name>`, chunks `chk_<name>`). */
  async function knowledgeBase(docs: Record<string, string>): Promise<string> {
    const kb = (await t.knowledgeBase(auth)).id;
    for (const [id, text] of Object.entries(docs)) await t.document(kb, text, { id: `${kb}_${id}` });
    return kb;
  }
  const chunk = (kb: string, name: string) => `chk_${kb}_${name}`;

  /** A search of `kb` whose lexical and vector queries may differ (the statement takes them apart). */
  const find = (kb: string, lexical: string | null, vector: string | null, more: Partial<ChunkSearch> = {}) =>
    search.search({
      knowledgeBaseIds: [kb],
      lexical: lexical === null ? [] : [{ knowledgeBaseIds: [kb], config: 'simple', query: lexicalQuery(lexical) }],
      vector: vector === null ? undefined : hashedQuery(vector),
      candidates: 20,
      k: 20,
      ...more,
    });

  it('the constant is 60', () => {
    expect(RRF_K).toBe(60);
  });

  it('full text alone: 1 / (60 + rank) by BM25, chunks without a query word left out', async () => {
    const kb = await knowledgeBase({ many: 'solar solar solar panel', one: 'solar power and many other words here', none: 'wind turbines' });
    expect(ranked(await find(kb, 'solar panel', null))).toEqual(closeTo([
      { id: chunk(kb, 'many'), score: rrf(1) },
      { id: chunk(kb, 'one'), score: rrf(2) },
    ]));
  });

  it('equal full-text ranks are numbered by chunk id, and so scored', async () => {
    const kb = await knowledgeBase({ b: 'tidal energy', a: 'tidal energy', c: 'tidal energy' });
    expect(ranked(await find(kb, 'tidal', null))).toEqual(closeTo([
      { id: chunk(kb, 'a'), score: rrf(1) },
      { id: chunk(kb, 'b'), score: rrf(2) },
      { id: chunk(kb, 'c'), score: rrf(3) },
    ]));
  });

  it('neither list asked for: nothing', async () => {
    const kb = await knowledgeBase({ a: 'solar panel' });
    expect(await find(kb, null, null)).toEqual([]);
    // a query of no words at all makes no lexical list either
    expect(await find(kb, '?!', null)).toEqual([]);
  });

  describe('with vectors', () => {
    // PostgreSQL without pgvector has no vector list to fuse (rag-lexical.e2e-spec covers that server)
    const vectorIt = (name: string, fn: () => Promise<void>) => it(name, async () => (t.vector.enabled ? fn() : undefined));

    vectorIt('a chunk in both lists scores the sum of its two reciprocal ranks, each chunk once', async () => {
      const filler = Array.from({ length: 30 }, (_, i) => `filler${i}`).join(' ');
      const kb = await knowledgeBase({
        long: `solar panel maintenance ${filler} solar panel maintenance solar panel maintenance`,
        exact: 'Solar panel maintenance.',
        partial: 'solar panel',
        word: `maintenance ${filler}`,
        other: 'wind turbines need gearbox oil',
      });
      const query = 'solar panel maintenance';
      const lexical = (await find(kb, query, null)).map((row) => row.id);
      const nearest = (await find(kb, null, query)).map((row) => row.id);
      // the two lists disagree, so the fusion decides
      expect(lexical).not.toEqual(nearest);
      expect(new Set(lexical)).toEqual(new Set(nearest));
      const hybrid = await find(kb, query, query);
      expect(ranked(hybrid)).toEqual(closeTo(fuse(lexical, nearest)));
      expect(new Set(hybrid.map((row) => row.id)).size).toBe(hybrid.length);
      expect(hybrid.map((row) => row.id)).not.toContain(chunk(kb, 'other'));
    });

    vectorIt('found by both at rank 2 outranks found by one at rank 1; a tie goes to the lower chunk id', async () => {
      const kb = await knowledgeBase({
        z_lexical: 'alpha alpha alpha', // lexical rank 1; no word of "beta": not near it
        a_vector: 'beta', // nearest to "beta"; no "alpha": no full-text match
        both: 'alpha beta gamma delta epsilon zeta', // second in each list
      });
      const lexical = await find(kb, 'alpha', null);
      expect(lexical.map((row) => row.id)).toEqual([chunk(kb, 'z_lexical'), chunk(kb, 'both')]);
      const nearest = await find(kb, null, 'beta');
      expect(nearest.map((row) => row.id)).toEqual([chunk(kb, 'a_vector'), chunk(kb, 'both')]);

      expect(ranked(await find(kb, 'alpha', 'beta'))).toEqual(closeTo([
        { id: chunk(kb, 'both'), score: rrf(2, 2) },
        { id: chunk(kb, 'a_vector'), score: rrf(1) },
        { id: chunk(kb, 'z_lexical'), score: rrf(1) },
      ]));
      expect(rrf(2, 2)).toBeGreaterThan(rrf(1));
    });

    vectorIt('each list is cut to `candidates` before fusing; the fused list to `k`', async () => {
      const kb = await knowledgeBase({
        z_lexical: 'alpha alpha alpha',
        a_vector: 'beta',
        both: 'alpha beta gamma delta epsilon zeta',
      });
      // one candidate a list: "both" is second in each, so in neither
      expect(ranked(await find(kb, 'alpha', 'beta', { candidates: 1 }))).toEqual(closeTo([
        { id: chunk(kb, 'a_vector'), score: rrf(1) },
        { id: chunk(kb, 'z_lexical'), score: rrf(1) },
      ]));
      expect((await find(kb, 'alpha', 'beta', { k: 1 })).map((row) => row.id)).toEqual([chunk(kb, 'both')]);
      expect((await find(kb, 'alpha', 'beta', { k: 2 })).map((row) => row.id)).toEqual([chunk(kb, 'both'), chunk(kb, 'a_vector')]);
    });

    vectorIt('compares only vectors of the query\'s embedding model', async () => {
      const kb = await knowledgeBase({ a: 'beta' });
      expect((await find(kb, null, 'beta')).map((row) => row.id)).toEqual([chunk(kb, 'a')]);
      const otherModel = await search.search({ knowledgeBaseIds: [kb], lexical: [], vector: { ...hashedQuery('beta'), model: 'openai:text-embedding-3-small' }, candidates: 20, k: 20 });
      expect(otherModel).toEqual([]);
    });
  });

  it('searches only the knowledge bases named (each once), and documents whose metadata holds the filter', async () => {
    const kb = (await t.knowledgeBase(auth)).id;
    const other = await knowledgeBase({ a: 'geothermal heat' });
    await t.document(kb, 'geothermal heat pumps', { id: `${kb}_en`, metadata: { lang: 'en', year: 2024 } });
    await t.document(kb, 'geothermal heat', { id: `${kb}_de`, metadata: { lang: 'de' } });
    const run = (more: Partial<ChunkSearch>) =>
      search.search({ knowledgeBaseIds: [kb], lexical: [{ knowledgeBaseIds: more.knowledgeBaseIds ?? [kb], config: 'simple', query: 'geothermal' }], candidates: 20, k: 20, ...more });
    expect((await run({})).map((row) => row.id).sort()).toEqual([`chk_${kb}_de`, `chk_${kb}_en`]);
    expect((await run({ knowledgeBaseIds: [kb, kb] })).map((row) => row.id).sort()).toEqual([`chk_${kb}_de`, `chk_${kb}_en`]);
    expect((await run({ filter: { lang: 'en' } })).map((row) => row.id)).toEqual([`chk_${kb}_en`]);
    expect((await run({ filter: { lang: 'en', year: 2023 } })).map((row) => row.id)).toEqual([]);
    expect((await run({ knowledgeBaseIds: [kb, other] })).map((row) => row.id).sort()).toEqual([chunk(other, 'a'), `chk_${kb}_de`, `chk_${kb}_en`].sort());
  });

  describe('RetrievalService', () => {
    const embedder = (embed: (text: string) => string) =>
      ({
        model: async () => ({ label: HASHED_MODEL, ref: { provider: 'offline', modelId: 'hashed' } }),
        embedQuery: async (_ws: string, _m: unknown, text: string) => ({ literal: embed(text), dimensions: hashedQuery(text).dimensions }),
      }) as unknown as Embedder;
    const service = (vector: VectorSupport, embed: (text: string) => string = hashedVector) =>
      new RetrievalService(new KnowledgeBaseService(t.repo(KnowledgeBaseRepository)), search, embedder(embed), vector);

    it('without vector search: the full-text ranking, flagged degraded with the reason', async () => {
      const kb = await knowledgeBase({ many: 'solar solar solar panel', one: 'solar power and many other words here' });
      const result = await service(new VectorSupport(false, 'pgvector is not installed')).search(auth, { knowledgeBaseIds: [kb], query: 'solar', k: 5 });
      expect(result.degraded).toBe(true);
      expect(result.degradedReason).toBe('vector search unavailable: pgvector is not installed');
      expect(result.items.map((hit) => [hit.id, hit.score])).toEqual([[chunk(kb, 'many'), expect.closeTo(rrf(1), 12)], [chunk(kb, 'one'), expect.closeTo(rrf(2), 12)]]);
    });

    it('a query that cannot be embedded: lexical only, degraded, naming the error', async () => {
      const kb = await knowledgeBase({ a: 'solar panel' });
      const failing = service(new VectorSupport(true), () => {
        throw new Error('embeddings endpoint down');
      });
      const result = await failing.search(auth, { knowledgeBaseIds: [kb], query: 'solar', k: 5 });
      expect(result).toMatchObject({ degraded: true, degradedReason: 'the query could not be embedded: embeddings endpoint down' });
      expect(result.items.map((hit) => hit.id)).toEqual([chunk(kb, 'a')]);
    });

    it('with vectors: not degraded, and the hits fused from both lists', async () => {
      if (!t.vector.enabled) return;
      const kb = await knowledgeBase({ z_lexical: 'alpha alpha alpha', both: 'alpha beta' });
      const result = await service(new VectorSupport(true)).search(auth, { knowledgeBaseIds: [kb, kb], query: 'alpha', k: 5 });
      expect(result).toEqual({ degraded: false, items: expect.any(Array) });
      // both chunks hold "alpha", so each is in both lists (the query's knowledge base once)
      expect(result.items.map((hit) => [hit.id, hit.score])).toEqual([
        [chunk(kb, 'z_lexical'), expect.closeTo(rrf(1, 1), 12)],
        [chunk(kb, 'both'), expect.closeTo(rrf(2, 2), 12)],
      ]);
    });

    it('k must be an integer from 1 to 50, and the query not blank', async () => {
      const kb = await knowledgeBase({ a: 'solar panel' });
      const retrieval = service(new VectorSupport(false, 'off'));
      for (const k of [0, 51, 2.5]) await expect(retrieval.search(auth, { knowledgeBaseIds: [kb], query: 'solar', k })).rejects.toBeInstanceOf(BadRequestException);
      await expect(retrieval.search(auth, { knowledgeBaseIds: [kb], query: '   ', k: 5 })).rejects.toThrow('query must not be empty');
      expect((await retrieval.search(auth, { knowledgeBaseIds: [kb], query: 'solar', k: 50 })).items).toHaveLength(1);
    });
  });
});
