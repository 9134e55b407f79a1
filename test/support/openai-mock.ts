import type { MockRequestBody } from './mock-llm/mock-llm';

/** A user message that makes the mock LLM call these tools. */
export const mockCall = (...calls: { name: string; args: object; id?: string }[]) =>
  `MOCK:${JSON.stringify({ toolCalls: calls.map(({ name, args, id }) => ({ name, arguments: JSON.stringify(args), ...(id && { id }) })) })}`;

/** The system message a model request began with ('' without one). */
export const systemOf = (body: MockRequestBody | undefined) => {
  const first = body?.messages?.[0];
  return first?.role === 'system' && typeof first.content === 'string' ? first.content : '';
};

/** The last model request of a run (an auto-title request of a new conversation may come after it). */
export const lastRunRequest = (requests: MockRequestBody[]) => [...requests].reverse().find((body) => !systemOf(body).startsWith('You name conversations'));
