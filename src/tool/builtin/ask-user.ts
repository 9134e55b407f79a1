import type { Tool } from '../tool.types';

/** Handled by the runtime: the run moves to AWAIT_USER and the reply becomes the tool result. */
export const askUser: Tool = {
  spec: {
    name: 'ask_user',
    description: 'Ask the user a question and wait for their answer.',
    parameters: {
      type: 'object',
      properties: { question: { type: 'string' } },
      required: ['question'],
      additionalProperties: false,
    },
  },
  risk: 'low',
  control: 'ask_user',
  run: async () => ({ ok: false, error: 'ask_user is answered by the user, not run' }),
};
