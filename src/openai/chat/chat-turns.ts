import { createHash } from 'node:crypto';
import { OpenAiError, isRecord, isStorableText } from '../../common';

/** A tool call of an assistant turn, as OpenAI's messages carry it. */
export interface TurnToolCall {
  id: string;
  name: string;
  /** the JSON text of the arguments */
  arguments: string;
}

/** One message of a chat completion request, read and checked: a discriminated union on `role`. */
export type ChatTurn =
  | { role: 'system'; text: string }
  | { role: 'user'; text: string; imageUrls: string[] }
  | { role: 'assistant'; text: string; toolCalls: TurnToolCall[] }
  | { role: 'tool'; toolCallId: string; text: string };

const MAX_TEXT = 1_000_000;

const invalid = (param: string, message: string, code = 'invalid_value') => new OpenAiError(400, `${param}: ${message}`, param, code);

/**
 * The request's `messages` as turns: `developer` is a system turn, content is a string or an
 * array of parts (`text`; a user's `image_url`; an assistant's `refusal`), an assistant turn may
 * carry `tool_calls`, a tool turn names its `tool_call_id`. Anything else is a 400 naming the
 * parameter (`messages[2].content[0].type`).
 */
export function readChatTurns(messages: readonly unknown[]): ChatTurn[] {
  return messages.map((message, index) => readTurn(message, `messages[${index}]`));
}

function readTurn(message: unknown, at: string): ChatTurn {
  if (!isRecord(message)) throw invalid(at, 'must be an object');
  const role = message.role;
  switch (role) {
    case 'system':
    case 'developer':
      return { role: 'system', text: textOf(message.content, `${at}.content`, ['text']).text };
    case 'user': {
      const { text, imageUrls } = textOf(message.content, `${at}.content`, ['text', 'image_url']);
      return { role: 'user', text, imageUrls };
    }
    case 'assistant': {
      const text = message.content === null || message.content === undefined ? '' : textOf(message.content, `${at}.content`, ['text', 'refusal']).text;
      const toolCalls = readToolCalls(message.tool_calls, `${at}.tool_calls`);
      if (message.function_call !== undefined && message.function_call !== null) {
        throw invalid(`${at}.function_call`, 'the legacy function_call is not supported: use tool_calls', 'unsupported_parameter');
      }
      return { role: 'assistant', text, toolCalls };
    }
    case 'tool': {
      const id = message.tool_call_id;
      if (typeof id !== 'string' || !id || id.length > 200 || !isStorableText(id)) throw invalid(`${at}.tool_call_id`, 'must be the id of a tool call of an earlier assistant message');
      return { role: 'tool', toolCallId: id, text: textOf(message.content, `${at}.content`, ['text']).text };
    }
    case 'function':
      throw invalid(`${at}.role`, 'the legacy role `function` is not supported: use `tool`', 'unsupported_value');
    default:
      throw invalid(`${at}.role`, 'must be one of system, developer, user, assistant, tool');
  }
}

/** A message's content: a string, or parts of the allowed types (texts joined by a blank line). */
function textOf(content: unknown, at: string, allowed: readonly string[]): { text: string; imageUrls: string[] } {
  if (typeof content === 'string') return { text: checkText(content, at), imageUrls: [] };
  if (!Array.isArray(content)) throw invalid(at, 'must be a string or an array of content parts');
  const texts: string[] = [];
  const imageUrls: string[] = [];
  content.forEach((part, index) => {
    const where = `${at}[${index}]`;
    if (!isRecord(part) || typeof part.type !== 'string') throw invalid(`${where}.type`, 'a content part needs a type');
    if (!allowed.includes(part.type)) throw invalid(`${where}.type`, `${part.type} parts are not supported here (only ${allowed.join(', ')})`, 'unsupported_value');
    if (part.type === 'image_url') {
      const url = isRecord(part.image_url) ? part.image_url.url : undefined;
      if (typeof url !== 'string' || !url.startsWith('data:')) {
        throw invalid(`${where}.image_url.url`, 'images are accepted as data: URLs (base64) only; Helix fetches no URL for a model', 'unsupported_value');
      }
      imageUrls.push(url);
      return;
    }
    const text = part.type === 'refusal' ? part.refusal : part.text;
    if (typeof text !== 'string') throw invalid(`${where}.${part.type}`, 'must be a string');
    texts.push(checkText(text, `${where}.${part.type}`));
  });
  return { text: texts.join('\n\n'), imageUrls };
}

function checkText(text: string, at: string): string {
  if (text.length > MAX_TEXT) throw invalid(at, `is longer than ${MAX_TEXT} characters`);
  if (!isStorableText(text)) throw invalid(at, 'holds text that cannot be stored (a NUL character or an unpaired surrogate)');
  return text;
}

function readToolCalls(value: unknown, at: string): TurnToolCall[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid(at, 'must be an array');
  return value.map((call, index) => {
    const where = `${at}[${index}]`;
    const fn = isRecord(call) ? call.function : undefined;
    if (!isRecord(call) || typeof call.id !== 'string' || !call.id || !isRecord(fn) || typeof fn.name !== 'string' || typeof fn.arguments !== 'string') {
      throw invalid(where, 'a tool call needs an id and a function with a name and arguments');
    }
    return { id: checkText(call.id, `${where}.id`), name: checkText(fn.name, `${where}.function.name`), arguments: checkText(fn.arguments, `${where}.function.arguments`) };
  });
}

/** The request's turns as Helix takes them: system texts aside, the rest in order. */
export interface SplitTurns {
  /** the system and developer messages, joined: the run's instructions */
  instructions?: string;
  /** the turns up to and including the last assistant turn: what an earlier completion may have ended */
  prefix: ChatTurn[];
  /** the turns after it: the new user message(s), or the results of the tool calls it asked for */
  rest: ChatTurn[];
}

export function splitTurns(turns: readonly ChatTurn[]): SplitTurns {
  const system = turns.filter((turn): turn is Extract<ChatTurn, { role: 'system' }> => turn.role === 'system').map((turn) => turn.text.trim()).filter(Boolean);
  const dialogue = turns.filter((turn) => turn.role !== 'system');
  const lastAnswer = dialogue.map((turn) => turn.role).lastIndexOf('assistant');
  return {
    ...(system.length && { instructions: system.join('\n\n') }),
    prefix: dialogue.slice(0, lastAnswer + 1),
    rest: dialogue.slice(lastAnswer + 1),
  };
}

/**
 * What identifies a conversation's state as a client holds it: the SHA-256 of its turns (system
 * turns left out: they travel with every request as its instructions), texts trimmed (clients
 * trim what they store), tool calls by id, name and arguments, images by their data URL.
 */
export function fingerprint(turns: readonly ChatTurn[]): string {
  const hash = createHash('sha256');
  for (const turn of turns) {
    if (turn.role === 'system') continue;
    const shape =
      turn.role === 'user'
        ? ['u', turn.text.trim(), turn.imageUrls.map((url) => createHash('sha256').update(url).digest('hex'))]
        : turn.role === 'assistant'
          ? ['a', turn.text.trim(), turn.toolCalls.map((call) => [call.id, call.name, call.arguments])]
          : ['t', turn.toolCallId, turn.text.trim()];
    hash.update(JSON.stringify(shape)).update('\n');
  }
  return hash.digest('hex');
}
