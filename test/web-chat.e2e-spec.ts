/**
 * The web chat app at `/`, driven in Debian's headless Chromium (playwright-core) through the
 * real server on the embedded database, against the mock LLM: what a person does every day.
 * Runs are scripted by MOCK: directives in the message text (test/support/mock-llm).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GraphQLClient, gql } from 'graphql-request';
import type { Browser, Page } from 'playwright-core';
import { describeInBrowser, launchBrowser } from './support/browser';
import { useMockApp } from './support/mock-app';
import { ragClient } from './support/rag-client';
import { mockTokensText } from './support/sse-client';

const TOKEN = 'web-chat-admin-key';
const mock = (directive: object, prefix = '') => `${prefix}MOCK:${JSON.stringify(directive)}`;
const MAX_ATTACHMENT_BYTES = 64 * 1024;
/** a 1×1 PNG */
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
/** The page's globals this file touches (it is type-checked without the DOM library). */
type PageGlobals = { sessionStorage: { setItem(key: string, value: string): void }; __owned?: number };

/** Polls `read` until `done` holds: locators, not page-side predicates (the page's CSP forbids eval). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describeInBrowser('web chat app', () => {
  // a small attachment limit, so that a file over it is quick to make
  const ctx = useMockApp(TOKEN, { HELIX_MAX_ATTACHMENT_BYTES: String(MAX_ATTACHMENT_BYTES) });
  let browser: Browser;
  let page: Page;
  let files: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    files = mkdtempSync(join(tmpdir(), 'helix-web-'));
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(files, { recursive: true, force: true });
  });
  beforeEach(async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 820 }, locale: 'en-US' });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await signIn(page);
  });
  afterEach(async () => {
    await page.context().close();
    expect(pageErrors).toEqual([]);
  });

  async function signIn(p: Page) {
    await p.goto(`${ctx.t.baseUrl}/`);
    await p.getByLabel('API key').fill(TOKEN);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await p.getByRole('button', { name: '+ New chat' }).waitFor();
  }

  async function send(text: string, mode?: 'react' | 'plan' | 'direct') {
    if (mode) await page.getByTestId('mode').selectOption(mode);
    await page.locator('#composer-text').fill(text);
    await page.keyboard.press('Enter');
  }

  const lastRun = () => page.locator('li.run').last();
  const answerText = () => lastRun().locator('.markdown').last();
  /** Waits for `locator` to be visible; a timeout says what the page shows instead. */
  async function shows(locator: ReturnType<Page['locator']>) {
    try {
      await locator.waitFor();
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- page ---\n${await page.locator('main').innerText()}`);
    }
  }
  /** Waits for the newest run on the page to end; says what the page shows when it ends otherwise. */
  async function finished(state = 'SUCCEEDED') {
    const run = lastRun();
    try {
      await until(async () => ((await run.count()) ? await run.getAttribute('data-state') : null), (shown) => shown !== null && shown !== 'live');
    } catch (error) {
      throw new Error(`the run did not end: ${(error as Error).message}\n--- page ---\n${await page.locator('main').innerText()}`);
    }
    const shown = await run.getAttribute('data-state');
    if (shown !== state) throw new Error(`the run ended ${shown}, not ${state}\n--- page ---\n${await page.locator('main').innerText()}`);
  }
  const runIdOnPage = async () => (await lastRun().getAttribute('data-run-id'))!;
  /** the text of the newest run's answer so far ('' before its first token) */
  const answerSoFar = async () => ((await page.locator('li.run .markdown').count()) ? ((await answerText().textContent()) ?? '') : '');

  it('streams an answer token by token as Markdown, and keeps it after a reload', async () => {
    const words = 'Streaming **works** in Helix, one word after another until the end.';
    await send(mock({ text: words, delayMs: 60 }));
    // part of the answer is on the page before the run has finished
    await until(answerSoFar, (text) => text.length > 0 && !text.includes('until the end.'));
    await expect(lastRun().getAttribute('data-state')).resolves.toBe('live');
    await finished();
    await expect(answerText().locator('strong').textContent()).resolves.toBe('works');
    expect((await answerText().textContent())?.trim()).toBe('Streaming works in Helix, one word after another until the end.');
    await page.reload();
    await page.locator('li.message.assistant .markdown').getByText('one word after another').waitFor();
  });

  it('asks before a risky tool runs, and runs it once approved', async () => {
    await send(mock({ toolCall: { name: 'code_exec', arguments: JSON.stringify({ code: '6 * 7' }) } }));
    const dialog = page.getByRole('dialog', { name: 'Approve this tool call?' });
    await dialog.waitFor();
    await expect(dialog.locator('pre').textContent()).resolves.toContain('6 * 7');
    await dialog.getByRole('button', { name: 'Approve', exact: true }).click();
    await finished();
    const card = lastRun().locator('.tool-card[data-tool="code_exec"]');
    await expect(card.locator('.badge').textContent()).resolves.toBe('Done');
    await card.locator('summary').click();
    await expect(card.textContent()).resolves.toContain('42');
    await expect(answerText().textContent()).resolves.toContain('Tool result:');
  });

  it('lets a plan be edited and approved after a reload, and runs the edited plan', async () => {
    await send(mock({ plan: true }), 'plan');
    await page.getByRole('form', { name: 'Proposed plan' }).waitFor();
    const runId = await runIdOnPage();
    await page.reload();
    const plan = page.getByRole('form', { name: 'Proposed plan' });
    await expect(plan.getByLabel('Step 1', { exact: true }).inputValue()).resolves.toBe('Step one');
    await plan.getByLabel('Step 1', { exact: true }).fill('Read the question again');
    await plan.getByRole('button', { name: '+ Add a step' }).click();
    await plan.getByLabel('Step 3', { exact: true }).fill('Answer in one sentence');
    await plan.getByRole('button', { name: 'Approve and run' }).click();
    await finished();
    const run = await ctx.api.run(runId);
    expect((run.plan as { steps: { title: string }[] }).steps.map((s) => s.title)).toEqual(['Read the question again', 'Step two', 'Answer in one sentence']);
    // carried out step by step: the card shows each step done, the first one's result under it
    const card = page.locator('.plan-card').last();
    await expect(card.getByRole('heading', { name: 'Plan', exact: true }).count()).resolves.toBe(1);
    await expect(card.locator('.plan-step.done').count()).resolves.toBe(3);
    await expect(card.locator('.plan-summary').count()).resolves.toBe(3);
  });

  it('answers an ask_user question in place, and shows the run in the debug panel', async () => {
    await send(mock({ toolCall: { name: 'ask_user', arguments: JSON.stringify({ question: 'Which city?' }) } }));
    const question = page.getByRole('group', { name: 'The agent asks' });
    await shows(question.getByText('Which city?'));
    await question.getByPlaceholder('Your answer').fill('Paris');
    await question.getByRole('button', { name: 'Reply' }).click();
    await finished();
    await expect(answerText().textContent()).resolves.toContain('Tool result: Paris');

    await page.getByRole('button', { name: 'Open the debug panel' }).click();
    const debug = page.getByRole('complementary', { name: 'Debug' });
    const events = await debug.getByTestId('debug-events').locator('code').allTextContents();
    expect(events).toEqual(expect.arrayContaining(['status', 'tool.start', 'tool.end', 'token', 'usage', 'done']));
    expect(events.at(-1)).toBe('done');
    await debug.getByRole('tab', { name: 'Context' }).click();
    await shows(debug.getByText('openai:mock-model'));
    await debug.getByRole('tab', { name: 'Spans' }).click();
    // an admin key reads the run's span tree: the run, its steps, their model calls
    await shows(debug.locator('.span-tree code', { hasText: 'model' }).first());
    expect(await debug.locator('.span-tree code').allTextContents()).toEqual(expect.arrayContaining(['run', 'step', 'model']));
  });

  it('offers the choices of an ask_user question as buttons; one click answers', async () => {
    const options = [{ id: 'par', label: 'Paris' }, { id: 'ber', label: 'Berlin' }];
    await send(mock({ toolCall: { name: 'ask_user', arguments: JSON.stringify({ question: 'Which city?', options }) } }));
    const question = page.getByRole('group', { name: 'The agent asks' });
    await shows(question.getByText('Which city?'));
    await question.getByRole('group', { name: 'Choices' }).getByRole('button', { name: 'Berlin' }).click();
    await finished();
    await expect(answerText().textContent()).resolves.toContain('Tool result: Berlin');
  });

  it('continues an answer after a reload mid-stream, complete and without repeated text', async () => {
    await send(mock({ tokens: 120, delayMs: 25 }));
    await until(answerSoFar, (text) => text.includes('t10 '));
    const runId = await runIdOnPage();
    await page.reload();
    await page.locator(`li.run[data-run-id="${runId}"][data-state="SUCCEEDED"]`).waitFor({ timeout: 30_000 });
    const shown = await page.locator(`li.run[data-run-id="${runId}"] .markdown`).textContent();
    expect(shown?.trim()).toBe(mockTokensText(120).trim());
    const stored = await ctx.api.finalAssistantMessage((await ctx.api.run(runId)).conversationId, runId);
    expect(stored?.content).toBe(mockTokensText(120));
  });

  it('stops a run with the Stop button', async () => {
    await send(mock({ tokens: 400, delayMs: 25 }));
    await until(answerSoFar, (text) => text.includes('t5 '));
    await page.getByRole('button', { name: 'Stop' }).click();
    await finished('CANCELLED');
    await expect(lastRun().getByText('Cancelled').count()).resolves.toBe(1);
    expect((await ctx.api.run(await runIdOnPage())).state).toBe('CANCELLED');
    await page.getByRole('button', { name: 'Send' }).waitFor();
  });

  it('uploads a document to a knowledge base and answers with a citation linked to its source', async () => {
    await page.getByRole('link', { name: 'Knowledge bases' }).click();
    await page.getByLabel('Name').fill('Handbook');
    await page.getByRole('button', { name: 'Create' }).click();
    const file = join(files, 'helix-handbook.md');
    writeFileSync(file, '# Helix handbook\n\nHelix keeps every run event in PostgreSQL, so a stream can resume from any event.\n');
    await page.getByTestId('kb-upload').setInputFiles([file]);
    await shows(page.locator('.uploads .badge.succeeded'));
    await page.locator('.documents').getByText('helix-handbook.md').waitFor();
    await page.getByLabel('Try a search').fill('resume stream');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('.hits').getByText('Helix handbook').waitFor();

    const conversationId = await ctx.api.createConversation({ title: 'Handbook questions' });
    await page.goto(`${ctx.t.baseUrl}/c/${conversationId}`);
    await page.getByRole('button', { name: 'Conversation settings' }).click();
    const settings = page.getByRole('dialog', { name: 'Conversation settings' });
    await settings.getByLabel('Handbook').selectOption('prefetch');
    await settings.getByRole('button', { name: 'Save' }).click();
    await settings.waitFor({ state: 'detached' });
    expect((await ctx.api.get(`/conversations/${conversationId}`)).body.settings).toMatchObject({ knowledgeBaseIds: [], knowledgeBases: [{ id: expect.any(String), mode: 'prefetch' }], queryRewrite: false });
    // opened again, the dialog shows the saved mode
    await page.getByRole('button', { name: 'Conversation settings' }).click();
    await expect(settings.getByLabel('Handbook').inputValue()).resolves.toBe('prefetch');
    await settings.getByRole('button', { name: 'Cancel' }).click();
    // (the mock's next answer, queued, so that the question reads as a person's)
    ctx.mock.enqueue({ text: 'Helix keeps every run event in PostgreSQL, so a stream **resumes from any event** [1].' });
    await send('How does a stream resume after a network drop?');
    await finished();
    await answerText().locator('a.citation').click();
    const sources = page.getByRole('complementary', { name: 'Sources' });
    await expect(sources.locator('li.focused').textContent()).resolves.toContain('helix-handbook.md');
    // the picture in the README: a conversation with an answer and its sources
    if (process.env.HELIX_UPDATE_SCREENSHOT === '1') await page.screenshot({ path: join(__dirname, '..', 'docs', 'web.png') });
  });

  it("shows beside an answer's sources the knowledge graph around what the question named", async () => {
    const kb = (await ctx.api.post('/knowledge-bases', { name: 'Engines', graph: true })).body.id as string;
    const text = '# Engines\n\nAda Lovelace wrote the first program for the Analytical Engine.';
    // the extraction call of the ingestion, answered by the mock as a model would
    ctx.mock.script({ text: JSON.stringify({ entities: [{ name: 'Ada Lovelace', type: 'person' }, { name: 'Analytical Engine', type: 'machine' }], relations: [{ source: 'Ada Lovelace', target: 'Analytical Engine', label: 'programmed' }] }) });
    expect((await ragClient(ctx.t, TOKEN).addText(kb, { title: 'Engines', text })).result.graph).toMatchObject({ entities: 2, relations: 1 });
    const conversationId = await ctx.api.createConversation({ title: 'Engines', settings: { knowledgeBases: [{ id: kb, mode: 'prefetch' }] } });
    await page.goto(`${ctx.t.baseUrl}/c/${conversationId}`);
    ctx.mock.enqueue({ text: 'Ada Lovelace programmed it [1].' });
    await send('Who programmed the Analytical Engine?');
    await finished();
    await lastRun().getByRole('button', { name: 'Sources (1)' }).click();
    const graph = page.getByRole('complementary', { name: 'Sources' }).getByRole('region', { name: 'Related in the knowledge graph' });
    await expect(graph.locator('li').textContent()).resolves.toBe('Ada Lovelace — programmed → Analytical Engine [1]');
    // stored with the answer: the history shows it after a reload
    await page.reload();
    await page.locator('li.message.assistant').last().getByRole('button', { name: 'Sources (1)' }).click();
    await expect(graph.locator('li').textContent()).resolves.toBe('Ada Lovelace — programmed → Analytical Engine [1]');
  });

  it('shows on a delegate call which agent took the task and how its sub-run ended', async () => {
    expect((await ctx.api.post('/agents', { name: 'scout', description: 'Looks around', systemPrompt: 'You scout.' })).status).toBe(201);
    const task = `look around ${mock({ text: 'All clear.' })}`;
    await send(mock({ toolCall: { name: 'delegate', arguments: JSON.stringify({ agent: 'scout', task }) } }));
    await finished();
    const card = lastRun().locator('.tool-card[data-tool="delegate"]');
    await expect(card.locator('.subrun').textContent()).resolves.toBe('delegated to scout: answered');
    const childId = await card.locator('.subrun').getAttribute('data-subrun');
    expect((await ctx.api.run(childId!)).parentRunId).toBe(await runIdOnPage());
    await card.locator('summary').click();
    await expect(card.textContent()).resolves.toContain('All clear.');
  });

  it("lists the files the agent wrote and downloads them and the conversation's export", async () => {
    await send(mock({ toolCall: { name: 'file_write', arguments: JSON.stringify({ path: 'notes/plan.md', content: '# Plan\nstep one\n' }) } }));
    await finished();
    await page.getByRole('button', { name: 'Files of this conversation' }).click();
    const panel = page.getByRole('complementary', { name: 'Files' });
    const file = panel.getByRole('button', { name: 'notes/plan.md' });
    await shows(file);
    await expect(panel.textContent()).resolves.toContain('notes/plan.md · 16 B');
    const [saved] = await Promise.all([page.waitForEvent('download'), file.click()]);
    expect(saved.suggestedFilename()).toBe('plan.md');
    expect(readFileSync((await saved.path())!, 'utf8')).toBe('# Plan\nstep one\n');
    const [exported] = await Promise.all([page.waitForEvent('download'), panel.getByRole('button', { name: 'Transcript (Markdown)' }).click()]);
    expect(exported.suggestedFilename()).toMatch(/^conv_.*\.md$/);
    expect(readFileSync((await exported.path())!, 'utf8')).toContain('Tool call `file_write`');
  });

  it("runs the agent chosen in a conversation's settings", async () => {
    const created = await ctx.api.post('/agents', { name: 'pirate', description: 'Talks like a pirate', systemPrompt: 'You are a pirate.' });
    expect(created.status).toBe(201);
    const conversationId = await ctx.api.createConversation({ title: 'Ahoy' });
    await page.goto(`${ctx.t.baseUrl}/c/${conversationId}`);
    await page.getByRole('button', { name: 'Conversation settings' }).click();
    const settings = page.getByRole('dialog', { name: 'Conversation settings' });
    await settings.getByLabel('Agent').selectOption({ label: 'pirate' });
    await settings.getByText('Talks like a pirate').waitFor();
    await settings.getByRole('button', { name: 'Save' }).click();
    await settings.waitFor({ state: 'detached' });
    expect((await ctx.api.get(`/conversations/${conversationId}`)).body.agentId).toBe(created.body.id);
    const before = ctx.mock.requests.length;
    await send('Where is the treasure?', 'direct');
    await finished();
    expect(ctx.mock.requests.slice(before)[0].messages?.[0]).toEqual({ role: 'system', content: 'You are a pirate.' });
    expect((await ctx.api.run(await runIdOnPage())).agentId).toBe(created.body.id);
  });

  it('sends an image and a text file with a message, and shows them in the history after a reload', async () => {
    // the mock's model sees (a model config's flag): else the server refuses the image
    const admin = new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
    await admin.request(gql`mutation($input: ModelConfigInput!) { upsertModelConfig(input: $input) { id } }`, {
      input: { provider: 'openai', modelId: 'mock-model', vision: true },
    });
    const png = join(files, 'dot.png');
    const notes = join(files, 'notes.txt');
    const extra = join(files, 'extra.txt');
    const notesText = 'The heron nests by the north pond.\n';
    writeFileSync(png, Buffer.from(PNG_BASE64, 'base64'));
    writeFileSync(notes, notesText);
    writeFileSync(extra, 'not this one');
    await page.getByLabel('Attach files').setInputFiles([png, notes, extra]);
    const chosen = page.getByRole('list', { name: 'Files to send' });
    await expect(chosen.locator('li').allInnerTexts()).resolves.toEqual([expect.stringMatching(/^dot\.png\s+70 B/), expect.stringMatching(/^notes\.txt\s+35 B/), expect.stringMatching(/^extra\.txt/)]);
    await chosen.getByRole('button', { name: 'Remove extra.txt' }).click();
    await expect(chosen.locator('li').count()).resolves.toBe(2);

    ctx.mock.enqueue({ text: 'A dot, and a note about a heron.' });
    const before = ctx.mock.requests.length;
    await send('What are these?', 'direct');
    await finished();
    await expect(page.getByRole('list', { name: 'Files to send' }).count()).resolves.toBe(0);
    const user = [...(ctx.mock.requests[before].messages ?? [])].reverse().find((m) => m.role === 'user')!;
    expect(user.content).toEqual([
      { type: 'text', text: `What are these?\n\nAttached file \`notes.txt\`:\n${notesText}` },
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
    ]);

    await page.reload();
    const message = page.locator('li.message.user').last();
    const thumbnail = message.getByRole('img', { name: 'dot.png' });
    await shows(thumbnail);
    await expect(thumbnail.getAttribute('src')).resolves.toMatch(/^blob:/);
    // drawn, not blocked: the page's CSP allows blob: images
    await until(() => thumbnail.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth), (width) => width === 1);
    const chip = message.getByRole('button', { name: 'Download notes.txt (35 B)' });
    await shows(chip);
    const [download] = await Promise.all([page.waitForEvent('download'), chip.click()]);
    expect(download.suggestedFilename()).toBe('notes.txt');
    const saved = join(files, 'downloaded.txt');
    await download.saveAs(saved);
    expect(readFileSync(saved, 'utf8')).toBe(notesText);
  });

  it("shows the server's refusal of a file and gives the message and its files back", async () => {
    const conversations = async () => (await ctx.api.get('/conversations?limit=100')).body.items.length as number;
    const before = await conversations();
    // over the limit: still sent, and the server's 413 names the file and the limit
    const big = join(files, 'big.txt');
    writeFileSync(big, 'x'.repeat(MAX_ATTACHMENT_BYTES + 1));
    await page.getByLabel('Attach files').setInputFiles([big]);
    await send('Read this');
    await shows(page.getByRole('alert').getByText(`big.txt is ${MAX_ATTACHMENT_BYTES + 1} bytes; the limit is ${MAX_ATTACHMENT_BYTES} bytes`));
    const chosen = page.getByRole('list', { name: 'Files to send' });
    await expect(page.locator('#composer-text').inputValue()).resolves.toBe('Read this');
    await chosen.getByRole('button', { name: 'Remove big.txt' }).click();

    // text named .png: the server sniffs the bytes and refuses it (415)
    const fake = join(files, 'fake.png');
    writeFileSync(fake, 'this is text, not a picture');
    await page.getByLabel('Attach files').setInputFiles([fake]);
    await page.locator('#composer-text').press('Enter');
    await shows(page.getByRole('alert').getByText('fake.png'));
    await expect(chosen.getByText('fake.png').count()).resolves.toBe(1);
    await expect(page.locator('#composer-text').inputValue()).resolves.toBe('Read this');
    await expect(page.locator('li.message.user').count()).resolves.toBe(0);
    // both tries went to the one conversation the first created
    expect(await conversations()).toBe(before + 1);
  });

  it('switches to Chinese: the page and the server messages', async () => {
    await page.getByTestId('language').selectOption('zh');
    await page.getByRole('button', { name: '+ 新对话' }).waitFor();
    await expect(page.locator('#composer-text').getAttribute('placeholder')).resolves.toContain('给 Helix 发消息');
    await send(mock({ status: 429, errorMessage: 'Rate limit reached' }));
    const error = lastRun().locator('[data-error-code="rate_limited"]');
    await error.waitFor({ timeout: 30_000 });
    expect(await error.textContent()).toMatch(/[\u4e00-\u9fff]/);
    await page.getByTestId('language').selectOption('en');
    await page.getByRole('button', { name: '+ New chat' }).waitFor();
  });

  it("shows a model's HTML as text and never runs its scripts or javascript: links", async () => {
    await send(mock({ text: 'Look: <b>bold</b> <img src=x onerror="window.__owned=1"> <script>window.__owned=2</script> [click](javascript:window.__owned=3) done' }));
    await finished();
    const answer = answerText();
    await expect(answer.textContent()).resolves.toContain('<b>bold</b>');
    await expect(answer.locator('b, img, script').count()).resolves.toBe(0);
    for (const href of await answer.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))) expect(href ?? '').not.toMatch(/^javascript:/i);
    await answer.getByText('click').click().catch(() => undefined);
    await expect(page.evaluate(() => (globalThis as unknown as PageGlobals).__owned)).resolves.toBeUndefined();
  });

  it('asks for the key again after a 401, and keeps working at 375 px', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.evaluate(() => (globalThis as unknown as PageGlobals).sessionStorage.setItem('helix.apiKey', 'a-revoked-key'));
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to Helix' }).waitFor();
    await page.getByLabel('API key').fill('still-wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('The server did not accept this key.').waitFor();
    await page.getByLabel('API key').fill(TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // the conversation list is behind the menu button; the composer fits the screen
    await page.getByRole('button', { name: 'Open the conversation list' }).click();
    await page.getByRole('button', { name: '+ New chat' }).click();
    await send(mock({ text: 'Small screens work too.' }));
    await finished();
    const box = await page.locator('.composer').boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    if (process.env.HELIX_UPDATE_SCREENSHOT === '1') await page.screenshot({ path: join(__dirname, '..', 'docs', 'web-narrow.png') });
  });
});
