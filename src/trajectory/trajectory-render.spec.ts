import { curlScript } from './trajectory-curl';
import { trajectoryMarkdown } from './trajectory-markdown';
import type { Trajectory } from './trajectory.types';

describe('curlScript', () => {
  it('quotes the URL, reads the key from $OPENAI_API_KEY and keeps the body out of the shell', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: "it's $HOME `id`\nHELIX_REQUEST_BODY" }] };
    const script = curlScript('run_1', [
      { step: 1, purpose: 'answer', model: 'openai:m', request: { kind: 'http', url: "http://h/v1's/chat/completions", body } },
      { step: 2, purpose: 'answer', model: 'offline:echo', request: { kind: 'offline' } },
      { step: 3, purpose: 'answer', model: 'openai:m', request: { kind: 'dropped' } },
    ]);
    const lines = script.split('\n');
    expect(lines).toContain(`curl -sS -N 'http://h/v1'\\''s/chat/completions' \\`);
    expect(lines).toContain('  -H "Authorization: Bearer $OPENAI_API_KEY" \\');
    const at = lines.indexOf("  --data-binary @- <<'HELIX_REQUEST_BODY'");
    // one line of JSON, then the delimiter: a newline or the delimiter inside the text cannot end it early
    expect(JSON.parse(lines[at + 1])).toEqual(body);
    expect(lines[at + 2]).toBe('HELIX_REQUEST_BODY');
    expect(script).toContain('# 2. step 2, answer, offline:echo\n# answered by the offline model');
    expect(script).toContain('# 3. step 3, answer, openai:m\n# the request is no longer kept');
  });
});

describe('trajectoryMarkdown', () => {
  it('fences tool output longer than any backtick run inside it', () => {
    const t = {
      conversation: { id: 'conv_1', title: 'T' },
      exportedAt: 'now',
      usage: { runs: 0, totalTokens: 0, cost: 0 },
      runs: [],
      messages: [{ seq: 1, role: 'tool', content: 'a ``` b', parts: { kind: 'tool_result', name: 'x', ok: true } }],
    } as unknown as Trajectory;
    expect(trajectoryMarkdown(t)).toContain('## 1. Tool: x\n\n````\na ``` b\n````');
  });
});
