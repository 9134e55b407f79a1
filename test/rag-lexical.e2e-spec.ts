/**
 * Helix on a database without pgvector (PGlite opened without the extension; on PostgreSQL a
 * role that may not create it): it starts, retrieval is full-text only and flagged degraded.
 */
import { VectorSupport } from '../src/database/database-handle';
import { ragClient } from './support/rag-client';
import { startTestApp, TestApp } from './support/test-app';

const TOKEN = 'test-bootstrap-token';

describe('Knowledge bases without pgvector (lexical-only)', () => {
  let t: TestApp;
  let rag: ReturnType<typeof ragClient>;

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN }, { vector: false });
    rag = ragClient(t, TOKEN);
  });
  afterAll(() => t.close());

  it('starts ready with the vector migration skipped', async () => {
    const support = t.app.get(VectorSupport);
    expect(support.enabled).toBe(false);
    expect(support.reason).toMatch(/^needs the pgvector extension: /);
    await t.http().get('/health/ready').expect(200, { status: 'ok', database: t.database.kind, migrations: 'applied' });
  });

  it('ingests without vectors and searches by words, flagged degraded with the reason', async () => {
    const kb = await rag.createKnowledgeBase('Lexical');
    const en = await rag.addText(kb, { title: 'Streaming', text: '# Helix\n\n## Streaming\n\nHelix streams tokens with server-sent events.' });
    expect(en).toMatchObject({ state: 'succeeded', result: { embedded: false, warning: expect.stringMatching(/^not embedded: needs the pgvector extension: .*searchable by words only$/) } });
    const zh = await rag.addText(kb, { title: '存储', text: '会话和消息存储在数据库中。' });

    const found = await rag.search(kb, { query: 'server-sent events', k: 5 });
    expect(found).toMatchObject({ degraded: true, degradedReason: expect.stringMatching(/^vector search unavailable: needs the pgvector extension/) });
    expect(found.items.map((hit) => hit.documentId)).toEqual([en.result.documentId]);
    expect(found.items[0].headingPath).toEqual(['Helix', 'Streaming']);
    expect((await rag.search(kb, { query: '数据库' })).items.map((hit) => hit.documentId)).toEqual([zh.result.documentId]);
    expect((await rag.search(kb, { query: 'nothing matches this' })).items).toEqual([]);
  });
});
