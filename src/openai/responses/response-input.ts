import { OpenAiError, isRecord, isStorableText } from '../../common';
import type { ChatTurn } from '../chat/chat-turns';

/** An `mcp_approval_response` item: the decision on a tool call an earlier response asked to approve. */
export interface ApprovalAnswer {
  approvalId: string;
  approve: boolean;
  reason?: string;
}

/** A response's `input`, read and checked. */
export interface ResponseInput {
  /** system and developer messages, joined (they join `instructions`) */
  instructions?: string;
  /** messages, function calls and their outputs, as chat turns */
  turns: ChatTurn[];
  approvals: ApprovalAnswer[];
  /** the items as `GET /v1/responses/{id}/input_items` lists them */
  items: Record<string, unknown>[];
}

const MAX_TEXT = 1_000_000;
const invalid = (param: string, message: string, code = 'invalid_value') => new OpenAiError(400, `${param}: ${message}`, param, code);

function text(value: unknown, at: string): string {
  if (typeof value !== 'string') throw invalid(at, 'must be a string');
  if (value.length > MAX_TEXT) throw invalid(at, `is longer than ${MAX_TEXT} characters`);
  if (!isStorableText(value)) throw invalid(at, 'holds text that cannot be stored (a NUL character or an unpaired surrogate)');
  return value;
}

/**
 * OpenAI's `input`: a string (one user message) or items — messages (`input_text`,
 * `input_image` as a data: URL, an assistant's `output_text`), `function_call` and
 * `function_call_output`, `mcp_approval_response`. Anything else is a 400 naming the item.
 */
export function readResponseInput(input: string | unknown[], responseId: string): ResponseInput {
  const itemId = (index: number) => `${responseId.replace(/^resp_/, 'in_')}_${index}`;
  if (typeof input === 'string') {
    const content = text(input, 'input');
    return {
      turns: [{ role: 'user', text: content, imageUrls: [] }],
      approvals: [],
      items: [{ id: itemId(0), type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: content }] }],
    };
  }
  const system: string[] = [];
  const turns: ChatTurn[] = [];
  const approvals: ApprovalAnswer[] = [];
  const items: Record<string, unknown>[] = [];
  input.forEach((item, index) => {
    const at = `input[${index}]`;
    if (!isRecord(item)) throw invalid(at, 'must be an object');
    const type = item.type ?? 'message';
    items.push({ id: itemId(index), ...item, type });
    switch (type) {
      case 'message': {
        const { texts, imageUrls } = contentOf(item.content, `${at}.content`);
        if (item.role === 'system' || item.role === 'developer') system.push(texts);
        else if (item.role === 'user') turns.push({ role: 'user', text: texts, imageUrls });
        else if (item.role === 'assistant') turns.push({ role: 'assistant', text: texts, toolCalls: [] });
        else throw invalid(`${at}.role`, 'must be one of user, assistant, system, developer');
        return;
      }
      case 'function_call': {
        const call = { id: text(item.call_id, `${at}.call_id`), name: text(item.name, `${at}.name`), arguments: text(item.arguments, `${at}.arguments`) };
        const last = turns.at(-1);
        if (last?.role === 'assistant') last.toolCalls.push(call);
        else turns.push({ role: 'assistant', text: '', toolCalls: [call] });
        return;
      }
      case 'function_call_output': {
        const output = typeof item.output === 'string' ? item.output : contentOf(item.output, `${at}.output`).texts;
        turns.push({ role: 'tool', toolCallId: text(item.call_id, `${at}.call_id`), text: text(output, `${at}.output`) });
        return;
      }
      case 'mcp_approval_response':
        if (typeof item.approve !== 'boolean') throw invalid(`${at}.approve`, 'must be true or false');
        approvals.push({
          approvalId: text(item.approval_request_id, `${at}.approval_request_id`),
          approve: item.approve,
          ...(typeof item.reason === 'string' && item.reason && { reason: text(item.reason, `${at}.reason`).slice(0, 2000) }),
        });
        return;
      default:
        throw invalid(`${at}.type`, `${String(type)} items are not supported (message, function_call, function_call_output, mcp_approval_response)`, 'unsupported_value');
    }
  });
  const instructions = system.map((s) => s.trim()).filter(Boolean).join('\n\n');
  return { ...(instructions && { instructions }), turns, approvals, items };
}

function contentOf(content: unknown, at: string): { texts: string; imageUrls: string[] } {
  if (typeof content === 'string') return { texts: text(content, at), imageUrls: [] };
  if (!Array.isArray(content)) throw invalid(at, 'must be a string or an array of content parts');
  const texts: string[] = [];
  const imageUrls: string[] = [];
  content.forEach((part, index) => {
    const where = `${at}[${index}]`;
    if (!isRecord(part)) throw invalid(where, 'must be an object');
    if (part.type === 'input_text' || part.type === 'output_text' || part.type === 'text') texts.push(text(part.text, `${where}.text`));
    else if (part.type === 'input_image') {
      const url = part.image_url;
      if (typeof url !== 'string' || !url.startsWith('data:')) {
        throw invalid(`${where}.image_url`, 'images are accepted as data: URLs (base64) only; Helix fetches no URL for a model', 'unsupported_value');
      }
      imageUrls.push(url);
    } else throw invalid(`${where}.type`, `${String(part.type)} parts are not supported (input_text, input_image, output_text)`, 'unsupported_value');
  });
  return { texts: texts.join('\n\n'), imageUrls };
}
