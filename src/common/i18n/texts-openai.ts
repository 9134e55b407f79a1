import type { CatalogueEntry } from './entry';

/** The OpenAI-compatible API's own texts (src/openai): what an answer says while its run waits for a person. */
export const OPENAI_TEXTS = {
  'openai.approval_pending': {
    en: 'The tool call {name} needs approval before the run goes on (approval {approvalId} of run {runId}). Decide it with POST /api/v1/runs/{runId}/approvals/{approvalId} and {"decision": "approve"} or {"decision": "reject"}; the run then continues, and its answer is in the conversation and in GET /api/v1/runs/{runId}/events.',
    zh: '工具调用 {name} 需要批准后运行才会继续（运行 {runId} 的审批 {approvalId}）。请用 POST /api/v1/runs/{runId}/approvals/{approvalId} 并附 {"decision": "approve"} 或 {"decision": "reject"} 作出决定；之后运行继续，其回答见对话和 GET /api/v1/runs/{runId}/events。',
  },
  'openai.plan_pending': {
    en: 'This plan waits for approval: POST /api/v1/runs/{runId}/resume with {"approve": true} carries it out, {"approve": false} rejects it.',
    zh: '该计划等待批准：POST /api/v1/runs/{runId}/resume 并附 {"approve": true} 执行，{"approve": false} 拒绝。',
  },
} as const satisfies Record<string, CatalogueEntry>;
