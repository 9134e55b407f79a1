/**
 * The tables of the workspace-isolation matrix (test/security-access.e2e-spec.ts): every REST
 * route and every GraphQL root field, called by workspace B with the ids of workspace A. The
 * spec checks that each route of the OpenAPI document and each field of the schema has a row
 * here, so a new endpoint (knowledge bases, jobs …) fails it until its row is added: add the
 * ids it needs to `Fixture` (created in the spec's `seedWorkspaceA`) and a row below.
 */

/** What workspace A holds, by id. */
export interface Fixture {
  workspaceId: string;
  conversationId: string;
  /** a run waiting on a tool approval (live, so cancel/resume/reply would act if allowed) */
  runId: string;
  approvalId: string;
  apiKeyId: string;
  modelConfigId: string;
  knowledgeBaseId: string;
  documentId: string;
  /** the first chunk of that document */
  chunkId: string;
  /** the ingestion job of that document */
  jobId: string;
  agentId: string;
  /** a file attached to a message */
  fileId: string;
}

/** Ids workspace B owns, for the rows that mix one of B's ids with one of A's. */
export interface OwnFixture {
  conversationId: string;
  runId: string;
  knowledgeBaseId: string;
}

export interface RestCase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** the OpenAPI path template this row covers, e.g. `/api/v1/runs/{id}` */
  route: string;
  /** the URL actually called */
  path: (a: Fixture, b: OwnFixture) => string;
  body?: object;
  accept?: string;
  /** what B gets: 404 for A's ids; a list or a creation of B's own for the others */
  status: number;
  /** what B's member key gets when it differs (403 on the routes only admins may call) */
  memberStatus?: number;
  /** more than one row per route: what this one is about */
  note?: string;
}

const API = '/api/v1';
let created = 0;

export const REST_CASES: RestCase[] = [
  // outside the API: nothing of any workspace in them
  { method: 'GET', route: '/health', path: () => '/health', status: 200 },
  { method: 'GET', route: '/health/ready', path: () => '/health/ready', status: 200 },
  { method: 'GET', route: '/metrics', path: () => '/metrics', status: 200 },
  // B's default and the global models: none of A's configs
  { method: 'GET', route: `${API}/models`, path: () => `${API}/models`, status: 200 },
  // B's default agent and its own
  { method: 'GET', route: `${API}/agents`, path: () => `${API}/agents`, status: 200 },
  { method: 'POST', route: `${API}/agents`, path: () => `${API}/agents`, body: { name: 'b-agent' }, status: 201, memberStatus: 403 },
  { method: 'GET', route: `${API}/agents/{id}`, path: (a) => `${API}/agents/${a.agentId}`, status: 404 },
  { method: 'PATCH', route: `${API}/agents/{id}`, path: (a) => `${API}/agents/${a.agentId}`, body: { description: 'stolen' }, status: 404, memberStatus: 403 },
  { method: 'DELETE', route: `${API}/agents/{id}`, path: (a) => `${API}/agents/${a.agentId}`, status: 404, memberStatus: 403 },
  { method: 'GET', route: `${API}/conversations`, path: () => `${API}/conversations?limit=100`, status: 200 },
  { method: 'POST', route: `${API}/conversations`, path: () => `${API}/conversations`, body: { title: 'B owns this' }, status: 201 },
  { method: 'GET', route: `${API}/conversations/{id}`, path: (a) => `${API}/conversations/${a.conversationId}`, status: 404 },
  { method: 'PATCH', route: `${API}/conversations/{id}`, path: (a) => `${API}/conversations/${a.conversationId}`, body: { title: 'stolen' }, status: 404 },
  { method: 'DELETE', route: `${API}/conversations/{id}`, path: (a) => `${API}/conversations/${a.conversationId}`, status: 404 },
  { method: 'POST', route: `${API}/conversations/{id}/fork`, path: (a) => `${API}/conversations/${a.conversationId}/fork`, body: {}, status: 404 },
  { method: 'GET', route: `${API}/conversations/{id}/messages`, path: (a) => `${API}/conversations/${a.conversationId}/messages`, status: 404 },
  { method: 'POST', route: `${API}/conversations/{id}/messages`, path: (a) => `${API}/conversations/${a.conversationId}/messages`, body: { text: 'hello' }, status: 404 },
  { method: 'GET', route: `${API}/conversations/{id}/runs/latest`, path: (a) => `${API}/conversations/${a.conversationId}/runs/latest`, status: 404 },
  { method: 'GET', route: `${API}/conversations/{id}/files`, path: (a) => `${API}/conversations/${a.conversationId}/files`, status: 404 },
  { method: 'GET', route: `${API}/conversations/{id}/files/{path}`, path: (a) => `${API}/conversations/${a.conversationId}/files/notes.txt`, status: 404 },
  { method: 'GET', route: `${API}/conversations/{id}/export`, path: (a) => `${API}/conversations/${a.conversationId}/export?format=json`, status: 404 },
  {
    method: 'POST',
    route: `${API}/conversations/import`,
    path: () => `${API}/conversations/import`,
    body: { format: 'helix.trajectory', version: 1, conversation: { title: 'B imports' }, messages: [] },
    status: 201,
  },
  { method: 'POST', route: `${API}/conversations/{id}/compact`, path: (a) => `${API}/conversations/${a.conversationId}/compact`, status: 404 },
  { method: 'GET', route: `${API}/runs/{id}`, path: (a) => `${API}/runs/${a.runId}`, status: 404 },
  { method: 'GET', route: `${API}/runs/{id}/children`, path: (a) => `${API}/runs/${a.runId}/children`, status: 404 },
  { method: 'GET', route: `${API}/runs/{id}/export`, path: (a) => `${API}/runs/${a.runId}/export?format=curl`, status: 404 },
  { method: 'GET', route: `${API}/runs/{id}/events`, path: (a) => `${API}/runs/${a.runId}/events`, accept: 'text/event-stream', status: 404, note: 'SSE' },
  { method: 'GET', route: `${API}/runs/{id}/events`, path: (a) => `${API}/runs/${a.runId}/events?after=0`, accept: 'application/json', status: 404, note: 'JSON page' },
  { method: 'POST', route: `${API}/runs/{id}/cancel`, path: (a) => `${API}/runs/${a.runId}/cancel`, status: 404 },
  { method: 'POST', route: `${API}/runs/{id}/resume`, path: (a) => `${API}/runs/${a.runId}/resume`, body: { approve: true }, status: 404 },
  { method: 'PUT', route: `${API}/runs/{id}/plan`, path: (a) => `${API}/runs/${a.runId}/plan`, body: { steps: [] }, status: 404 },
  {
    method: 'POST',
    route: `${API}/runs/{id}/approvals/{approvalId}`,
    path: (a) => `${API}/runs/${a.runId}/approvals/${a.approvalId}`,
    body: { decision: 'approve' },
    status: 404,
  },
  {
    method: 'POST',
    route: `${API}/runs/{id}/approvals/{approvalId}`,
    path: (a, b) => `${API}/runs/${b.runId}/approvals/${a.approvalId}`,
    body: { decision: 'approve' },
    status: 404,
    note: "B's own run, A's approval",
  },
  { method: 'POST', route: `${API}/runs/{id}/reply`, path: (a) => `${API}/runs/${a.runId}/reply`, body: { text: 'yes' }, status: 404 },
  {
    method: 'POST',
    route: `${API}/runs/{id}/tool-results`,
    path: (a) => `${API}/runs/${a.runId}/tool-results`,
    body: { results: [{ callId: 'call_1', output: 'x' }] },
    status: 404,
  },
  { method: 'GET', route: `${API}/knowledge-bases`, path: () => `${API}/knowledge-bases`, status: 200 },
  {
    method: 'POST',
    route: `${API}/knowledge-bases`,
    path: () => `${API}/knowledge-bases`,
    // names are unique per workspace: a new one for each key that calls it
    get body() {
      return { name: `B's own ${++created}` };
    },
    status: 201,
  },
  { method: 'GET', route: `${API}/knowledge-bases/{id}`, path: (a) => `${API}/knowledge-bases/${a.knowledgeBaseId}`, status: 404 },
  {
    method: 'PATCH',
    route: `${API}/knowledge-bases/{id}`,
    path: (a) => `${API}/knowledge-bases/${a.knowledgeBaseId}`,
    body: { graph: false },
    status: 404,
  },
  { method: 'DELETE', route: `${API}/knowledge-bases/{id}`, path: (a) => `${API}/knowledge-bases/${a.knowledgeBaseId}`, status: 404 },
  {
    method: 'POST',
    route: `${API}/knowledge-bases/{id}/documents`,
    path: (a) => `${API}/knowledge-bases/${a.knowledgeBaseId}/documents`,
    body: { title: 'planted', text: 'planted by B' },
    status: 404,
  },
  { method: 'GET', route: `${API}/knowledge-bases/{id}/documents`, path: (a) => `${API}/knowledge-bases/${a.knowledgeBaseId}/documents`, status: 404 },
  {
    method: 'DELETE',
    route: `${API}/knowledge-bases/{id}/documents/{docId}`,
    path: (a) => `${API}/knowledge-bases/${a.knowledgeBaseId}/documents/${a.documentId}`,
    status: 404,
  },
  {
    method: 'DELETE',
    route: `${API}/knowledge-bases/{id}/documents/{docId}`,
    path: (a, b) => `${API}/knowledge-bases/${b.knowledgeBaseId}/documents/${a.documentId}`,
    status: 404,
    note: "B's own knowledge base, A's document",
  },
  {
    method: 'GET',
    route: `${API}/knowledge-bases/{id}/documents/{docId}/chunks`,
    path: (a) => `${API}/knowledge-bases/${a.knowledgeBaseId}/documents/${a.documentId}/chunks`,
    status: 404,
  },
  {
    method: 'GET',
    route: `${API}/knowledge-bases/{id}/documents/{docId}/chunks`,
    path: (a, b) => `${API}/knowledge-bases/${b.knowledgeBaseId}/documents/${a.documentId}/chunks`,
    status: 404,
    note: "B's own knowledge base, A's document",
  },
  { method: 'GET', route: `${API}/knowledge-bases/{id}/chunks/{chunkId}`, path: (a) => `${API}/knowledge-bases/${a.knowledgeBaseId}/chunks/${a.chunkId}`, status: 404 },
  {
    method: 'GET',
    route: `${API}/knowledge-bases/{id}/chunks/{chunkId}`,
    path: (a, b) => `${API}/knowledge-bases/${b.knowledgeBaseId}/chunks/${a.chunkId}`,
    status: 404,
    note: "B's own knowledge base, A's chunk",
  },
  {
    method: 'PATCH',
    route: `${API}/knowledge-bases/{id}/chunks/{chunkId}`,
    path: (a) => `${API}/knowledge-bases/${a.knowledgeBaseId}/chunks/${a.chunkId}`,
    body: { text: 'planted by B' },
    status: 404,
  },
  {
    method: 'PATCH',
    route: `${API}/knowledge-bases/{id}/chunks/{chunkId}`,
    path: (a, b) => `${API}/knowledge-bases/${b.knowledgeBaseId}/chunks/${a.chunkId}`,
    body: { text: 'planted by B' },
    status: 404,
    note: "B's own knowledge base, A's chunk",
  },
  { method: 'DELETE', route: `${API}/knowledge-bases/{id}/chunks/{chunkId}`, path: (a) => `${API}/knowledge-bases/${a.knowledgeBaseId}/chunks/${a.chunkId}`, status: 404 },
  {
    method: 'DELETE',
    route: `${API}/knowledge-bases/{id}/chunks/{chunkId}`,
    path: (a, b) => `${API}/knowledge-bases/${b.knowledgeBaseId}/chunks/${a.chunkId}`,
    status: 404,
    note: "B's own knowledge base, A's chunk",
  },
  {
    method: 'POST',
    route: `${API}/knowledge-bases/{id}/search`,
    path: (a) => `${API}/knowledge-bases/${a.knowledgeBaseId}/search`,
    body: { query: 'heron midnight' },
    status: 404,
  },
  {
    method: 'POST',
    route: `${API}/knowledge-bases/{id}/search`,
    path: (a, b) => `${API}/knowledge-bases/${b.knowledgeBaseId}/search`,
    body: { query: 'heron midnight' },
    status: 200,
    note: "B's own knowledge base: A's documents are not in it",
  },
  { method: 'GET', route: `${API}/jobs/{id}`, path: (a) => `${API}/jobs/${a.jobId}`, status: 404 },
  { method: 'GET', route: `${API}/files/{id}`, path: (a) => `${API}/files/${a.fileId}`, status: 404 },
];

/**
 * What B's admin key gets: NOT_FOUND (A's ids and workspace are unknown to it), FORBIDDEN (a
 * bootstrap-only operation), or data of its own (`ok`), which must hold nothing of A.
 */
export type GraphqlOutcome = 'NOT_FOUND' | 'FORBIDDEN' | 'ok';

export interface GraphqlCase {
  /** the root field (Query or Mutation) this row covers */
  field: string;
  query: (a: Fixture) => string;
  outcome: GraphqlOutcome;
}

export const GRAPHQL_CASES: GraphqlCase[] = [
  { field: 'workspace', query: (a) => `{ workspace(id: "${a.workspaceId}") { id name } }`, outcome: 'NOT_FOUND' },
  { field: 'workspaces', query: () => '{ workspaces { id name } }', outcome: 'ok' },
  { field: 'createWorkspace', query: () => 'mutation { createWorkspace(name: "B2") { id } }', outcome: 'FORBIDDEN' },
  { field: 'updateWorkspaceSettings', query: (a) => `mutation { updateWorkspaceSettings(id: "${a.workspaceId}", input: { maxSteps: 2 }) { id } }`, outcome: 'NOT_FOUND' },
  { field: 'updatePrompt', query: (a) => `mutation { updatePrompt(key: "system", content: "x", workspaceId: "${a.workspaceId}") { id } }`, outcome: 'NOT_FOUND' },
  { field: 'modelConfigs', query: (a) => `{ modelConfigs(workspaceId: "${a.workspaceId}") { id } }`, outcome: 'NOT_FOUND' },
  { field: 'models', query: (a) => `{ models(workspaceId: "${a.workspaceId}") { provider modelId } }`, outcome: 'NOT_FOUND' },
  {
    field: 'upsertModelConfig',
    query: (a) => `mutation { upsertModelConfig(input: { workspaceId: "${a.workspaceId}", provider: "openai", modelId: "m" }) { id } }`,
    outcome: 'NOT_FOUND',
  },
  { field: 'agents', query: (a) => `{ agents(workspaceId: "${a.workspaceId}") { id } }`, outcome: 'NOT_FOUND' },
  { field: 'agent', query: (a) => `{ agent(id: "${a.agentId}") { id name } }`, outcome: 'NOT_FOUND' },
  { field: 'upsertAgent', query: (a) => `mutation { upsertAgent(input: { id: "${a.agentId}", description: "stolen" }) { id } }`, outcome: 'NOT_FOUND' },
  { field: 'deleteAgent', query: (a) => `mutation { deleteAgent(id: "${a.agentId}") { id } }`, outcome: 'NOT_FOUND' },
  { field: 'deleteModelConfig', query: (a) => `mutation { deleteModelConfig(id: "${a.modelConfigId}") { id } }`, outcome: 'NOT_FOUND' },
  { field: 'usage', query: (a) => `{ usage(from: "2026-01-01", to: "2026-01-02", workspaceId: "${a.workspaceId}") { day } }`, outcome: 'NOT_FOUND' },
  { field: 'budget', query: (a) => `{ budget(workspaceId: "${a.workspaceId}") { tokensUsed } }`, outcome: 'NOT_FOUND' },
  { field: 'setBudget', query: (a) => `mutation { setBudget(workspaceId: "${a.workspaceId}", dailyTokenBudget: 1) { tokensUsed } }`, outcome: 'NOT_FOUND' },
  { field: 'traces', query: () => '{ traces(first: 100) { edges { node { id runId } } } }', outcome: 'ok' },
  { field: 'slowestSpans', query: (a) => `{ slowestSpans(workspaceId: "${a.workspaceId}") { id } }`, outcome: 'NOT_FOUND' },
  { field: 'runs', query: (a) => `{ runs(first: 100, filter: { conversationId: "${a.conversationId}" }) { edges { node { id goal } } } }`, outcome: 'ok' },
  { field: 'run', query: (a) => `{ run(id: "${a.runId}") { id goal } }`, outcome: 'NOT_FOUND' },
  { field: 'cancelRun', query: (a) => `mutation { cancelRun(id: "${a.runId}") { id state } }`, outcome: 'NOT_FOUND' },
  { field: 'editRunPlan', query: (a) => `mutation { editRunPlan(id: "${a.runId}", plan: { steps: [] }) { id } }`, outcome: 'NOT_FOUND' },
  { field: 'apiKeys', query: (a) => `{ apiKeys(workspaceId: "${a.workspaceId}") { id prefix } }`, outcome: 'NOT_FOUND' },
  { field: 'createApiKey', query: (a) => `mutation { createApiKey(name: "x", role: admin, workspaceId: "${a.workspaceId}") { key } }`, outcome: 'NOT_FOUND' },
  { field: 'revokeApiKey', query: (a) => `mutation { revokeApiKey(id: "${a.apiKeyId}") { id revokedAt } }`, outcome: 'NOT_FOUND' },
  { field: 'secrets', query: (a) => `{ secrets(workspaceId: "${a.workspaceId}") { id name } }`, outcome: 'NOT_FOUND' },
  { field: 'setSecret', query: (a) => `mutation { setSecret(name: "x", value: "y", workspaceId: "${a.workspaceId}") { id } }`, outcome: 'NOT_FOUND' },
  { field: 'auditLog', query: () => '{ auditLog(first: 100) { edges { node { action target workspaceId } } } }', outcome: 'ok' },
  { field: 'configVersions', query: (a) => `{ configVersions(key: "settings", workspaceId: "${a.workspaceId}") { version } }`, outcome: 'NOT_FOUND' },
  { field: 'rollbackConfig', query: (a) => `mutation { rollbackConfig(key: "settings", version: 1, workspaceId: "${a.workspaceId}") { version } }`, outcome: 'NOT_FOUND' },
  { field: 'tools', query: (a) => `{ tools(workspaceId: "${a.workspaceId}") { name } }`, outcome: 'NOT_FOUND' },
  { field: 'knowledgeGraph', query: (a) => `{ knowledgeGraph(knowledgeBaseId: "${a.knowledgeBaseId}") { entityCount } }`, outcome: 'NOT_FOUND' },
  { field: 'toolPolicies', query: (a) => `{ toolPolicies(conversationId: "${a.conversationId}") { tool } }`, outcome: 'NOT_FOUND' },
  { field: 'setToolPolicy', query: (a) => `mutation { setToolPolicy(tool: "calculator", mode: always, conversationId: "${a.conversationId}") { tool } }`, outcome: 'NOT_FOUND' },
  { field: 'clearToolPolicy', query: (a) => `mutation { clearToolPolicy(tool: "calculator", conversationId: "${a.conversationId}") }`, outcome: 'NOT_FOUND' },
];
