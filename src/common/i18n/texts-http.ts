import type { CatalogueEntry } from './entry';

/**
 * The `message` of REST errors a chat client meets: the filter's own, authentication, limits,
 * unknown resources (404), states that forbid a call (409; the state is named as stored) and the
 * 400s services raise. Admin-only (GraphQL) and operator-only (health, metrics) texts stay English.
 */
export const HTTP_TEXTS = {
  'http.internal': { en: 'Internal server error', zh: '服务器内部错误' },
  'http.not_found': { en: 'Not found', zh: '未找到' },
  'http.no_route': { en: 'Cannot {method} {path}', zh: '没有这个接口：{method} {path}' },
  'http.body_not_json': { en: 'Request body is not valid JSON', zh: '请求体不是有效的 JSON' },
  'http.body_too_large': { en: 'Request body is too large', zh: '请求体过大' },
  'http.body_too_large_limit': {
    en: 'Request body is too large (the limit is {limit} bytes, HELIX_BODY_LIMIT)',
    zh: '请求体过大（上限为 {limit} 字节，HELIX_BODY_LIMIT）',
  },
  'http.body_media_type': {
    en: 'Request body must be {accepted} (Content-Type: {type})',
    zh: '请求体必须是 {accepted}（Content-Type：{type}）',
  },
  'http.body_not_utf8': { en: 'Request body is not valid UTF-8', zh: '请求体不是有效的 UTF-8' },
  'http.body_too_deep': { en: 'Request body is nested deeper than {max} levels', zh: '请求体的嵌套超过了 {max} 层' },
  'http.body_forbidden_key': { en: 'Request body must not contain the key "{key}"', zh: '请求体不能包含键 "{key}"' },
  'http.db_bad_value': { en: 'The request holds a value the database cannot store or compare', zh: '请求中有数据库无法存储或比较的值' },
  'http.db_conflict': {
    en: 'The request conflicts with the stored data (it may have changed meanwhile): retry',
    zh: '请求与已存储的数据冲突（数据可能刚被改动）：请重试',
  },
  'http.cors_forbidden': {
    en: 'This origin may not call the API from a browser (HELIX_CORS_ORIGINS)',
    zh: '此来源不允许从浏览器调用 API（HELIX_CORS_ORIGINS）',
  },
  'http.last_event_id': {
    en: 'Last-Event-ID must be an event seq: an integer between 0 and {max}',
    zh: 'Last-Event-ID 必须是事件序号：0 到 {max} 之间的整数',
  },

  // 401, 403
  'auth.missing_token': {
    en: 'Missing API token: send X-API-Token or Authorization: Bearer',
    zh: '缺少 API 令牌：请发送 X-API-Token 或 Authorization: Bearer',
  },
  'auth.invalid_token': { en: 'Invalid API token', zh: 'API 令牌无效' },
  'auth.key_expired': { en: 'The API key has expired', zh: 'API 密钥已过期' },
  'auth.invalid_stream_token': { en: 'Invalid or expired stream token', zh: '流令牌无效或已过期' },
  'auth.admin_only': { en: 'The admin API needs an API key with the admin role', zh: '管理 API 需要具有 admin 角色的 API 密钥' },

  // 429 (LimitExceeded appends the variable an operator would raise)
  'limit.exceeded': { en: '{detail} (limit {variable})', zh: '{detail}（限制：{variable}）', nested: ['detail'] },
  'limit.rate_key': {
    en: 'Too many requests: {limit} per minute for this API key; retry after {seconds} s',
    zh: '请求过于频繁：此 API 密钥每分钟最多 {limit} 次；请在 {seconds} 秒后重试',
  },
  'limit.auth_failures': {
    en: 'Too many failed authentications from this client address: {limit} per minute; retry after {seconds} s',
    zh: '此客户端地址认证失败次数过多：每分钟最多 {limit} 次；请在 {seconds} 秒后重试',
  },
  'limit.rate_address': {
    en: 'Too many requests: {limit} per minute for this client address; retry after {seconds} s',
    zh: '请求过于频繁：此客户端地址每分钟最多 {limit} 次；请在 {seconds} 秒后重试',
  },
  'limit.streams_key': {
    en: 'This API key already has {count} event streams open, the most it may; close one first',
    zh: '此 API 密钥已打开 {count} 个事件流，已达上限；请先关闭一个',
  },
  'limit.streams_address': {
    en: 'This client address already has {count} event streams open, the most it may; close one first',
    zh: '此客户端地址已打开 {count} 个事件流，已达上限；请先关闭一个',
  },
  'limit.run_queue': {
    en: '{count} runs are waiting for an execution slot; try again shortly',
    zh: '已有 {count} 个运行在排队等待执行；请稍后再试',
  },
  'limit.live_runs': {
    en: 'This workspace has {count} live runs, the most it may have at once; wait for one to finish or cancel one',
    zh: '此工作空间已有 {count} 个进行中的运行，已达同时运行的上限；请等其中一个结束，或取消一个',
  },

  // 404
  'conversation.not_found': { en: 'Conversation {id} not found', zh: '找不到会话 {id}' },
  'agent.not_found': { en: 'Agent {id} not found', zh: '找不到智能体 {id}' },
  'agent.name_taken': { en: 'The workspace already has an agent named {name}', zh: '该工作区已有名为 {name} 的智能体' },
  'agent.default_fixed': {
    en: 'The default agent is the workspace itself: it cannot be deleted or renamed, and its description is fixed',
    zh: '默认智能体就是工作区本身：不能删除或重命名，描述也不能修改',
  },
  'agent.tool_not_allowed': { en: 'clientTools: agent {agent} does not allow the tool {tool}', zh: 'clientTools：智能体 {agent} 不允许工具 {tool}' },
  'conversation.no_runs': { en: 'Conversation {id} has no runs', zh: '会话 {id} 还没有运行' },
  'message.not_found': { en: 'Message {id} not found in this conversation', zh: '此会话中找不到消息 {id}' },
  'run.not_found': { en: 'Run {id} not found', zh: '找不到运行 {id}' },
  'approval.not_found': { en: 'Approval {id} not found', zh: '找不到审批 {id}' },
  'approval.not_found_for_run': { en: 'Approval {id} not found for run {runId}', zh: '运行 {runId} 中找不到审批 {id}' },
  'knowledge_base.not_found': { en: 'Knowledge base {id} not found', zh: '找不到知识库 {id}' },
  'document.not_found': { en: 'Document {id} not found', zh: '找不到文档 {id}' },
  'chunk.not_found': { en: 'Chunk {id} not found', zh: '找不到分块 {id}' },
  'job.not_found': { en: 'Job {id} not found', zh: '找不到任务 {id}' },

  // 409: the state named is the stored one (AWAIT_APPROVAL, SUCCEEDED, pending …)
  'run.already_finished': { en: 'Run {id} is already {state}', zh: '运行 {id} 已经是 {state}' },
  'run.cancel_unanswered': {
    en: 'Run {id} is executing on instance {owner}, which could not be reached or did not stop it in time; try again',
    zh: '运行 {id} 正在实例 {owner} 上执行，无法联系该实例或它未能及时停止运行；请重试',
  },
  'run.reply_text_or_option': { en: 'text, optionId: give one of them, not both', zh: 'text、optionId：只能给出其中一个' },
  'run.reply_unknown_option': { en: 'optionId: {id} is not one of the options offered ({offered})', zh: 'optionId：{id} 不是所提供的选项之一（{offered}）' },
  'run.reply_no_options': { en: 'optionId: the question offered no options; answer with text', zh: 'optionId：这个问题没有提供选项；请用 text 回答' },
  'run.no_plan': { en: 'Run {id} has no plan to edit (it runs in {mode} mode)', zh: '运行 {id} 没有可编辑的计划（它以 {mode} 模式运行）' },
  'run.plan_too_long': { en: 'steps: a plan holds at most {max} steps, counting those already started', zh: 'steps：一个计划最多 {max} 步（含已开始的步骤）' },
  'run.not_plan_approval': {
    en: 'Run {id} is {state}; only a run awaiting plan approval can be resumed',
    zh: '运行 {id} 处于 {state}；只有等待批准计划的运行才能继续',
  },
  'run.not_plan_approval_tool': {
    en: 'Run {id} is {state} on a tool approval; only a run awaiting plan approval can be resumed',
    zh: '运行 {id} 处于 {state}（等待的是工具审批）；只有等待批准计划的运行才能继续',
  },
  'run.not_awaiting_reply': {
    en: 'Run {id} is {state}; only a run awaiting a user reply accepts one',
    zh: '运行 {id} 处于 {state}；只有等待用户回复的运行才接受回复',
  },
  'run.not_awaiting_tool_results': {
    en: 'Run {id} is {state}; only a run waiting for client-side tool results accepts them',
    zh: '运行 {id} 处于 {state}；只有等待客户端工具结果的运行才接受这些结果',
  },
  'run.state_changed': { en: 'Run {id} is {state}, not {expected}', zh: '运行 {id} 处于 {state}，而不是 {expected}' },
  'approval.not_pending': {
    en: 'Approval {id} is {status} and run {runId} is {state}',
    zh: '审批 {id} 的状态是 {status}，运行 {runId} 处于 {state}',
  },
  'approval.decided_meanwhile': { en: 'Approval {id} was decided meanwhile', zh: '审批 {id} 刚刚已被处理' },
  'conversation.moved': {
    en: 'Conversation {id} has gone on since: its last message is {lastSeq}, not {expected}',
    zh: '会话 {id} 已有新的消息：最后一条消息是 {lastSeq}，而不是 {expected}',
  },
  'conversation.live_run': {
    en: 'Conversation {id} already has a live run {runId} in state {state}; wait for it, cancel it, or set settings.multitask to enqueue or interrupt',
    zh: '会话 {id} 已有一个进行中的运行 {runId}，状态为 {state}；请等待它结束、取消它，或把 settings.multitask 设为 enqueue 或 interrupt',
  },
  'conversation.nothing_to_compact': {
    en: 'Conversation {id} has nothing to compact: fewer than two exchanges since its last summary',
    zh: '会话 {id} 没有可压缩的内容：自上次总结以来不足两轮对话',
  },
  'knowledge_base.name_taken': { en: 'A knowledge base named "{name}" already exists', zh: '已存在名为 "{name}" 的知识库' },
  'knowledge_base.no_rerank_model': {
    en: 'rerank: the workspace has no rerankModel; set one in its settings to rerank searches',
    zh: 'rerank:工作区未设置 rerankModel;请先在设置中指定重排模型',
  },

  // 400s services raise, naming the field; 415, 502
  'message.too_long': {
    en: 'text must be at most {max} characters (HELIX_MAX_MESSAGE_CHARS)',
    zh: 'text 最多只能有 {max} 个字符（HELIX_MAX_MESSAGE_CHARS）',
  },
  'message.model_override': { en: 'modelOverride: {reason}', zh: 'modelOverride：{reason}', nested: ['reason'] },
  'approval.remember_approve_only': {
    en: 'remember goes with decision "approve" only',
    zh: 'remember 只能与 decision "approve" 一起使用',
  },
  'tools.server_name': {
    en: '{field}.name "{name}" is the name of a server tool; choose another',
    zh: '{field}.name "{name}" 是服务端工具的名称；请换一个',
  },
  'tools.declared_twice': { en: '{field}.name "{name}" is declared twice', zh: '{field}.name "{name}" 被声明了两次' },
  'tools.schema_not_object': {
    en: '{field}.parameters must be a JSON Schema with "type": "object"',
    zh: '{field}.parameters 必须是 "type": "object" 的 JSON Schema',
  },
  'tools.schema_invalid': {
    en: '{field}.parameters is not a valid JSON Schema: {reason}',
    zh: '{field}.parameters 不是有效的 JSON Schema：{reason}',
  },
  'tools.unknown_call': {
    en: '{field}.callId "{callId}" is not a call this run waits for ({pending})',
    zh: '{field}.callId "{callId}" 不是此运行在等待的调用（{pending}）',
  },
  'tools.answered_twice': { en: '{field}.callId "{callId}" is answered twice', zh: '{field}.callId "{callId}" 被回答了两次' },
  'tools.missing_results': {
    en: 'results must answer every pending call; missing: {missing}',
    zh: 'results 必须回答每个待处理的调用；缺少：{missing}',
  },
  'rag.unsupported_file': {
    en: 'file: {name} is not a supported format ({supported})',
    zh: 'file：{name} 不是受支持的格式（{supported}）',
  },
  'rag.binary_file': {
    en: 'file: {name} holds binary data (a NUL byte), not {format} text',
    zh: 'file：{name} 含有二进制数据（NUL 字节），不是 {format} 文本',
  },
  'memory.summary_failed': {
    en: 'The model could not summarise the conversation: {reason}',
    zh: '模型未能总结这段对话：{reason}',
    nested: ['reason'],
  },

  // the import of a conversation's trajectory (POST /conversations/import)
  'trajectory.role_mismatch': {
    en: 'messages.{index}.role: a message whose parts are {kind} has the role {role}',
    zh: 'messages.{index}.role：parts 为 {kind} 的消息，角色应为 {role}',
  },
  'trajectory.field_required': { en: 'messages.{index}.{field} is required for a {kind} message', zh: '{kind} 消息必须有 messages.{index}.{field}' },
  'trajectory.field_not_allowed': { en: 'messages.{index}.{field} is only allowed on a tool message', zh: 'messages.{index}.{field} 只能出现在工具消息上' },
  'trajectory.orphan_result': {
    en: 'messages.{index}.toolCallId: no earlier assistant message made the tool call {id}',
    zh: 'messages.{index}.toolCallId：之前没有助手消息发起过工具调用 {id}',
  },
} as const satisfies Record<string, CatalogueEntry>;
