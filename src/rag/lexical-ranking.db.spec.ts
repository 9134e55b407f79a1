/**
 * Full-text ranking as a user sees it (RetrievalService, lexical only): BM25 weighs rare words
 * above frequent ones, each knowledge base's language decides stemming and Chinese segmentation,
 * and the term statistics BM25 reads follow documents becoming ready and being deleted.
 */
import { VectorSupport } from '../database/database-handle';
import { mediumTest, type MediumTest } from '../../test/support/medium';
import type { KeyAuth } from '../security/auth-context';
import { LENGTH_LEXEME_PREFIX } from './chunk-tsv';
import { ChunkSearchRepository } from './chunk-search.repository';
import { DocumentRepository } from './document.repository';
import type { Embedder } from './embedder';
import { KnowledgeBaseRepository } from './knowledge-base.repository';
import { KnowledgeBaseService } from './knowledge-base.service';
import type { Language } from './lexical';
import { RetrievalService } from './retrieval.service';

describe('lexical ranking (database)', () => {
  let t: MediumTest;
  let auth: KeyAuth;
  let retrieval: RetrievalService;

  beforeAll(async () => {
    t = await mediumTest();
    auth = await t.workspace();
    retrieval = new RetrievalService(
      new KnowledgeBaseService(t.repo(KnowledgeBaseRepository)),
      t.repo(ChunkSearchRepository),
      undefined as unknown as Embedder,
      new VectorSupport(false, 'lexical only in this spec'),
    );
  });
  afterAll(() => t?.close());

  /** A knowledge base of that language holding one document per text (chunks `chk_<kb>_<name>`). */
  async function knowledgeBase(language: Language, docs: Record<string, string>): Promise<string> {
    const kb = (await t.knowledgeBase(auth, { language })).id;
    for (const [name, text] of Object.entries(docs)) await t.document(kb, text, { id: `${kb}_${name}` });
    return kb;
  }
  const find = async (kbs: string[], query: string) =>
    (await retrieval.search(auth, { knowledgeBaseIds: kbs, query, k: 10 })).items.map((hit) => hit.id.replace(/^chk_kb_t_\d+_/, ''));

  it('ranks a passage holding the rare query word above one repeating a frequent one', async () => {
    const common = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`common${i}`, `The server restarts when configuration ${i} changes.`]));
    const kb = await knowledgeBase('simple', {
      ...common,
      frequent: 'The server logs, the server metrics and the server traces of every server.',
      rare: 'Deploying next to a platypus colony needs a permit.',
    });
    // "server" is in 9 of 10 chunks and worth little; "platypus" in one
    const hits = await find([kb], 'server platypus');
    expect(hits[0]).toBe('rare');
    expect(hits[1]).toBe('frequent');
    expect(hits).toHaveLength(10);
  });

  it('english: an inflected word finds its stem, stop words match nothing; simple matches as written', async () => {
    const text = { listens: 'The service listens on port 8080.', other: 'Backups run every night.' };
    const english = await knowledgeBase('english', text);
    const simple = await knowledgeBase('simple', text);
    expect(await find([english], 'listening')).toEqual(['listens']);
    expect(await find([english], 'listen')).toEqual(['listens']);
    expect(await find([english], 'the on a')).toEqual([]);
    expect(await find([simple], 'listening')).toEqual([]);
    expect(await find([simple], 'listens')).toEqual(['listens']);
  });

  it.each(['chinese', 'auto'] as const)('%s: a Chinese query finds its words inside longer sentences', async (language) => {
    const kb = await knowledgeBase(language, {
      storage: '会话和消息存储在数据库中，每次启动时读取。',
      fusion: '混合搜索把全文检索和向量检索的结果融合在一起。',
      other: 'Helix streams tokens with server-sent events.',
    });
    expect(await find([kb], '数据库')).toEqual(['storage']);
    // two words, each in the passage but not next to each other
    expect(await find([kb], '向量融合')).toEqual(['fusion']);
    expect(await find([kb], 'streams')).toEqual(['other']);
  });

  it('auto stems English words and segments Chinese in the same text', async () => {
    const kb = await knowledgeBase('auto', { mixed: 'Helix listens for 消息 and stores them in 数据库里面.', other: 'Nothing here.' });
    expect(await find([kb], 'listening')).toEqual(['mixed']);
    expect(await find([kb], '数据库')).toEqual(['mixed']);
  });

  it('searches knowledge bases of different languages together, each with its own terms', async () => {
    const english = await knowledgeBase('english', { en: 'The crawler follows every link it finds.' });
    const simple = await knowledgeBase('simple', { plain: 'Links followed: none.' });
    // "follows" is stemmed in the English one; the simple one matches "followed" only as written
    expect((await find([english, simple], 'followed')).sort()).toEqual(['en', 'plain']);
    expect(await find([english, simple], 'follows')).toEqual(['en']);
  });

  it('keeps document frequencies and totals as documents become ready and are deleted', async () => {
    const kb = await knowledgeBase('simple', { a: 'alpha beta', b: 'alpha gamma' });
    // each chunk's length lexeme counts as a term (chunk-tsv.ts): two tokens, bucket 2
    const length2 = `${LENGTH_LEXEME_PREFIX}2`;
    const stats = async () => {
      const [totals] = await t.sql.$queryRaw<{ indexed_chunks: number; indexed_tokens: bigint }[]>`
        SELECT indexed_chunks, indexed_tokens FROM knowledge_bases WHERE id = ${kb}`;
      const terms = await t.sql.$queryRaw<{ term: string; df: number }[]>`
        SELECT term, df FROM knowledge_base_terms WHERE knowledge_base_id = ${kb} AND df > 0 ORDER BY term`;
      return { chunks: totals.indexed_chunks, tokens: Number(totals.indexed_tokens), terms: Object.fromEntries(terms.map((r) => [r.term, r.df])) };
    };
    expect(await stats()).toEqual({ chunks: 2, tokens: expect.any(Number), terms: { alpha: 2, beta: 1, gamma: 1, [length2]: 2 } });
    const tokens = (await stats()).tokens;
    expect(tokens).toBeGreaterThan(0);

    const documents = t.repo(DocumentRepository);
    // a document still being ingested counts for nothing, and its deletion takes nothing away
    await documents.insert({ id: `${kb}_busy`, knowledgeBaseId: kb, title: 'busy', source: 'text', mimeType: 'text/plain', checksum: 'busy', metadata: {} });
    await documents.insertChunks({ id: `${kb}_busy`, knowledgeBaseId: kb, config: 'simple' }, [
      { id: `chk_${kb}_busy`, ordinal: 0, text: 'alpha delta', lexical: 'alpha delta', tokenCount: 2, headingPath: [], charStart: 0, charEnd: 11 },
    ], null);
    expect((await stats()).terms).toEqual({ alpha: 2, beta: 1, gamma: 1, [length2]: 2 });
    expect(await documents.delete(kb, `${kb}_busy`)).toBe(true);
    expect((await stats()).terms).toEqual({ alpha: 2, beta: 1, gamma: 1, [length2]: 2 });

    expect(await documents.delete(kb, `${kb}_a`)).toBe(true);
    expect(await stats()).toEqual({ chunks: 1, tokens: expect.any(Number), terms: { alpha: 1, gamma: 1, [length2]: 1 } });
    expect((await stats()).tokens).toBeLessThan(tokens);
    expect(await documents.delete(kb, `${kb}_a`)).toBe(false);
  });
});
