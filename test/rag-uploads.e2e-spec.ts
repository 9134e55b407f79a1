/**
 * Document uploads reach ingestion through a file, never whole in the server's memory: Multer
 * writes the part to disk (UPLOAD_DIR), text and Markdown are read back a slice at a time and
 * chunked window by window, PDFs and HTML are read from the file by the extraction worker, and
 * the file is removed when its request is refused or its job ends.
 */
import { readdirSync } from 'node:fs';
import { KnowledgeBaseController, MAX_UPLOAD_BYTES } from '../src/rag/knowledge-base.controller';
import { chunkText, normaliseText } from '../src/rag/chunker';
import { CHUNK_TOKENS, OVERLAP_TOKENS } from '../src/rag/ingestion.service';
import { countTokens } from '../src/rag/token-count';
import { WINDOW_CHARS } from '../src/rag/text-stream';
import { UPLOAD_DIR } from '../src/rag/upload-storage';
import { prismaOf } from './support/test-prisma';
import { minimalPdf } from './support/pdf-fixture';
import { ragClient } from './support/rag-client';
import { startTestApp, type TestApp } from './support/test-app';

const TOKEN = 'rag-uploads-token';
jest.setTimeout(300_000);

/** The files waiting in the upload directory (none once every request and job has ended). */
const stored = () => {
  try {
    return readdirSync(UPLOAD_DIR);
  } catch {
    return [];
  }
};

describe('document uploads through a file', () => {
  let t: TestApp;
  let rag: ReturnType<typeof ragClient>;
  let kb: string;
  const upload = (name: string, data: Buffer | string) =>
    t.http().post(`/api/v1/knowledge-bases/${kb}/documents`).set(rag.auth).attach('file', Buffer.from(data), name);

  beforeAll(async () => {
    t = await startTestApp({ HELIX_API_TOKEN: TOKEN });
    rag = ragClient(t, TOKEN);
    kb = await rag.createKnowledgeBase('Uploads');
  });
  afterAll(() => t?.close());

  it('stores the upload on disk as it arrives (Multer disk storage), not in memory', () => {
    const interceptors = Reflect.getMetadata('__interceptors__', KnowledgeBaseController.prototype.addDocument) as Array<new () => { multer: { storage: object } }>;
    const storage = new interceptors[0]().multer.storage;
    expect(storage.constructor.name).toBe('DiskStorage');
  });

  it('ingests a text file near the 20 MB limit, read a slice at a time, and removes the file', async () => {
    // 19.9 MB: blank-looking lines the normalisation drops, then the text
    const padding = `${' '.repeat(1023)}\n`.repeat(Math.floor((MAX_UPLOAD_BYTES - 100_000) / 1024));
    const text = 'The lighthouse keeper lights the lamp at dusk.';
    const posted = await upload('keeper.txt', `${padding}${text}\n`).expect(202);
    const job = await rag.waitForJob(posted.body.id, 120_000);
    expect(job).toMatchObject({ state: 'succeeded', result: { chunks: 1 } });
    const found = await rag.search(kb, { query: 'lighthouse keeper', k: 1 });
    expect(found.items[0]).toMatchObject({ documentId: job.result.documentId, text });
    expect(stored()).toEqual([]);
  });

  it('chunks a Markdown file of several windows as the whole text, heading paths and offsets included', async () => {
    const sections = Array.from({ length: 120 }, (_, i) =>
      `${i % 20 === 0 ? `# Volume ${i / 20}\n\n` : ''}## Chapter ${i}\n\n${`Chapter ${i} tells of the harbour, the ferry and the tides. `.repeat(80)}`,
    );
    const markdown = `${sections.join('\n\n')}\n\n## Epilogue\n\nThe albatross returns to the cliffs in spring.\n`;
    expect(markdown.length).toBeGreaterThan(2 * WINDOW_CHARS);
    const posted = await upload('saga.md', markdown).expect(202);
    const job = await rag.waitForJob(posted.body.id, 240_000);
    expect(job.state).toBe('succeeded');

    const whole = chunkText(normaliseText(markdown), { targetTokens: CHUNK_TOKENS, overlapTokens: OVERLAP_TOKENS, countTokens });
    const rows = await prismaOf(t.app).chunk.findMany({ where: { documentId: job.result.documentId as string }, orderBy: { ordinal: 'asc' } });
    expect(rows.map((row) => [row.text, row.headingPath, row.charStart, row.charEnd])).toEqual(whole.map((c) => [c.text, c.headingPath, c.charStart, c.charEnd]));
    expect(job.result.chunks).toBe(whole.length);
    const found = await rag.search(kb, { query: 'albatross cliffs spring', k: 1 });
    expect(found.items[0]).toMatchObject({ documentId: job.result.documentId, headingPath: ['Volume 5', 'Epilogue'] });
    expect(stored()).toEqual([]);
  });

  it('reads PDFs and HTML from the file in the worker, and removes the file after a failure too', async () => {
    const pdf = await rag.waitForJob((await upload('rotor.pdf', minimalPdf(['Rotor', 'The rotor spins clockwise.'])).expect(202)).body.id);
    expect(pdf.state).toBe('succeeded');
    const html = await rag.waitForJob((await upload('page.html', '<h1>Tides</h1><p>High tide at noon.</p>').expect(202)).body.id);
    expect(html.state).toBe('succeeded');
    const broken = await rag.waitForJob((await upload('broken.pdf', '%PDF-1.4 not really').expect(202)).body.id);
    expect(broken).toMatchObject({ state: 'failed', error: expect.stringMatching(/^the PDF could not be read: /) });
    expect(stored()).toEqual([]);
  });

  it('removes the file of a refused upload: too large (413), binary (415), bad fields (400), unknown knowledge base (404)', async () => {
    await upload('big.txt', Buffer.alloc(MAX_UPLOAD_BYTES + 1, 'a')).expect(413);
    await upload('dump.txt', Buffer.from([0x68, 0x00, 0x69])).expect(415);
    await upload('tool.exe', 'MZ').expect(415);
    await t.http().post(`/api/v1/knowledge-bases/${kb}/documents`).set(rag.auth).field('colour', 'red').attach('file', Buffer.from('x'), 'x.txt').expect(400);
    await t.http().post('/api/v1/knowledge-bases/kb_missing/documents').set(rag.auth).attach('file', Buffer.from('x'), 'x.txt').expect(404);
    expect(stored()).toEqual([]);
  });
});
