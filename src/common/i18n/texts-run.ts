import type { CatalogueEntry } from './entry';

/** The `text` of `status` events and the `message` of `error` events a run emits. */
export const RUN_TEXTS = {
  'run.thinking': { en: 'Thinking', zh: '正在思考' },
  'run.resuming': { en: 'Resuming after a restart', zh: '重启后继续' },
  'run.restarted': { en: 'The answer changed after a restart; starting it over', zh: '重启后回答有变；重新开始回答' },
  'run.planning': { en: 'Planning', zh: '正在制定计划' },
  'run.waiting_plan': { en: 'Waiting for plan approval', zh: '等待批准计划' },
  'run.waiting_answer': { en: 'Waiting for your answer', zh: '等待你的回答' },
  'run.waiting_client_tools': { en: 'Waiting for the client to run its tools', zh: '等待客户端运行它的工具' },
  'run.plan_rejected': { en: 'Plan rejected', zh: '计划已被拒绝' },
  'run.plan_rejected_reason': { en: 'Plan rejected: {reason}', zh: '计划已被拒绝：{reason}' },
  'run.stream_cut': { en: "The provider's stream broke; finishing the answer without streaming", zh: '模型服务的流中断了；正在以非流式方式完成回答' },
  'run.plan_step_retry': { en: 'That step failed; trying it once more', zh: '这一步失败了；再试一次' },
  'run.plan_step_failed': {
    en: 'Step {n} of the plan ("{title}") failed twice: {reason}',
    zh: '计划的第 {n} 步（“{title}”）两次失败：{reason}',
  },
  'run.summarised': { en: 'Summarised the earlier conversation to fit the context window', zh: '已总结较早的对话，以容纳进上下文窗口' },

  'run.invalid_output': {
    en: 'The answer did not match the requested response format: {errors}',
    zh: '回答不符合所要求的响应格式：{errors}',
  },
  'run.repairing_output': { en: 'The answer did not match the response format; asking the model to correct it', zh: '回答不符合响应格式；正在请模型更正' },
  'run.stuck_calls': {
    en: 'The run stopped: it made the same tool calls {times} times in a row ({calls}) without getting anywhere.',
    zh: '运行已停止：它连续 {times} 次发出相同的工具调用（{calls}），没有进展。',
  },
  'run.stuck_errors': {
    en: 'The run stopped: the tool {tool} failed with the same error {times} times in a row.',
    zh: '运行已停止：工具 {tool} 连续 {times} 次以相同的错误失败。',
  },
  'run.stuck_answers': {
    en: 'The run stopped: the model gave the same answer {times} times in a row.',
    zh: '运行已停止：模型连续 {times} 次给出相同的回答。',
  },
  'run.max_steps': { en: 'The run stopped after reaching its limit of {max} steps.', zh: '运行已达到 {max} 步的上限，已停止。' },
  'run.bad_plan': {
    en: 'The model did not return a usable plan; try again or use react mode.',
    zh: '模型没有给出可用的计划；请重试，或改用 react 模式。',
  },
  'run.internal': { en: 'The run failed because of an internal error.', zh: '运行因内部错误而失败。' },
  'run.stream_failed': {
    en: 'The event stream failed; reconnect with Last-Event-ID to resume',
    zh: '事件流出错；请带上 Last-Event-ID 重新连接以继续',
  },
  'run.event_not_stored': { en: 'The {type} event {seq} could not be stored: {detail}', zh: '第 {seq} 个事件（{type}）无法存储：{detail}' },

  // the daily budgets (observe/budget-status.ts): which one, what is used and held, when it resets
  'budget.tokens_refused': {
    en: "This call needs at least {needed} tokens, more than the {left} left of the workspace's daily token budget of {budget} ({used} used today). It resets at {resetsAt} (midnight UTC).",
    zh: '本次调用至少需要 {needed} 个 token，超过了工作空间每日 {budget} 个 token 预算的剩余 {left} 个（今天已用 {used} 个）。预算将于 {resetsAt}（UTC 午夜）重置。',
  },
  'budget.tokens_refused_held': {
    en: "This call needs at least {needed} tokens, more than the {left} left of the workspace's daily token budget of {budget} ({used} used today, {held} held by calls in progress). It resets at {resetsAt} (midnight UTC).",
    zh: '本次调用至少需要 {needed} 个 token，超过了工作空间每日 {budget} 个 token 预算的剩余 {left} 个（今天已用 {used} 个，另有 {held} 个被进行中的调用占用）。预算将于 {resetsAt}（UTC 午夜）重置。',
  },
  'budget.cost_refused': {
    en: "This call needs at least {needed}, more than the {left} left of the workspace's daily cost budget of {budget} ({used} used today). It resets at {resetsAt} (midnight UTC).",
    zh: '本次调用至少需要 {needed}，超过了工作空间每日 {budget} 费用预算的剩余 {left}（今天已用 {used}）。预算将于 {resetsAt}（UTC 午夜）重置。',
  },
  'budget.cost_refused_held': {
    en: "This call needs at least {needed}, more than the {left} left of the workspace's daily cost budget of {budget} ({used} used today, {held} held by calls in progress). It resets at {resetsAt} (midnight UTC).",
    zh: '本次调用至少需要 {needed}，超过了工作空间每日 {budget} 费用预算的剩余 {left}（今天已用 {used}，另有 {held} 被进行中的调用占用）。预算将于 {resetsAt}（UTC 午夜）重置。',
  },
} as const satisfies Record<string, CatalogueEntry>;

/**
 * What a model call's failure tells the user (model/provider-errors.ts, model-router.ts): in the
 * run's `error` event, or in a 400 about `modelOverride`. `{model}` is `provider:modelId`.
 */
export const MODEL_TEXTS = {
  'model.rate_limited': {
    en: 'The model provider is rate limiting requests; try again in a moment.',
    zh: '模型服务商正在限流：请求过于频繁，请稍后再试。',
  },
  'model.timeout': {
    en: 'The model took too long to respond; try again, or pick a faster model.',
    zh: '模型响应超时；请重试，或换一个更快的模型。',
  },
  'model.model_not_found': {
    en: 'The model {model} was not found at its provider; check the model id.',
    zh: '模型不存在：服务商那里找不到模型 {model}；请检查模型 ID。',
  },
  'model.auth_failed': {
    en: 'The model provider rejected the credentials; check the API key configured for {model}.',
    zh: '鉴权失败：模型服务商拒绝了凭据；请检查为 {model} 配置的 API 密钥。',
  },
  'model.bad_request': { en: 'The model provider rejected the request as invalid.', zh: '模型服务商认为请求无效，拒绝了它。' },
  // the provider's own words follow, as it wrote them ("maximum context length is …")
  'model.bad_request_detail': {
    en: 'The model provider rejected the request as invalid. {detail}',
    zh: '模型服务商认为请求无效，拒绝了它。{detail}',
  },
  'model.provider_unavailable': {
    en: 'The model provider is unavailable right now; try again later.',
    zh: '模型服务商暂时不可用；请稍后再试。',
  },
  'model.aborted': { en: 'The model call was cancelled.', zh: '模型调用已取消。' },
  'model.bad_ref': {
    en: 'The model must be given as {"provider": "...", "modelId": "..."}.',
    zh: '模型须以 {"provider": "...", "modelId": "..."} 的形式给出。',
  },
  'model.unknown': { en: 'The model {model} does not exist.', zh: '模型不存在：{model}。' },
  'model.switched_off': { en: 'The model {model} is switched off here; choose another.', zh: '模型 {model} 在这里已停用；请另选一个。' },
  'model.provider_not_configured': {
    en: 'The model provider "{provider}" is not configured; add a model configuration with its base URL.',
    zh: '模型服务商 "{provider}" 尚未配置；请添加一个带 base URL 的模型配置。',
  },
  'model.key_missing': {
    en: 'The API key configured for {model} could not be found; set it again.',
    zh: '找不到为 {model} 配置的 API 密钥；请重新设置。',
  },
} as const satisfies Record<string, CatalogueEntry>;
