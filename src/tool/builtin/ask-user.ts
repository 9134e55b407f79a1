import { Injectable } from '@nestjs/common';
import { isRecord } from '../../common';
import { HelixTool, type ToolDefinition, type ToolResult } from '../tool.types';

/** A choice an `ask_user` question offers (POST /runs/:id/reply `{optionId}` picks one). */
export interface AskOption {
  id: string;
  label: string;
}

export const MAX_ASK_OPTIONS = 10;
export const MAX_OPTION_LABEL = 200;
export const OPTION_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** What the model asked: the question and the options it offers, or why the call is malformed. */
export type AskRequest = { ok: true; question: string; options?: AskOption[] } | { ok: false; error: string };

/**
 * The arguments of an `ask_user` call, checked here rather than only by the JSON schema: the
 * runtime answers this tool itself, and option ids must be unique for a reply to name one.
 */
export function readAskRequest(args: unknown): AskRequest {
  const question = isRecord(args) && typeof args.question === 'string' ? args.question.trim() : '';
  if (!question) return { ok: false, error: 'ask_user needs a non-empty `question`.' };
  if (!isRecord(args) || args.options === undefined) return { ok: true, question };
  const raw = args.options;
  if (!Array.isArray(raw) || raw.length < 2 || raw.length > MAX_ASK_OPTIONS) {
    return { ok: false, error: `ask_user \`options\` must be a list of 2 to ${MAX_ASK_OPTIONS} {id, label} choices.` };
  }
  const options: AskOption[] = [];
  for (const option of raw) {
    const id = isRecord(option) && typeof option.id === 'string' ? option.id : '';
    const label = isRecord(option) && typeof option.label === 'string' ? option.label.trim() : '';
    if (!OPTION_ID.test(id)) return { ok: false, error: `ask_user option ids are 1 to 64 letters, digits, \`_\`, \`.\` or \`-\` (got ${JSON.stringify(id)}).` };
    if (!label || label.length > MAX_OPTION_LABEL) return { ok: false, error: `ask_user option ${id} needs a label of 1 to ${MAX_OPTION_LABEL} characters.` };
    if (options.some((seen) => seen.id === id)) return { ok: false, error: `ask_user option ids must be unique (${id} is repeated).` };
    options.push({ id, label });
  }
  return { ok: true, question, options };
}

/** Handled by the runtime: the run moves to AWAIT_USER and the reply becomes the tool result. */
@Injectable()
@HelixTool()
export class AskUserTool implements ToolDefinition {
  readonly name = 'ask_user';
  readonly description =
    'Ask the user a question and wait for their answer. Offer `options` when the answer is one of a few choices; the user may still answer in their own words.';
  readonly parameters = {
    type: 'object',
    properties: {
      question: { type: 'string', minLength: 1 },
      options: {
        type: 'array',
        minItems: 2,
        maxItems: MAX_ASK_OPTIONS,
        description: 'the choices offered; the reply is the chosen label',
        items: {
          type: 'object',
          properties: { id: { type: 'string', pattern: OPTION_ID.source }, label: { type: 'string', minLength: 1, maxLength: MAX_OPTION_LABEL } },
          required: ['id', 'label'],
          additionalProperties: false,
        },
      },
    },
    required: ['question'],
    additionalProperties: false,
  };
  readonly risk = 'low';
  readonly control = 'ask_user';

  async run(): Promise<ToolResult> {
    return { ok: false, error: 'ask_user is answered by the user, not run' };
  }
}
