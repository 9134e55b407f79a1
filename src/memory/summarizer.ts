import { Injectable } from '@nestjs/common';
import { ModelGateway } from '../model';
import type { ChatMessage, ModelRef, ModelResult, Usage } from '../model';
import { MESSAGE_OVERHEAD, TokenCounter, type TokenFamily } from './token-counter';
import { cutMiddle } from './window-fit';

export const SUMMARY_SYSTEM_PROMPT =
  'You condense conversations between a user and an AI assistant so that the assistant can continue them later. ' +
  'Keep every fact, name, number, decision, preference and open question that may still matter, what the user wants, ' +
  'and what tools returned that is still relevant. Drop greetings and repetition. Write plain prose or short bullet ' +
  "points in the conversation's language, with no preamble.";

/** The last message of the request: short on purpose (the transcript comes before it). */
export const SUMMARY_INSTRUCTION = 'Write the updated summary of the conversation above now.';

/** How deterministic the summary should be: low, it is a record, not a reply. */
const SUMMARY_TEMPERATURE = 0.2;
/** At most this many calls for one summary (a huge first overflow); older chunks beyond are skipped. */
const MAX_CHUNKS = 8;
/** The calls of one summary give up after this long (the run waits for it). */
const SUMMARY_TIMEOUT_MS = 120_000;

/**
 * Pays for the calls of a summary: the runtime holds them against the run's daily budget and
 * charges what they used. `hold` answers undefined when the budget leaves no room (no summary).
 */
export interface SummaryMeter {
  hold(estimatedPromptTokens: number, maxOutputTokens: number): Promise<{ settle(usage: Usage | undefined): Promise<void> } | undefined>;
}

export interface SummarizeRequest {
  model: ModelRef;
  fallbacks: ModelRef[];
  workspaceId: string;
  family: TokenFamily;
  /** the summary being extended, when there is one */
  previous?: string;
  /** the messages the summary must now also cover, in order */
  messages: ChatMessage[];
  /** the tokens one summarising call may send */
  inputBudget: number;
  /** the summary's length limit in tokens */
  maxTokens: number;
  /** who pays for the calls (absent: nobody is charged, e.g. a compaction asked for over REST) */
  meter?: SummaryMeter;
}

/**
 * Asks the model for a summary: the previous summary and the newly covered messages in, one
 * text out. A transcript too long for one call is summarised chunk by chunk, each call
 * extending the summary of the last; very long single messages are cut in the middle.
 */
@Injectable()
export class Summarizer {
  constructor(
    private readonly gateway: ModelGateway,
    private readonly counter: TokenCounter,
  ) {}

  async summarize(request: SummarizeRequest): Promise<string> {
    const fixed =
      this.counter.text(SUMMARY_SYSTEM_PROMPT, request.family) + this.counter.text(SUMMARY_INSTRUCTION, request.family) + 4 * MESSAGE_OVERHEAD;
    // the previous summary may grow to maxTokens: leave it room in every chunk
    const room = Math.max(64, request.inputBudget - fixed - request.maxTokens);
    const chunks = this.chunks(request.messages.map(transcriptLine), room, request.family);
    let summary = request.previous;
    for (const chunk of chunks.slice(-MAX_CHUNKS)) summary = await this.call(request, summary, chunk);
    if (!summary?.trim()) throw new Error('the model returned an empty summary');
    return summary.trim();
  }

  private async call(request: SummarizeRequest, previous: string | undefined, lines: string[]): Promise<string> {
    const transcript = `${previous ? `The summary so far:\n${previous}\n\n` : ''}Messages to add to it:\n\n${lines.join('\n\n')}`;
    const estimated = this.counter.text(SUMMARY_SYSTEM_PROMPT, request.family) + this.counter.text(transcript, request.family) + this.counter.text(SUMMARY_INSTRUCTION, request.family);
    const held = await request.meter?.hold(estimated, request.maxTokens);
    if (request.meter && !held) throw new Error('the daily budget leaves no room for a summary');
    let result: ModelResult;
    try {
      result = await this.gateway.complete(
        {
          model: request.model,
          fallbacks: request.fallbacks,
          workspaceId: request.workspaceId,
          messages: [
            { role: 'system', content: SUMMARY_SYSTEM_PROMPT },
            { role: 'user', content: transcript },
            { role: 'user', content: SUMMARY_INSTRUCTION },
          ],
          temperature: SUMMARY_TEMPERATURE,
          maxTokens: request.maxTokens,
        },
        AbortSignal.timeout(SUMMARY_TIMEOUT_MS),
      );
    } catch (error) {
      await held?.settle(undefined);
      throw error;
    }
    await held?.settle(result.usage);
    const text = result.text.trim();
    if (!text) throw new Error(`the model returned an empty summary (finish reason ${result.finishReason})`);
    return text;
  }

  /** Lines packed into chunks of at most `room` tokens; a line longer than half of it is cut. */
  private chunks(lines: string[], room: number, family: TokenFamily): string[][] {
    const chunks: string[][] = [[]];
    let used = 0;
    for (const whole of lines) {
      let line = whole;
      let tokens = this.counter.text(line, family);
      const most = Math.floor(room / 2);
      if (tokens > most) {
        line = cutMiddle(line, Math.floor((line.length * most) / tokens));
        tokens = this.counter.text(line, family);
      }
      if (used + tokens > room && chunks[chunks.length - 1].length) {
        chunks.push([]);
        used = 0;
      }
      chunks[chunks.length - 1].push(line);
      used += tokens;
    }
    return chunks.filter((chunk) => chunk.length);
  }
}

/** One message as the summariser reads it. */
function transcriptLine(message: ChatMessage): string {
  switch (message.role) {
    case 'assistant': {
      const calls = (message.toolCalls ?? []).map((call) => `[calls ${call.name} ${call.arguments}]`).join(' ');
      return `Assistant: ${[message.content, calls].filter(Boolean).join(' ')}`;
    }
    case 'tool':
      return `Tool result: ${message.content}`;
    case 'system':
      return `System: ${message.content}`;
    case 'user':
      return `User: ${message.content}`;
  }
}
