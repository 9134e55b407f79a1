/**
 * Every REST endpoint (and GraphQL) the fuzz test (test/fuzz.e2e-spec.ts) attacks, as data: to
 * cover a new endpoint, add a row. A path is relative to `/api/v1` unless it starts with `//`
 * (then from the root). `:name` in a path, and a string value `':name'` anywhere in a body or
 * query, is replaced by a fixture's id (FuzzFixtures) or by a malformed one. `body` is a VALID
 * body: the fuzzer mutates one part of it per request (wrong types, huge or unstorable strings,
 * deep nesting, prototype keys …) or replaces it whole (invalid JSON or UTF-8, wrong content type).
 */
export type FuzzMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface FuzzEndpoint {
  method: FuzzMethod;
  path: string;
  body?: Record<string, unknown>;
  /** valid query parameters, mutated like body fields */
  query?: Record<string, string>;
  /** the endpoint can answer an event stream: requests also vary Accept and Last-Event-ID */
  stream?: boolean;
}

/** The ids a fuzz run has at hand (created before it starts). */
export interface FuzzFixtures {
  conversation: string;
  /** a conversation the fuzzer may delete */
  scratchConversation: string;
  run: string;
  message: string;
  approval: string;
  streamToken: string;
  cursor: string;
  knowledgeBase: string;
  /** a knowledge base the fuzzer may delete */
  scratchKnowledgeBase: string;
  document: string;
  /** a chunk of that document */
  chunk: string;
  job: string;
}

export const FUZZ_ENDPOINTS: FuzzEndpoint[] = [
  {
    method: 'POST',
    path: '/conversations',
    body: {
      title: 'a title',
      model: { provider: 'offline', modelId: 'echo' },
      settings: {
        systemPrompt: 'be brief', maxSteps: 3, multitask: 'reject', confirmationPolicy: 'risky', debug: false,
        retrieval: 'classic', knowledgeBaseIds: [':knowledgeBase'],
      },
    },
  },
  { method: 'GET', path: '/conversations', query: { limit: '10', cursor: ':cursor' } },
  { method: 'GET', path: '/conversations/:conversation' },
  { method: 'PATCH', path: '/conversations/:conversation', body: { title: 'renamed', settings: { systemPrompt: 'terse' }, model: null } },
  { method: 'DELETE', path: '/conversations/:scratchConversation' },
  {
    method: 'POST',
    path: '/conversations/:conversation/messages',
    body: { text: 'hello', mode: 'direct', modelOverride: { provider: 'offline', modelId: 'echo' } },
    stream: true,
  },
  { method: 'GET', path: '/conversations/:conversation/messages', query: { after: '0', limit: '10' } },
  { method: 'GET', path: '/conversations/:conversation/runs/latest' },
  { method: 'POST', path: '/conversations/:conversation/fork', body: { fromMessageId: ':message' } },
  { method: 'POST', path: '/conversations/:conversation/compact' },
  { method: 'GET', path: '/conversations/:conversation/export', query: { format: 'markdown' } },
  {
    method: 'POST',
    path: '/conversations/import',
    body: {
      format: 'helix.trajectory', version: 1, conversation: { title: 'imported' },
      messages: [
        { role: 'user', content: 'hi', parts: { kind: 'user' } },
        { role: 'assistant', content: '', parts: { kind: 'answer', step: 1, toolCalls: [{ id: 'call_1', name: 'calculator', arguments: '{}' }] } },
        { role: 'tool', content: '2', parts: { kind: 'tool_result', name: 'calculator', ok: true }, toolCallId: 'call_1' },
      ],
    },
  },
  { method: 'POST', path: '/knowledge-bases', body: { name: 'a knowledge base', description: 'about things' } },
  { method: 'GET', path: '/knowledge-bases' },
  { method: 'GET', path: '/models' },
  { method: 'GET', path: '/knowledge-bases/:knowledgeBase' },
  { method: 'DELETE', path: '/knowledge-bases/:scratchKnowledgeBase' },
  {
    method: 'POST',
    path: '/knowledge-bases/:knowledgeBase/documents',
    body: { title: 'a document', text: '# Heading\n\nSome text.', source: 'notes.md', metadata: { lang: 'en', year: 2026 } },
  },
  { method: 'GET', path: '/knowledge-bases/:knowledgeBase/documents', query: { limit: '10' } },
  { method: 'GET', path: '/knowledge-bases/:knowledgeBase/documents/:document/chunks', query: { limit: '10' } },
  { method: 'GET', path: '/knowledge-bases/:knowledgeBase/chunks/:chunk' },
  { method: 'PATCH', path: '/knowledge-bases/:knowledgeBase/chunks/:chunk', body: { text: 'Edited text to find.' } },
  { method: 'DELETE', path: '/knowledge-bases/:knowledgeBase/chunks/:chunk' },
  { method: 'DELETE', path: '/knowledge-bases/:knowledgeBase/documents/:document' },
  { method: 'POST', path: '/knowledge-bases/:knowledgeBase/search', body: { query: 'some text', k: 3, filter: { lang: 'en' } } },
  { method: 'GET', path: '/jobs/:job' },
  { method: 'GET', path: '/runs/:run' },
  { method: 'GET', path: '/runs/:run/events', query: { after: '0', limit: '10', token: ':streamToken' }, stream: true },
  { method: 'GET', path: '/runs/:run/export', query: { format: 'curl' } },
  { method: 'POST', path: '/runs/:run/cancel' },
  { method: 'POST', path: '/runs/:run/resume', body: { approve: true, plan: { steps: [{ title: 'step', detail: 'd' }] }, reason: 'why' } },
  { method: 'POST', path: '/runs/:run/approvals/:approval', body: { decision: 'approve', reason: 'fine', remember: 'conversation' } },
  { method: 'POST', path: '/runs/:run/reply', body: { text: 'an answer' } },
  { method: 'POST', path: '/runs/:run/tool-results', body: { results: [{ callId: 'call_1', output: 'done', ok: true }] } },
  {
    method: 'POST',
    path: '//graphql',
    body: { query: 'query Q($id: String!) { run(id: $id) { id state } workspaces { id } }', variables: { id: ':run' }, operationName: 'Q' },
  },
  { method: 'GET', path: '//graphql', query: { query: '{ workspaces { id } }' } },
  {
    method: 'POST',
    path: '//graphql',
    body: { query: 'query P($after: String, $first: Int) { runs(first: $first, after: $after) { edges { cursor } } traces(first: $first, after: $after) { edges { cursor } } }', variables: { after: ':cursor', first: 5 } },
  },
  {
    method: 'POST',
    path: '//graphql',
    body: {
      query: 'mutation S($input: WorkspaceSettingsInput!, $content: String!) { updateWorkspaceSettings(input: $input) { id } updatePrompt(key: "system", content: $content) { id } }',
      variables: { input: { maxSteps: 5 }, content: 'a prompt' },
    },
  },
  {
    method: 'POST',
    path: '//graphql',
    body: { query: 'mutation K($name: String!, $value: String!) { setSecret(name: $name, value: $value) { id } }', variables: { name: 'fuzz', value: 's3cret' } },
  },
];
