/**
 * The agent's working directory through HTTP+SSE against the mock LLM: the model writes, edits,
 * reads and lists files; members download them over REST, other workspaces get 404; `shell`
 * waits for approval by default, runs confined to the files (no host files, no env), stops at
 * its time limit; a fork has the files; task_tracker announces its list as a `tasks` event.
 */
import { GraphQLClient, gql } from 'graphql-request';
import request from 'supertest';
import { useMockApp } from './support/mock-app';
import { NO_SEQ_PROBLEMS, seqProblems } from './support/sse-client';

const TOKEN = 'tools-workdir-token';
jest.setTimeout(120_000);

const call = (name: string, args: object) => `MOCK:${JSON.stringify({ toolCall: { name, arguments: JSON.stringify(args) } })}`;

describe('the working directory (HTTP+SSE, mock LLM)', () => {
  const ctx = useMockApp(TOKEN, { HELIX_SHELL_TIMEOUT_MS: '2000' });
  const admin = () => new GraphQLClient(`${ctx.t.baseUrl}/graphql`, { headers: { 'X-API-Token': TOKEN } });
  const as = (key: string) => ({ get: (path: string) => request(ctx.t.baseUrl).get(`/api/v1${path}`).set('X-API-Token', key) });

  /** A key of role `member` in `workspaceId` (default: the bootstrap token's workspace). */
  async function memberKey(workspaceId?: string): Promise<string> {
    const made = await admin().request<{ createApiKey: { key: string } }>(
      gql`mutation ($w: ID) { createApiKey(name: "workdir", role: member, workspaceId: $w) { key } }`,
      { w: workspaceId ?? null },
    );
    return made.createApiKey.key;
  }

  /** One model turn calling `name`; the tool's end event. */
  async function turn(conversationId: string, name: string, args: object) {
    const { events, done } = await ctx.api.converse(conversationId, { text: call(name, args) });
    expect(done.data.state).toBe('SUCCEEDED');
    expect(seqProblems(events)).toEqual(NO_SEQ_PROBLEMS);
    return { end: events.find((e) => e.type === 'tool.end')?.data, events };
  }

  it('shell is high risk: it waits for approval under the default policy', async () => {
    const conversationId = await ctx.api.createConversation({ title: 'shell' });
    const posted = await ctx.api.postMessage(conversationId, { text: call('shell', { command: 'echo hi > a.txt' }) });
    expect((await ctx.api.waitForRun(posted.run.id, ['AWAIT_APPROVAL'])).state).toBe('AWAIT_APPROVAL');
    const approval = (await ctx.api.jsonEvents(posted.run.id)).find((e) => e.type === 'approval');
    expect(approval?.data).toMatchObject({ name: 'shell', risk: 'high', args: { command: 'echo hi > a.txt' } });
    await ctx.api.post(`/runs/${posted.run.id}/approvals/${approval!.data.approvalId}`, { decision: 'approve' }).expect(200);
    expect((await ctx.api.collect(posted.run.id)).done.data.state).toBe('SUCCEEDED');
    expect((await ctx.api.get(`/conversations/${conversationId}/files`).expect(200)).body.items).toEqual([{ path: 'a.txt', size: 3, updatedAt: expect.any(String) }]);
  });

  it('shellAllowedUrls takes http(s) URL prefixes only (400-like GraphQL error naming the setting)', async () => {
    const set = (urls: string[] | null) => admin().request(gql`mutation ($u: [String!]) { updateWorkspaceSettings(input: { shellAllowedUrls: $u }) { settings { shellAllowedUrls } } }`, { u: urls });
    await expect(set(['ftp://files.example'])).rejects.toThrow('each of shellAllowedUrls must be an http:// or https:// URL prefix with a host');
    await expect(set(['https://api.example.com/v1/'])).resolves.toEqual({ updateWorkspaceSettings: { settings: { shellAllowedUrls: ['https://api.example.com/v1/'] } } });
    await expect(set(null)).resolves.toEqual({ updateWorkspaceSettings: { settings: { shellAllowedUrls: null } } });
  });

  describe('with the workspace confirmation policy `never`', () => {
    beforeAll(async () => {
      await admin().request(gql`mutation { updateWorkspaceSettings(input: { confirmationPolicy: never }) { id } }`);
    });
    afterAll(async () => {
      await admin().request(gql`mutation { updateWorkspaceSettings(input: { confirmationPolicy: null }) { id } }`);
    });

    it('writes, edits, reads and lists a file; a member downloads it, another workspace gets 404', async () => {
      const id = await ctx.api.createConversation({ title: 'files' });
      expect((await turn(id, 'file_write', { path: './notes//plan.md', content: 'step one\nstep two\n' })).end).toMatchObject({
        name: 'file_write', ok: true, output: 'Created notes/plan.md (18 bytes).',
      });
      expect((await turn(id, 'file_edit', { path: 'notes/plan.md', old: 'step two', new: 'step 2' })).end).toMatchObject({ ok: true, output: 'Edited notes/plan.md (16 bytes).' });
      expect((await turn(id, 'file_edit', { path: 'notes/plan.md', old: 'step', new: 'STEP' })).end).toMatchObject({
        ok: false, output: expect.stringContaining('occurs 2 times in notes/plan.md; it must occur exactly once'),
      });
      expect((await turn(id, 'file_read', { path: 'notes/plan.md', startLine: 2 })).end).toMatchObject({ ok: true, output: 'notes/plan.md, lines 2-2 of 2:\n2\tstep 2' });
      expect((await turn(id, 'file_read', { path: 'nope.md' })).end).toMatchObject({ ok: false, output: expect.stringContaining('No file nope.md in the working directory. Files: notes/plan.md.') });
      expect((await turn(id, 'file_write', { path: '../escape', content: 'x' })).end).toMatchObject({ ok: false, output: expect.stringContaining('".." is not allowed') });
      expect((await turn(id, 'file_list', {})).end).toMatchObject({ ok: true, output: expect.stringContaining('notes/plan.md\t16 bytes') });

      const member = await memberKey();
      const listed = await as(member).get(`/conversations/${id}/files`).expect(200);
      expect(listed.body).toEqual({ items: [{ path: 'notes/plan.md', size: 16, updatedAt: expect.any(String) }] });
      const file = await as(member).get(`/conversations/${id}/files/notes/plan.md`).expect(200);
      expect(file.headers['content-type']).toBe('text/markdown; charset=utf-8');
      expect(file.headers['content-disposition']).toContain('attachment; filename="plan.md"');
      expect(file.text).toBe('step one\nstep 2\n');
      await ctx.api.get(`/conversations/${id}/files/notes/other.md`).expect(404);
      await ctx.api.get(`/conversations/conv_nope/files`).expect(404);

      const other = (await admin().request<{ createWorkspace: { id: string } }>(gql`mutation { createWorkspace(name: "Workdir other") { id } }`)).createWorkspace.id;
      const stranger = await memberKey(other);
      await as(stranger).get(`/conversations/${id}/files`).expect(404);
      await as(stranger).get(`/conversations/${id}/files/notes/plan.md`).expect(404);
    });

    it('shell writes a file that REST then lists; it cannot read host files or the environment', async () => {
      const id = await ctx.api.createConversation({ title: 'shell' });
      const { end } = await turn(id, 'shell', { command: 'echo hi > a.txt && cat a.txt' });
      expect(end).toMatchObject({ name: 'shell', ok: true, output: 'Exit code: 0\nstdout:\nhi\n\nFiles: created a.txt.' });
      expect((await ctx.api.get(`/conversations/${id}/files`).expect(200)).body.items).toEqual([expect.objectContaining({ path: 'a.txt', size: 3 })]);
      expect((await ctx.api.get(`/conversations/${id}/files/a.txt`).expect(200)).text).toBe('hi\n');

      const probe = await turn(id, 'shell', { command: 'cat /etc/passwd; env; echo "token=$HELIX_API_TOKEN"; ls /' });
      expect(probe.end.ok).toBe(true);
      expect(probe.end.output).toContain('cat: /etc/passwd: No such file or directory');
      expect(probe.end.output).toContain('token=\n');
      expect(probe.end.output).not.toContain(TOKEN);
      expect(probe.end.output).not.toContain('root:');
    });

    it('a command past HELIX_SHELL_TIMEOUT_MS is a clear tool error; the run goes on', async () => {
      const id = await ctx.api.createConversation({ title: 'loop' });
      const { end } = await turn(id, 'shell', { command: 'echo x > partial.txt; sleep 60' });
      expect(end).toMatchObject({ name: 'shell', ok: false, output: 'shell stopped: time limit of 2000 ms exceeded. No file was changed.' });
      expect((await ctx.api.get(`/conversations/${id}/files`).expect(200)).body.items).toEqual([]);
    });

    it('task_tracker announces the list as a `tasks` event; a fork has the files and the list', async () => {
      const id = await ctx.api.createConversation({ title: 'tasks' });
      await turn(id, 'file_write', { path: 'report.txt', content: 'draft' });
      const tasks = [{ id: '1', title: 'Draft the report', status: 'done' }, { id: '2', title: 'Review it', status: 'in_progress' }];
      const { end, events } = await turn(id, 'task_tracker', { action: 'replace', tasks });
      expect(end).toMatchObject({ ok: true, output: expect.stringContaining('[x] 1. Draft the report (done)') });
      const announced = events.filter((e) => e.type === 'tasks');
      expect(announced.map((e) => e.data)).toEqual([{ tasks }]);
      expect(events.findIndex((e) => e.type === 'tasks')).toBeLessThan(events.findIndex((e) => e.type === 'tool.end'));
      // viewing changes nothing: no event
      const viewed = await turn(id, 'task_tracker', { action: 'view' });
      expect(viewed.events.some((e) => e.type === 'tasks')).toBe(false);
      expect(viewed.end.output).toContain('(1 of 2 done)');

      const fork = (await ctx.api.post(`/conversations/${id}/fork`, {}).expect(201)).body.id as string;
      expect((await ctx.api.get(`/conversations/${fork}/files/report.txt`).expect(200)).text).toBe('draft');
      expect((await turn(fork, 'task_tracker', { action: 'view' })).end.output).toContain('[~] 2. Review it (in_progress)');

      // a deleted conversation's files are gone from the API with it
      await ctx.api.delete(`/conversations/${id}`).expect(204);
      await ctx.api.get(`/conversations/${id}/files/report.txt`).expect(404);
    });
  });
});
