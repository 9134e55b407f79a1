/**
 * Migration 20261211000000_lexical_ranking on a database holding knowledge bases made before it:
 * they become `simple` (the configuration their chunks were indexed with, so nothing is indexed
 * again) and their term statistics are filled in from the chunks of ready documents.
 */
import { readMigrations, runMigrations } from '../database/migration-runner';
import { unmigratedDatabase } from '../../test/support/test-prisma';

const MIGRATION = '20261211000000_lexical_ranking';

describe(`migration ${MIGRATION}`, () => {
  const db = unmigratedDatabase();

  it('keeps existing knowledge bases searchable as `simple` and backfills their statistics', async () => {
    const migrations = readMigrations();
    await runMigrations(db.handle.session, migrations.filter((m) => m.name < MIGRATION));
    await db.handle.session.exec(`
      INSERT INTO workspaces (id, name, updated_at) VALUES ('ws_m', 'm', now());
      INSERT INTO knowledge_bases (id, workspace_id, name, updated_at) VALUES ('kb_m', 'ws_m', 'old', now()), ('kb_empty', 'ws_m', 'empty', now());
      INSERT INTO documents (id, knowledge_base_id, title, source, status, updated_at)
        VALUES ('doc_ready', 'kb_m', 'r', 'text', 'ready', now()), ('doc_failed', 'kb_m', 'f', 'text', 'failed', now());
      INSERT INTO chunks (id, knowledge_base_id, document_id, ordinal, text, token_count, tsv) VALUES
        ('chk_1', 'kb_m', 'doc_ready', 0, 'solar panel', 2, to_tsvector('simple', 'solar panel')),
        ('chk_2', 'kb_m', 'doc_ready', 1, 'solar wind wind', 3, to_tsvector('simple', 'solar wind wind')),
        ('chk_3', 'kb_m', 'doc_failed', 0, 'solar tide', 2, to_tsvector('simple', 'solar tide'));`);

    // this migration alone (the next ones add other lexemes: chunk-tsv.ts)
    const report = await runMigrations(db.handle.session, migrations.filter((m) => m.name <= MIGRATION));
    expect(report.applied).toContain(MIGRATION);

    const kbs = await db.handle.session.query<{ id: string; language: string; indexed_chunks: number; indexed_tokens: string }>(
      'SELECT id, language, indexed_chunks, indexed_tokens::text FROM knowledge_bases ORDER BY id');
    expect(kbs).toEqual([
      { id: 'kb_empty', language: 'simple', indexed_chunks: 0, indexed_tokens: '0' },
      { id: 'kb_m', language: 'simple', indexed_chunks: 2, indexed_tokens: '5' },
    ]);
    // the failed document's chunk is not counted
    const terms = await db.handle.session.query<{ term: string; df: number }>("SELECT term, df FROM knowledge_base_terms WHERE knowledge_base_id = 'kb_m' ORDER BY term");
    expect(terms).toEqual([{ term: 'panel', df: 1 }, { term: 'solar', df: 2 }, { term: 'wind', df: 1 }]);
    // a knowledge base created afterwards gets the default
    await db.handle.session.exec("INSERT INTO knowledge_bases (id, workspace_id, name, updated_at) VALUES ('kb_new', 'ws_m', 'new', now())");
    expect(await db.handle.session.query("SELECT language FROM knowledge_bases WHERE id = 'kb_new'")).toEqual([{ language: 'auto' }]);
  });
});
