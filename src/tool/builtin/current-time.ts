import type { Tool } from '../tool.types';

export const currentTime: Tool = {
  spec: {
    name: 'current_time',
    description: 'The current date and time (ISO 8601, UTC, or in the given IANA time zone).',
    parameters: {
      type: 'object',
      properties: { timezone: { type: 'string', description: 'IANA time zone, e.g. Europe/Paris' } },
      additionalProperties: false,
    },
  },
  risk: 'low',
  run: async (args) => {
    const now = new Date();
    if (typeof args.timezone !== 'string' || !args.timezone) return { ok: true, output: now.toISOString() };
    try {
      const local = now.toLocaleString('sv-SE', { timeZone: args.timezone }).replace(' ', 'T');
      return { ok: true, output: `${local} (${args.timezone})` };
    } catch {
      return { ok: false, error: `Unknown time zone "${args.timezone}"` };
    }
  },
};
