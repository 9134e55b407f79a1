/**
 * Ranking through the REST API as a user checks it: a knowledge base created with a `language`,
 * documents uploaded, searches whose first hit is the passage a reader would pick — the rare word
 * over the frequent one, an inflected English word, a Chinese word inside a longer sentence.
 */
import { ragClient } from './support/rag-client';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'test-bootstrap-token';

describe('Knowledge-base ranking (BM25, languages)', () => {
  let t: TestApp;
  let rag: ReturnType<typeof ragClient>;

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    rag = ragClient(t, TOKEN);
  });
  afterAll(() => t.close());

  const create = async (body: Record<string, unknown>) => (await t.http().post('/api/v1/knowledge-bases').set(rag.auth).send(body).expect(201)).body as { id: string; language: string };
  const titles = async (kb: string, query: string) => (await rag.search(kb, { query, k: 5 })).items.map((hit) => hit.title);

  it('creates knowledge bases with a language (default auto) and refuses an unknown one naming the field', async () => {
    expect((await create({ name: 'Default language' })).language).toBe('auto');
    const chinese = await create({ name: 'Chinese', language: 'chinese' });
    expect(chinese.language).toBe('chinese');
    expect((await t.http().get(`/api/v1/knowledge-bases/${chinese.id}`).set(rag.auth).expect(200)).body.language).toBe('chinese');
    const bad = await t.http().post('/api/v1/knowledge-bases').set(rag.auth).send({ name: 'Klingon', language: 'klingon' }).expect(400);
    expect(bad.body).toMatchObject({ code: 'validation_failed', message: expect.stringMatching(/^language must be one of the following values: auto, english, chinese, simple/) });
  });

  /** Six short notes sharing "server", one passage repeating it, and two on other subjects. */
  async function operations(client: ReturnType<typeof ragClient>, kb: string): Promise<void> {
    for (let i = 0; i < 6; i++) await client.addText(kb, { title: `Server note ${i}`, text: `The server restarts after update ${i}. Check the server log.` });
    await client.addText(kb, { title: 'Server overview', text: 'Server, server, server: every server has a server log and a server dashboard.' });
    await client.addText(kb, { title: 'Gateway', text: 'The gateway listens on port 8443 and forwards requests to the workers.' });
    await client.addText(kb, { title: 'Kerberos', text: 'Single sign-on uses a Kerberos ticket issued at login.' });
  }

  it('english: "listening" finds "listens"; the rare word lifts its passage into the hybrid top', async () => {
    const kb = (await create({ name: 'Operations', language: 'english' })).id;
    await operations(rag, kb);
    expect(await titles(kb, 'listening port')).toEqual(['Gateway']);
    expect(await titles(kb, 'listen')).toEqual(['Gateway']);
    // BM25 puts the Kerberos passage first; the offline embeddings (hashed words, no notion of
    // rarity) rank the passages repeating "server" first, and fusion weighs both lists alike
    expect(await titles(kb, 'server kerberos')).toContain('Kerberos');
  });

  it('an edited chunk is indexed in its knowledge base\'s language', async () => {
    const kb = (await create({ name: 'Edited', language: 'auto' })).id;
    const job = await rag.addText(kb, { title: 'Notes', text: 'Nothing to see yet.' });
    const documentId = job.result.documentId as string;
    const [chunk] = (await t.http().get(`/api/v1/knowledge-bases/${kb}/documents/${documentId}/chunks`).set(rag.auth).expect(200)).body.items as { id: string }[];
    await t.http().patch(`/api/v1/knowledge-bases/${kb}/chunks/${chunk.id}`).set(rag.auth).send({ text: 'The indexer listens for 文档更新 events.' }).expect(200);
    expect(await titles(kb, 'listening')).toEqual(['Notes']);
    expect(await titles(kb, '更新')).toEqual(['Notes']);
    expect(await titles(kb, 'nothing')).toEqual([]);
  });

  describe('full text alone (no pgvector)', () => {
    let lexical: TestApp;
    let client: ReturnType<typeof ragClient>;
    beforeAll(async () => {
      lexical = await startTestApp({ HELIX_API_TOKEN: TOKEN }, { vector: false });
      client = ragClient(lexical, TOKEN);
    });
    afterAll(() => lexical.close());

    it('ranks the passage holding the rare word above those repeating a frequent one', async () => {
      const kb = (await lexical.http().post('/api/v1/knowledge-bases').set(client.auth).send({ name: 'Operations', language: 'english' }).expect(201)).body.id as string;
      await operations(client, kb);
      // "server" is in 7 of 9 documents, "kerberos" in one
      const found = await client.search(kb, { query: 'server kerberos', k: 5 });
      expect(found.degraded).toBe(true);
      expect(found.items.map((hit) => hit.title).slice(0, 2)).toEqual(['Kerberos', 'Server overview']);
    });
  });

  it('chinese: a two-word query finds the passage holding both words inside a sentence', async () => {
    const kb = (await create({ name: '中文资料', language: 'chinese' })).id;
    await rag.addText(kb, { title: '存储', text: '# 存储\n\n会话和消息存储在数据库中，服务启动时读取。' });
    await rag.addText(kb, { title: '检索', text: '# 检索\n\n混合搜索把全文检索和向量检索的结果融合，再按倒数排名排序。' });
    await rag.addText(kb, { title: '流式', text: '# 流式\n\n运行通过服务器发送事件把令牌流式传给客户端。' });

    const found = await rag.search(kb, { query: '向量 融合', k: 5 });
    expect(found.items[0]).toMatchObject({ title: '检索', snippet: expect.stringContaining('向量') });
    expect((await titles(kb, '数据库'))[0]).toBe('存储');
  });

  it('auto stems English and segments Chinese in one document; english stems the query like the text', async () => {
    const en = (await create({ name: 'Mixed EN', language: 'english' })).id;
    const zh = (await create({ name: 'Mixed ZH', language: 'auto' })).id;
    await rag.addText(en, { title: 'Backups', text: 'Backups are verified nightly by restoring them.' });
    await rag.addText(zh, { title: '备份', text: '每天晚上恢复备份来验证它们。Restored backups are kept.' });
    const res = await t.http().post(`/api/v1/knowledge-bases/${en}/search`).set(rag.auth).send({ query: 'restoring backups', k: 5 }).expect(200);
    expect(res.body.items.map((hit: { title: string }) => hit.title)).toEqual(['Backups']);
    expect(await titles(zh, '恢复备份')).toEqual(['备份']);
    expect(await titles(zh, 'restore')).toEqual(['备份']);
  });
});
