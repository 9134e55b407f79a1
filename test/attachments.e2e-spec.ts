/**
 * Attachments over HTTP/SSE on the embedded database, with the mock LLM recording what reaches
 * the provider (issue 33 part 4): an image goes to a model that sees as an `image_url` part, a
 * text file as context with its name, a multipart upload works like a data URL; a spoofed file,
 * one over HELIX_MAX_ATTACHMENT_BYTES and an image for a model that cannot see are refused before
 * anything is stored or run; GET /files/:id serves the bytes to the workspace's members only; a
 * fork keeps the attachments; the offline model "sees" an image without any key.
 */
import { GraphQLClient, gql } from 'graphql-request';
import request from 'supertest';
import { useMockApp } from './support/mock-app';
import type { MockMessage, MockRequestBody } from './support/mock-llm/mock-llm';
import { SqlClient } from '../src/database';
import { minimalPdf } from './support/pdf-fixture';
import { HelixApi } from './support/sse-client';

const TOKEN = 'attachments-e2e-token';
const MAX_BYTES = 4096;
jest.setTimeout(120_000);

/** a 1×1 PNG */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const PNG = Buffer.from(PNG_BASE64, 'base64');
const dataUrl = (bytes: Buffer, type = 'application/octet-stream') => `data:${type};base64,${bytes.toString('base64')}`;
const NOTES = '# Trip notes\n\nThe heron nests by the north pond.\n';

/** the last user message the provider was sent */
const lastUser = (body: MockRequestBody): MockMessage => [...(body.messages ?? [])].reverse().find((m) => m.role === 'user')!;

describe('attachments on messages (mock LLM, embedded database)', () => {
  const ctx = useMockApp(TOKEN, { HELIX_MAX_ATTACHMENT_BYTES: String(MAX_BYTES), HELIX_BODY_LIMIT: '2kb' });
  let admin: GraphQLClient;
  let other: HelixApi;

  beforeAll(async () => {
    admin = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    // the mock's model sees (the model config's flag); `blind-model` is in no catalog: it does not
    await admin.request(gql`mutation($input: ModelConfigInput!) { upsertModelConfig(input: $input) { id vision } }`, {
      input: { provider: 'openai', modelId: 'mock-model', vision: true },
    });
    const { createWorkspace } = await admin.request<{ createWorkspace: { id: string } }>(gql`mutation { createWorkspace(name: "Other") { id } }`);
    const { createApiKey } = await admin.request<{ createApiKey: { key: string } }>(
      gql`mutation($w: ID) { createApiKey(name: "other", role: member, workspaceId: $w) { key } }`,
      { w: createWorkspace.id },
    );
    other = new HelixApi(ctx.t.baseUrl, createApiKey.key);
  });

  /** the rows of `files`: a refused message stores none */
  const storedFiles = async () => (await ctx.t.app.get(SqlClient).$queryRaw<Array<{ n: number }>>`SELECT count(*)::int AS n FROM files`)[0].n;

  /** a new conversation's first message with one attachment, to the end of its run; what the provider was sent */
  async function converseWith(text: string, name: string, bytes: Buffer, type?: string) {
    const conversationId = await ctx.api.createConversation();
    const before = ctx.mock.requests.length;
    const { posted, done } = await ctx.api.converse(conversationId, { text, mode: 'direct', attachments: [{ name, dataUrl: dataUrl(bytes, type) }] });
    expect(done.data.state).toBe('SUCCEEDED');
    return { conversationId, posted, sent: lastUser(ctx.mock.requests[before]) };
  }

  it('an image reaches a model that sees as an image_url part; the message references the stored file', async () => {
    const { conversationId, posted, sent } = await converseWith('What is in this picture?', 'dot.png', PNG, 'image/png');
    expect(sent.content).toEqual([
      { type: 'text', text: 'What is in this picture?' },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
    ]);
    const attachments = posted.message.parts.attachments;
    expect(attachments).toEqual([{ fileId: expect.stringMatching(/^file_/), name: 'dot.png', mediaType: 'image/png', size: PNG.length }]);
    const [stored] = await ctx.api.messages(conversationId);
    expect(stored.parts.attachments).toEqual(attachments);

    // served back: the same bytes, its type, never sniffed by a browser, cacheable by its sha256
    const file = await ctx.api.get(`/files/${attachments[0].fileId}`).expect(200);
    // supertest collects an image/* body as a Buffer
    expect(Buffer.isBuffer(file.body) && Buffer.compare(file.body, PNG)).toBe(0);
    expect(file.headers).toMatchObject({
      'content-type': 'image/png',
      'x-content-type-options': 'nosniff',
      etag: expect.stringMatching(/^"[0-9a-f]{64}"$/),
    });
    expect(file.headers['content-disposition']).toMatch(/^inline/);
    await ctx.api.get(`/files/${attachments[0].fileId}`).set('If-None-Match', file.headers.etag).expect(304);

    // the same bytes again are the same file (stored once per workspace)
    const again = await ctx.api.postMessage(conversationId, { text: 'again', mode: 'direct', attachments: [{ name: 'copy.png', dataUrl: dataUrl(PNG) }] });
    expect(again.message.parts.attachments[0]).toMatchObject({ fileId: attachments[0].fileId, name: 'copy.png' });
    await ctx.api.waitForRun(again.run.id);

    // another workspace cannot read it: 404, as for an id that never existed
    const refused = await other.get(`/files/${attachments[0].fileId}`).expect(404);
    expect(refused.body).toMatchObject({ statusCode: 404, message: `File ${attachments[0].fileId} not found` });
    await ctx.api.get('/files/file_unknown').expect(404);
  });

  it('a text file reaches the provider as context, with its name', async () => {
    const { posted, sent } = await converseWith('Where does the heron nest?', 'notes.md', Buffer.from(NOTES), 'text/markdown');
    expect(posted.message.parts.attachments).toEqual([expect.objectContaining({ name: 'notes.md', mediaType: 'text/markdown', size: Buffer.byteLength(NOTES) })]);
    expect(sent.content).toBe(`Where does the heron nest?\n\nAttached file \`notes.md\`:\n${NOTES}`);
    const file = await ctx.api.get(`/files/${posted.message.parts.attachments[0].fileId}`).expect(200);
    expect(file.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(file.headers['content-disposition']).toMatch(/^attachment/);
    expect(file.text).toBe(NOTES);
  });

  it("a PDF reaches the provider as its text; it is served back as a download", async () => {
    const pdf = minimalPdf(['Quarterly report', 'Herons: 42 nests']);
    const { posted, sent } = await converseWith('How many nests?', 'report.pdf', pdf, 'application/pdf');
    expect(posted.message.parts.attachments).toEqual([expect.objectContaining({ name: 'report.pdf', mediaType: 'application/pdf', size: pdf.length })]);
    const content = sent.content as string;
    expect(content).toMatch(/^How many nests\?\n\nAttached file `report.pdf`:\n/);
    expect(content).toContain('Herons: 42 nests');
    const file = await ctx.api.get(`/files/${posted.message.parts.attachments[0].fileId}`).expect(200);
    expect(file.headers).toMatchObject({ 'content-type': 'application/pdf', 'content-disposition': expect.stringMatching(/^attachment; filename="file_\w+\.pdf"$/) });
  });

  it('takes a multipart upload: the text and the other fields as form fields, the files as parts', async () => {
    const conversationId = await ctx.api.createConversation();
    const before = ctx.mock.requests.length;
    const res = await request(ctx.t.baseUrl)
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .set('X-API-Token', TOKEN)
      .field('text', 'Read both')
      .field('mode', 'direct')
      .field('modelOverride', JSON.stringify({ provider: 'openai', modelId: 'mock-model' }))
      .attach('files', Buffer.from(NOTES), { filename: '笔记.txt', contentType: 'text/plain' })
      .attach('files', PNG, { filename: 'dot.png', contentType: 'image/png' })
      .expect(201);
    expect(res.body.message.parts.attachments).toEqual([
      expect.objectContaining({ name: '笔记.txt', mediaType: 'text/plain' }),
      expect.objectContaining({ name: 'dot.png', mediaType: 'image/png', size: PNG.length }),
    ]);
    await ctx.api.waitForRun(res.body.run.id);
    const sent = lastUser(ctx.mock.requests[before]);
    expect(sent.content).toEqual([
      { type: 'text', text: `Read both\n\nAttached file \`笔记.txt\`:\n${NOTES}` },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
    ]);
    // a field that must be JSON and is not: 400 naming it
    const bad = await request(ctx.t.baseUrl)
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .set('X-API-Token', TOKEN)
      .field('text', 'x')
      .field('modelOverride', 'gpt-4o')
      .expect(400);
    expect(bad.body.message).toBe('modelOverride must be JSON in a multipart body');
  });

  it("a message's JSON body may pass HELIX_BODY_LIMIT by its attachments' base64; other routes keep the limit", async () => {
    const conversationId = await ctx.api.createConversation();
    const notes = Buffer.from('heron '.repeat(MAX_BYTES / 6));
    const body = { text: 'Read this', mode: 'direct', attachments: [{ name: 'long.txt', dataUrl: dataUrl(notes) }] };
    expect(JSON.stringify(body).length).toBeGreaterThan(2048);
    const posted = await ctx.api.postMessage(conversationId, body);
    expect(posted.message.parts.attachments[0]).toMatchObject({ name: 'long.txt', size: notes.length });
    await ctx.api.waitForRun(posted.run.id);
    const elsewhere = await ctx.api.patch(`/conversations/${conversationId}`, { title: 'x'.repeat(3000) }).expect(413);
    expect(elsewhere.body.message).toBe('Request body is too large (the limit is 2048 bytes, HELIX_BODY_LIMIT)');
  });

  it('a streaming multipart POST (Accept: text/event-stream) answers the run as SSE, the image sent', async () => {
    const conversationId = await ctx.api.createConversation();
    const form = new FormData();
    form.append('text', 'Stream about this');
    form.append('mode', 'direct');
    form.append('image', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'dot.png');
    const before = ctx.mock.requests.length;
    const res = await fetch(`${ctx.t.baseUrl}/api/v1/conversations/${conversationId}/messages`, {
      method: 'POST',
      headers: { Accept: 'text/event-stream', 'X-API-Token': TOKEN },
      body: form,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = await res.text(); // the server ends the response after done
    expect(stream).toMatch(/event: done\ndata: \{"runId":"run_\w+","state":"SUCCEEDED"\}/);
    const parts = lastUser(ctx.mock.requests[before]).content;
    expect(Array.isArray(parts) && parts.map((p) => p.type)).toEqual(['text', 'image_url']);
  });

  it('refuses a spoofed file, a binary and one over HELIX_MAX_ATTACHMENT_BYTES, storing nothing', async () => {
    const conversationId = await ctx.api.createConversation();
    const filesBefore = await storedFiles();
    const post = (attachments: object[]) => ctx.api.post(`/conversations/${conversationId}/messages`, { text: 'look', attachments });
    const spoofed = await post([{ name: 'x.png', dataUrl: dataUrl(Buffer.from('<script>alert(1)</script>'), 'image/png') }]).expect(415);
    expect(spoofed.body.message).toBe('attachments: x.png is refused: its content is not what its name or declared type says');
    const zip = await post([{ name: 'archive.zip', dataUrl: dataUrl(Buffer.from([0x50, 0x4b, 3, 4, 20, 0, 0, 0, 0, 0])) }]).expect(415);
    expect(zip.body.message).toMatch(/^attachments: archive.zip is not a supported kind of file/);
    const big = await post([{ name: 'big.txt', dataUrl: dataUrl(Buffer.alloc(MAX_BYTES + 1, 'a')) }]).expect(413);
    expect(big.body.message).toBe(`attachments: big.txt is ${MAX_BYTES + 1} bytes; the limit is ${MAX_BYTES} bytes (HELIX_MAX_ATTACHMENT_BYTES)`);
    const bigPart = await request(ctx.t.baseUrl)
      .post(`/api/v1/conversations/${conversationId}/messages`)
      .set('X-API-Token', TOKEN)
      .field('text', 'look')
      .attach('file', Buffer.alloc(MAX_BYTES + 1, 'a'), 'big.txt')
      .expect(413);
    expect(bigPart.body.message).toBe(`attachments: a file of the form field file is larger than ${MAX_BYTES} bytes (HELIX_MAX_ATTACHMENT_BYTES)`);
    const tooMany = await post(Array.from({ length: 11 }, (_, i) => ({ name: `n${i}.txt`, dataUrl: dataUrl(Buffer.from(`note ${i}`)) }))).expect(400);
    expect(tooMany.body.message).toMatch(/attachments/);
    const notDataUrl = await post([{ name: 'a.txt', dataUrl: 'data:text/plain,hello' }]).expect(400);
    expect(notDataUrl.body.message).toBe('attachments: the dataUrl of a.txt must be data:<media type>;base64,<the bytes in base64>');
    // a good file beside a bad one is not stored either
    await post([{ name: 'fine.txt', dataUrl: dataUrl(Buffer.from('fine, unstored')) }, { name: 'y.gif', dataUrl: dataUrl(Buffer.from('GIF? no')) }]).expect(415);
    expect(await ctx.api.messages(conversationId)).toEqual([]);
    expect(await storedFiles()).toBe(filesBefore);
  });

  it('refuses an image for a model that cannot see: 400 attachment_unsupported, in the reader\'s language', async () => {
    const conversationId = await ctx.api.createConversation();
    const filesBefore = await storedFiles();
    // bytes no other test stores: had they been stored, the count would show it
    const gif = Buffer.concat([Buffer.from('GIF89a'), Buffer.from([1, 0, 1, 0, 0x80, 0, 0, 7])]);
    const body = { text: 'What is this?', modelOverride: { provider: 'openai', modelId: 'blind-model' }, attachments: [{ name: 'dot.gif', dataUrl: dataUrl(gif) }] };
    const res = await ctx.api.post(`/conversations/${conversationId}/messages`, body).expect(400);
    expect(res.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      code: 'attachment_unsupported',
      message: 'attachments: the model openai:blind-model cannot see images, so dot.gif cannot be sent to it; choose a model that can (a model config with vision: true)',
    });
    const zh = await ctx.api.post(`/conversations/${conversationId}/messages`, body).set('Accept-Language', 'zh-CN').expect(400);
    expect(zh.body).toMatchObject({ code: 'attachment_unsupported', message: expect.stringContaining('无法查看图片') });
    expect(await ctx.api.messages(conversationId)).toEqual([]);
    expect(await storedFiles()).toBe(filesBefore);
    // a text file is fine for it
    const text = await ctx.api.postMessage(conversationId, { ...body, attachments: [{ name: 'n.txt', dataUrl: dataUrl(Buffer.from('hi')) }] });
    expect((await ctx.api.waitForRun(text.run.id)).state).toBe('SUCCEEDED');
  });

  it('names an earlier image instead of sending it when a later run goes to a model that cannot see', async () => {
    const conversationId = await ctx.api.createConversation();
    expect((await ctx.api.converse(conversationId, { text: 'Look', mode: 'direct', attachments: [{ name: 'seen.png', dataUrl: dataUrl(PNG) }] })).done.data.state).toBe('SUCCEEDED');
    const before = ctx.mock.requests.length;
    const blind = await ctx.api.converse(conversationId, { text: 'And now?', mode: 'direct', modelOverride: { provider: 'openai', modelId: 'blind-model' } });
    expect(blind.done.data.state).toBe('SUCCEEDED');
    const messages = ctx.mock.requests[before].messages ?? [];
    expect(messages.some((m) => Array.isArray(m.content))).toBe(false);
    expect(messages.find((m) => typeof m.content === 'string' && m.content.startsWith('Look'))?.content).toContain(
      '[Attached file `seen.png` (image/png) could not be given to you: the model answering now cannot see images]',
    );
  });

  it('a fork keeps the attachments: its next run shows the model the image again', async () => {
    const conversationId = await ctx.api.createConversation();
    const first = await ctx.api.converse(conversationId, { text: 'Remember this', mode: 'direct', attachments: [{ name: 'dot.png', dataUrl: dataUrl(PNG) }] });
    expect(first.done.data.state).toBe('SUCCEEDED');
    const fork = await ctx.api.post(`/conversations/${conversationId}/fork`, {}).expect(201);
    const [copied] = await ctx.api.messages(fork.body.id);
    expect(copied.parts.attachments).toEqual(first.posted.message.parts.attachments);
    const before = ctx.mock.requests.length;
    expect((await ctx.api.converse(fork.body.id, { text: 'What did I show you?', mode: 'direct' })).done.data.state).toBe('SUCCEEDED');
    const images = (ctx.mock.requests[before].messages ?? []).flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((p) => p.type === 'image_url');
    expect(images).toHaveLength(1);
  });

  it('compaction loses no attachment: the summariser is told the file, the message keeps its reference', async () => {
    const conversationId = await ctx.api.createConversation();
    const first = await ctx.api.converse(conversationId, { text: 'Keep this picture', mode: 'direct', attachments: [{ name: 'dot.png', dataUrl: dataUrl(PNG) }] });
    await ctx.api.converse(conversationId, { text: 'and go on', mode: 'direct' });
    const before = ctx.mock.requests.length;
    await ctx.api.post(`/conversations/${conversationId}/compact`).expect(200);
    const transcript = (ctx.mock.requests[before].messages ?? []).map((m) => (typeof m.content === 'string' ? m.content : '')).join('\n');
    expect(transcript).toContain(`User: Keep this picture\n\n[Attached file \`dot.png\` (image/png, ${PNG.length} bytes)]`);
    const [stored] = await ctx.api.messages(conversationId);
    expect(stored.parts.attachments).toEqual(first.posted.message.parts.attachments);
    await ctx.api.get(`/files/${stored.parts.attachments[0].fileId}`).expect(200);
  });

  it('the offline model sees an image, so the path works without a key', async () => {
    const conversationId = await ctx.api.createConversation();
    const { done, events } = await ctx.api.converse(conversationId, {
      text: 'What is this?',
      mode: 'direct',
      modelOverride: { provider: 'offline', modelId: 'echo' },
      attachments: [{ name: 'dot.png', dataUrl: dataUrl(PNG) }],
    });
    expect(done.data.state).toBe('SUCCEEDED');
    const text = events.filter((e) => e.type === 'token').map((e) => e.data.text).join('');
    expect(text).toMatch(new RegExp(`^I see an image \\(image/png, ${PNG.length} bytes\\)\\.`));
  });
});
