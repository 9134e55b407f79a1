import { type Language, openAiErrorBody, say, translate } from '../common';
import type { FrameFormat } from '../runtime';

/**
 * OpenAI's event streams: no `heartbeat` event (OpenAI's clients read every `data:` as a
 * chunk), SSE comments to keep the connection alive instead; a stream that cannot go on ends
 * with an `error` frame in OpenAI's shape.
 */
export const OPENAI_STREAM: FrameFormat = {
  opening: ': helix\n\n',
  heartbeat: ': keep-alive\n\n',
  failed: (language: Language) => `data: ${JSON.stringify(openAiErrorBody(500, translate(say('run.stream_failed'), language), { code: 'stream_failed' }))}\n\n`,
};
