/**
 * How ChunkSearchRepository's statement finds its candidates: the lexical list from the GIN
 * index's posting lists with BM25 computed only for a shortlist (the same ranking as scoring
 * every match, where the bounds allow), the vector list from the HNSW index walked on past other
 * knowledge bases' and filtered-out chunks, and neither turned into a sequential scan by a filter.
 */
import { HASHED_MODEL, hashedEmbedding, hashedQuery, hashedVector, mediumTest, type MediumTest } from '../../test/support/medium';
import type { KeyAuth } from '../security/auth-context';
import { SHORTLIST_FACTOR } from './bm25.statement';
import { type ChunkSearch, ChunkSearchRepository } from './chunk-search.repository';
import { OFFLINE_EMBEDDING_DIMENSIONS, hashEmbedding } from '../model';
import { INDEXED_DIMENSIONS, vectorLiteral } from './embedder';
import { lexicalQuery } from './lexical';
import { DocumentRepository } from './document.repository';
import { VectorIndexRepository } from './vector-index.repository';

describe('chunk search plans (database)', () => {
  let t: MediumTest;
  let auth: KeyAuth;
  let search: ChunkSearchRepository;

  beforeAll(async () => {
    t = await mediumTest();
    auth = await t.workspace();
    search = t.repo(ChunkSearchRepository);
  });
  afterAll(() => t?.close());

  const vectorIt = (name: string, fn: () => Promise<void>) => it(name, async () => (t.vector.enabled ? fn() : undefined));

  async function knowledgeBase(texts: string[], metadata: (i: number) => Record<string, unknown> = () => ({})): Promise<{ kb: string; ids: string[] }> {
    const kb = (await t.knowledgeBase(auth)).id;
    const ids: string[] = [];
    for (const [i, text] of texts.entries()) ids.push((await t.document(kb, text, { id: `${kb}_${String(i).padStart(3, '0')}`, metadata: metadata(i) })).id);
    return { kb, ids: ids.map((id) => `chk_${id}`) };
  }

  const lexical = (kb: string, query: string, more: Partial<ChunkSearch> = {}) =>
    search.search({ knowledgeBaseIds: [kb], lexical: [{ knowledgeBaseIds: [kb], config: 'simple', query: lexicalQuery(query) }], candidates: 5, k: 5, ...more });
  const nearest = (kbs: string[], query: string, more: Partial<ChunkSearch> = {}) =>
    search.search({ knowledgeBaseIds: kbs, lexical: [], vector: hashedQuery(query), candidates: 5, k: 5, ...more });

  it('scoring a shortlist ranks as scoring every match did, when the bounds leave no more than the shortlist', async () => {
    // a common word in every chunk, a rarer one in some, at different frequencies and lengths
    const texts = Array.from({ length: 60 }, (_, i) => {
      const rare = i % 6 === 0 ? ' quartz'.repeat(1 + (i % 4)) : '';
      const filler = Array.from({ length: 3 + (i % 7) }, (_, j) => `w${j}`).join(' ');
      return `stone ${filler}${rare}${i % 5 === 0 ? ' stone stone' : ''}`;
    });
    const { kb } = await knowledgeBase(texts);
    const everyMatch = await lexical(kb, 'quartz stone', { candidates: 60 * SHORTLIST_FACTOR, k: 50 });
    expect(everyMatch).toHaveLength(50);
    const shortlisted = await lexical(kb, 'quartz stone', { candidates: 5, k: 5 });
    expect(shortlisted.map((row) => row.id)).toEqual(everyMatch.slice(0, 5).map((row) => row.id));
  });

  it('the tidy-up after ingestion merges the full-text index\'s pending list, which every search reads whole', async () => {
    // merges the pending list now, answering how many pages it held
    const pendingPages = async () => (await t.sql.$queryRaw<{ n: number }[]>`SELECT gin_clean_pending_list('chunks_tsv_gin_idx'::regclass)::int AS n`)[0].n;
    await knowledgeBase(['harbour lantern', 'lantern keeper']);
    expect(await pendingPages()).toBeGreaterThan(0);
    const { kb, ids } = await knowledgeBase(['lantern oil', 'keeper of the oil']);
    await t.repo(DocumentRepository).tidyAfterIngestion();
    expect(await pendingPages()).toBe(0);
    // and the chunks are found through the index proper
    expect((await lexical(kb, 'oil')).map((row) => row.id).sort()).toEqual(ids.sort());
  });

  describe('common terms (in more chunks than commonTermChunks)', () => {
    // four words in most chunks, a rare one in three; chunk 0 holds every common word
    const texts = Array.from({ length: 40 }, (_, i) =>
      [i % 4 !== 1 && 'river', i % 4 !== 2 && 'stone', i % 4 !== 3 && 'bridge', i % 5 !== 4 && 'moss', i % 13 === 0 && 'otter', `filler${i}`].filter(Boolean).join(' '));
    let kb: string;
    let ids: string[];
    beforeAll(async () => ({ kb, ids } = await knowledgeBase(texts)));
    const ranked = async (query: string, commonTermChunks: number, candidates = 5) => (await lexical(kb, query, { commonTermChunks, candidates, k: candidates })).map((row) => row.id);

    it('chunks holding every common term rank as exact scoring ranks them', async () => {
      const holdingAll = ids.filter((_, i) => i % 4 === 0 && i % 5 !== 4);
      const approximate = await ranked('river stone bridge moss', 5, holdingAll.length);
      expect(approximate.sort()).toEqual(holdingAll.sort());
      // scoring every chunk puts the same chunks first, in the same order
      const exact = await ranked('river stone bridge moss', 1_000, holdingAll.length);
      expect(await ranked('river stone bridge moss', 5, holdingAll.length)).toEqual(exact);
    });

    it('a rare term\'s chunks are all listed beside the common terms\' intersection', async () => {
      const rows = await ranked('otter river stone', 5, 10);
      for (const i of [0, 13, 26, 39]) expect(rows).toContain(ids[i]);
      // none holding one common term without the rare one
      expect(rows.every((id) => ids.indexOf(id) % 13 === 0 || [0, 3].includes(ids.indexOf(id) % 4))).toBe(true);
      // in the order exact scoring gives them, the chunks with the rare word and both common ones first
      const exact = await ranked('otter river stone', 1_000, 40);
      expect(rows).toEqual(exact.filter((id) => rows.includes(id)));
      expect(rows.slice(0, 2).sort()).toEqual([ids[0], ids[39]]);
    });

    it('when too few chunks hold every common term, each term\'s chunks are listed after all', async () => {
      // no chunk holds all of river, stone, bridge (each misses one in four)
      const rows = await ranked('river stone bridge', 5, 10);
      expect(rows).toHaveLength(10);
      expect(rows).toEqual(await ranked('river stone bridge', 1_000, 10));
    });
  });

  describe('common terms in many chunks: listed by length bucket', () => {
    // chunks of 2 to 61 words, most holding both common words, some a rare one too; their
    // metadata names the parity of their number
    const filler = (n: number) => Array.from({ length: n }, (_, j) => `f${j}`).join(' ');
    const texts = Array.from({ length: 120 }, (_, i) => {
      const words = [i % 7 !== 3 && 'lantern', i % 5 !== 2 && 'harbour', i % 17 === 0 && 'gannet'].filter(Boolean).join(' ');
      return `${words} ${filler((i * 37) % 60)}`;
    });
    let kb: string;
    beforeAll(async () => ({ kb } = await knowledgeBase(texts, (i) => ({ parity: i % 2 ? 'odd' : 'even' }))));
    const ranked = async (query: string, lengthWalkChunks: number, more: Partial<ChunkSearch> = {}) =>
      (await lexical(kb, query, { commonTermChunks: 10, lengthWalkChunks, lengthStepChunks: 1, candidates: 4, k: 4, ...more })).map((row) => row.id);

    it('finds the chunks sorting the whole intersection finds, and stops at the bucket that has enough', async () => {
      for (const query of ['lantern harbour', 'lantern', 'gannet lantern harbour']) {
        const sorted = await ranked(query, 1_000);
        expect(sorted).toHaveLength(4);
        expect(await ranked(query, 0)).toEqual(sorted);
        // buckets walked a few together
        expect(await ranked(query, 0, { lengthStepChunks: 30 })).toEqual(sorted);
      }
      const lexicalOnly = { knowledgeBaseIds: [kb], lexical: [{ knowledgeBaseIds: [kb], config: 'simple' as const, query: lexicalQuery('lantern harbour') }], commonTermChunks: 10, lengthStepChunks: 1, candidates: 4, k: 4 };
      // chunk rows a plan read
      const read = (plan: string) => [...plan.matchAll(/Bitmap Heap Scan on chunks[^\n]*actual[^\n]*rows=([\d.]+) loops=(\d+)/g)].reduce((n, m) => n + Number(m[1]) * Number(m[2]), 0);
      const walking = await search.explain({ ...lexicalOnly, lengthWalkChunks: 0 });
      const sorting = await search.explain({ ...lexicalOnly, lengthWalkChunks: 1_000 });
      expect(walking).toMatch(/CTE Scan on steps(?![^\n]*never executed)/);
      expect(sorting).toMatch(/CTE Scan on steps[^\n]*never executed/);
      // sorting reads every chunk holding both words (some 80), the walk fewer than half
      expect(read(sorting)).toBeGreaterThan(70);
      expect(read(walking)).toBeLessThan(read(sorting) / 2);
    });

    it('of the bucket where it stops, the shortest chunks, not the first stored', async () => {
      // one bucket (16 to 20 tokens): first stored, ten of 20 tokens saying lantern ten times
      // (they would rank first); then twelve of 17 tokens, the shortest: the ten shortlisted
      const stored = [
        ...Array.from({ length: 10 }, () => `${'lantern '.repeat(10)}harbour ${filler(4)}`),
        ...Array.from({ length: 12 }, () => `lantern harbour ${filler(7)}`),
      ];
      const { kb: bucket, ids } = await knowledgeBase(stored);
      const shortest = async (lengthWalkChunks: number) =>
        (await lexical(bucket, 'lantern harbour', { commonTermChunks: 10, lengthWalkChunks, lengthStepChunks: 1, candidates: 2, k: 2 })).map((row) => row.id);
      expect(await shortest(1_000)).toEqual([ids[10], ids[11]]);
      expect(await shortest(0)).toEqual([ids[10], ids[11]]);
    });

    it('with a metadata filter, the same', async () => {
      for (const query of ['lantern harbour', 'gannet lantern']) {
        const sorted = await ranked(query, 1_000, { filter: { parity: 'odd' } });
        expect(sorted.length).toBeGreaterThan(0);
        expect(await ranked(query, 0, { filter: { parity: 'odd' } })).toEqual(sorted);
      }
    });
  });

  it('the common terms\' chunks beyond the shortlist are not listed, yet one holding a rare term too keeps their score', async () => {
    // river and stone are common, otter rare; 60 short chunks hold both common words, and only two
    // long ones hold all three: they rank first, above ten a word shorter of otter and river alone
    const filler = (n: number) => Array.from({ length: n }, (_, j) => `f${j}`).join(' ');
    const texts = Array.from({ length: 80 }, (_, i) => {
      if (i < 10) return `otter river ${filler(13)}`;
      if (i < 12) return `otter river stone ${filler(13)}`;
      if (i < 20) return filler(3);
      return `river stone ${filler(1 + (i % 5))}`;
    });
    const { kb, ids } = await knowledgeBase(texts);
    const query = 'otter river stone';
    const truncated = await lexical(kb, query, { commonTermChunks: 20, candidates: 2, k: 2 });
    expect(truncated.map((row) => row.id).sort()).toEqual([ids[10], ids[11]]);
    // as scoring every term's chunks ranks them
    const exact = await lexical(kb, query, { commonTermChunks: 1_000, candidates: 80, k: 50 });
    expect(truncated.map((row) => row.id)).toEqual(exact.slice(0, 2).map((row) => row.id));
    // the common terms alone: the shortest of their 62 chunks, ranked as exact scoring ranks them
    const common = await lexical(kb, 'river stone', { commonTermChunks: 20, candidates: 3, k: 3 });
    const everyMatch = await lexical(kb, 'river stone', { commonTermChunks: 1_000, candidates: 80, k: 50 });
    expect(common.map((row) => row.id)).toEqual(everyMatch.slice(0, 3).map((row) => row.id));
  });

  it('chunks of a document that is not ready are not listed, with a filter or without', async () => {
    const { kb, ids } = await knowledgeBase(['harbor lantern one', 'harbor lantern two'], () => ({ shelf: 'a' }));
    await t.repo(DocumentRepository).setStatus(ids[1].slice('chk_'.length), 'processing');
    for (const filter of [undefined, { shelf: 'a' }]) {
      expect((await lexical(kb, 'harbor', { filter, commonTermChunks: 1 })).map((row) => row.id)).toEqual([ids[0]]);
      expect((await lexical(kb, 'harbor lantern', { filter })).map((row) => row.id)).toEqual([ids[0]]);
    }
  });

  it('a lexeme with a quote or a backslash is searched as itself', async () => {
    const { kb, ids } = await knowledgeBase(["o'brien wrote", 'back\\slash here', 'nothing']);
    expect((await lexical(kb, "o'brien")).map((row) => row.id)).toContain(ids[0]);
    expect((await lexical(kb, 'back\\slash')).map((row) => row.id)).toContain(ids[1]);
  });

  vectorIt('the vector list of one knowledge base walks past nearer chunks of another, in distance order', async () => {
    // 60 chunks of another knowledge base nearer to the query than any of ours
    const other = await knowledgeBase(Array.from({ length: 60 }, (_, i) => `beacon beacon beacon signal${i}`));
    const ours = await knowledgeBase(['beacon harbor', 'beacon harbor lighthouse keeper', 'storm beacon', 'unrelated words only']);
    const rows = await nearest([ours.kb], 'beacon');
    expect(rows.map((row) => row.knowledge_base_id)).toEqual(rows.map(() => ours.kb));
    // the three chunks sharing a word, nearest first (ties by chunk id)
    const expected = [ours.ids[0], ours.ids[2], ours.ids[1]];
    expect(rows.map((row) => row.id)).toEqual(expected);
    expect((await nearest([other.kb, ours.kb], 'beacon', { candidates: 70, k: 50 })).length).toBe(50);
  });

  vectorIt('a metadata filter keeps the vector list to matching documents, still in distance order', async () => {
    const { kb, ids } = await knowledgeBase(
      Array.from({ length: 50 }, (_, i) => (i % 10 === 0 ? `comet tail ${'x'.repeat(i)}` : `comet comet comet dust${i}`)),
      (i) => ({ tagged: i % 10 === 0 }),
    );
    const rows = await nearest([kb], 'comet', { filter: { tagged: true }, candidates: 10, k: 10 });
    expect(rows.map((row) => row.id).sort()).toEqual(ids.filter((_, i) => i % 10 === 0).sort());
    const exact = await t.sql.$queryRaw<{ id: string }[]>`
      SELECT v.chunk_id AS id FROM (SELECT * FROM chunk_vectors UNION ALL SELECT * FROM chunk_vectors_waiting) v JOIN documents d ON d.id = v.document_id
      WHERE v.knowledge_base_id = ${kb} AND d.metadata @> '{"tagged": true}'::jsonb
      ORDER BY v.embedding <=> ${hashedVector('comet')}::vector, v.chunk_id`;
    expect(rows.map((row) => row.id)).toEqual(exact.map((row) => row.id));
  });

  vectorIt('through the HNSW index (larger knowledge bases): only that knowledge base\'s chunks, in distance order', async () => {
    const other = await knowledgeBase(Array.from({ length: 60 }, (_, i) => `lantern lantern lantern glow${i}`));
    const ours = await knowledgeBase(Array.from({ length: 30 }, (_, i) => `lantern wick${i} ${i % 2 ? 'oil' : ''}`), (i) => ({ odd: i % 2 === 1 }));
    await indexAll();
    const distances = new Map<string, number>(
      (await t.sql.$queryRaw<{ id: string; distance: number }[]>`
        SELECT chunk_id AS id, embedding <=> ${hashedVector('lantern')}::vector AS distance FROM chunk_vectors WHERE knowledge_base_id IN (${ours.kb}, ${other.kb})`).map((row) => [row.id, row.distance]),
    );
    for (const filter of [undefined, { odd: true }]) {
      const rows = await nearest([ours.kb], 'lantern', { exactVectorScanMax: 0, candidates: 10, k: 10, filter });
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((row) => row.knowledge_base_id === ours.kb)).toBe(true);
      if (filter) expect(rows.every((row) => ours.ids.indexOf(row.id) % 2 === 1)).toBe(true);
      const found = rows.map((row) => distances.get(row.id)!);
      expect(found).toEqual([...found].sort((a, b) => a - b));
    }
    const plan = await search.explain({ knowledgeBaseIds: [ours.kb], lexical: [], vector: hashedQuery('lantern'), filter: { odd: true }, exactVectorScanMax: 0, candidates: 10, k: 10 });
    expect(plan).toContain(`Index Scan using chunk_vectors_${OFFLINE_EMBEDDING_DIMENSIONS}_hnsw_idx`);
    expect(plan).not.toMatch(/Seq Scan on chunk/);
  });

  /** Adds every waiting vector of a ready document to the HNSW index, as the VectorIndexer does. */
  async function indexAll(): Promise<void> {
    while (await t.repo(VectorIndexRepository).indexWaiting(100));
  }

  vectorIt('vectors waiting for the HNSW index are compared exactly until they are in it', async () => {
    const { kb, ids } = await knowledgeBase(Array.from({ length: 20 }, (_, i) => `harbour crane${i} ${i % 4 ? 'dock' : ''}`));
    // a document still being ingested: its chunk waits, and stays out of the index
    const documents = t.repo(DocumentRepository);
    await documents.insert({ id: `${kb}_busy`, knowledgeBaseId: kb, title: 'busy', source: 'text', mimeType: 'text/plain', checksum: `${kb}_busy`, metadata: {} });
    const busy = { id: `chk_${kb}_busy`, ordinal: 0, text: 'harbour dock', lexical: 'harbour dock', tokenCount: 2, headingPath: [], charStart: 0, charEnd: 12, embedding: hashedEmbedding('harbour dock') };
    await documents.insertChunks({ id: `${kb}_busy`, knowledgeBaseId: kb, config: 'simple' }, [busy], HASHED_MODEL);
    const waiting = t.repo(VectorIndexRepository);
    expect((await waiting.waitingIn([kb])).get(kb)).toBe(21);

    const query: ChunkSearch = { knowledgeBaseIds: [kb], lexical: [], vector: hashedQuery('harbour dock'), exactVectorScanMax: 0, candidates: 20, k: 20 };
    const exact = (await search.search({ ...query, exactVectorScanMax: undefined })).map((row) => row.id);
    expect(exact).toHaveLength(20);
    expect(exact).not.toContain(busy.id);
    // the knowledge base is past the exact scan's size, but none of its vectors is indexed yet
    expect((await search.search(query)).map((row) => row.id)).toEqual(exact);
    expect(await search.explain(query)).toMatch(/Index Scan (using|on) chunk_vectors_waiting_knowledge_base_idx(?![^\n]*never executed)/);

    await indexAll();
    // what the indexer does once it has drained the backlog
    await waiting.vacuum();
    expect((await waiting.waitingIn([kb])).get(kb)).toBe(1);
    const [row] = await t.sql.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM chunk_vectors_waiting WHERE chunk_id = ${busy.id}`;
    expect(row.n).toBe(1);
    // now through the HNSW index (approximate: it may miss some), in the same order
    const indexed = (await search.search(query)).map((row) => row.id);
    expect(indexed.length).toBeGreaterThan(ids.length / 2);
    expect(indexed).toEqual(exact.filter((id) => indexed.includes(id)));
  });

  vectorIt('a filter few chunks pass compares them all instead of walking the HNSW index', async () => {
    const { kb, ids } = await knowledgeBase(Array.from({ length: 30 }, (_, i) => `glacier ice${i}`), (i) => ({ rare: i < 3 }));
    const query: ChunkSearch = { knowledgeBaseIds: [kb], lexical: [], vector: hashedQuery('glacier'), exactVectorScanMax: 5, candidates: 10, k: 10 };
    const filtered = { ...query, filter: { rare: true } };
    const plan = await search.explain(filtered);
    // the index's branch is never run: a one-time filter stops it
    expect(plan).toMatch(/Index Scan using chunk_vectors_\d+_hnsw_idx[^\n]*\(never executed\)/);
    expect((await search.search(filtered)).map((row) => row.id).sort()).toEqual(ids.slice(0, 3).sort());
    // a filter nothing passes finds nothing, at once: neither list reads an index
    expect(await search.search({ ...query, filter: { rare: 'never' } })).toEqual([]);
    const nothing = await search.explain({ ...query, filter: { rare: 'never' }, lexical: [{ knowledgeBaseIds: [kb], config: 'simple', query: lexicalQuery('glacier ice1') }] });
    expect(nothing).not.toMatch(/Bitmap Index Scan on chunks_tsv_gin_idx(?![^\n]*never executed)/);
    expect(nothing).not.toMatch(/hnsw_idx(?![^\n]*never executed)/);
    // without a filter, 30 chunks are more than 5: the HNSW index
    expect(await search.explain(query)).not.toMatch(/hnsw_idx[^\n]*\(never executed\)/);
  });

  vectorIt('each indexed size is searched through its own HNSW index, in distance order', async () => {
    for (const dims of INDEXED_DIMENSIONS) {
      const model = `test:embed-${dims}`;
      const { kb, ids } = await knowledgeBase(Array.from({ length: 12 }, (_, i) => `orbit moon${i} ${i % 3 ? 'crater' : ''}`));
      // this model's vectors, at its size
      for (const id of ids) {
        const [{ text }] = await t.sql.$queryRaw<{ text: string }[]>`SELECT text FROM chunks WHERE id = ${id}`;
        await t.sql.$executeRaw`DELETE FROM chunk_vectors_waiting WHERE chunk_id = ${id}`;
        await t.sql.$executeRaw`
          INSERT INTO chunk_vectors (chunk_id, knowledge_base_id, document_id, model, embedding)
          SELECT id, knowledge_base_id, document_id, ${model}, ${vectorLiteral(Array.from(hashEmbedding(text, dims)))}::vector FROM chunks WHERE id = ${id}`;
      }
      const vector = { literal: vectorLiteral(Array.from(hashEmbedding('crater orbit', dims))), model, dimensions: dims };
      const query: ChunkSearch = { knowledgeBaseIds: [kb], lexical: [], vector, exactVectorScanMax: 0, candidates: 20, k: 12 };
      const plan = await search.explain(query);
      expect(plan).toContain(`Index Scan using chunk_vectors_${dims}_hnsw_idx`);
      expect(plan).not.toMatch(/Seq Scan on chunk/);
      // exact: the eight chunks sharing both words first, then the four sharing one
      const exact = await search.search({ ...query, exactVectorScanMax: undefined });
      expect(exact.map((row) => ids.indexOf(row.id) % 3 !== 0)).toEqual([...Array<boolean>(8).fill(true), ...Array<boolean>(4).fill(false)]);
      // through the index (approximate: it may miss some), only those chunks, in the same order
      const rows = (await search.search(query)).map((row) => row.id);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows).toEqual(exact.map((row) => row.id).filter((id) => rows.includes(id)));
    }
  });

  it('the plan reads the GIN index, never every chunk, with a knowledge-base and metadata filter', async () => {
    const { kb } = await knowledgeBase(Array.from({ length: 30 }, (_, i) => `meteor shower ${i}`), (i) => ({ n: i % 3 }));
    const plan = await search.explain({
      knowledgeBaseIds: [kb],
      lexical: [{ knowledgeBaseIds: [kb], config: 'simple', query: lexicalQuery('meteor shower') }],
      vector: t.vector.enabled ? hashedQuery('meteor shower') : undefined,
      filter: { n: 1 },
      candidates: 5,
      k: 5,
    });
    expect(plan).toContain('Bitmap Index Scan on chunks_tsv_gin_idx');
    expect(plan).not.toMatch(/Seq Scan on chunks/);
    expect(plan).toMatch(/Execution Time/);
    // never compiled: PostgreSQL's JIT took most of a search's time at 100,000 chunks
    expect(plan).toMatch(/Settings: .*jit = 'off'/);
    expect(plan).not.toMatch(/^JIT:/m);
    // the generic plan a search reuses (its conditions name parameters, not values)
    expect(plan).toMatch(/Settings: .*plan_cache_mode = 'force_generic_plan'/);
    expect(plan).toMatch(/Index Cond: \(knowledge_base_id = \$\d+\)/);
  });
});
