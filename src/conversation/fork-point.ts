import { NotFoundException } from '@nestjs/common';
import type { MessageRecord } from './conversation.records';
import { say } from '../common';

/**
 * How many messages of `history` (one conversation's, in seq order) a fork copies: up to and
 * including `fromMessageId`, or all of them.
 *
 * A tool call is never separated from its result: when the cut falls after an assistant message
 * with tool calls but before one of their results (on that message, or among its results), it
 * moves forward to include them, so the fork's history is valid for the model. Calls whose
 * result was never stored (a run cancelled while waiting for an approval, or still running) are
 * copied as they are, as the source conversation holds them.
 *
 * @throws NotFoundException if `fromMessageId` is not a message of this history
 */
export function forkLength(history: MessageRecord[], fromMessageId?: string): number {
  let end = history.length;
  if (fromMessageId !== undefined) {
    const index = history.findIndex((message) => message.id === fromMessageId);
    if (index < 0) throw new NotFoundException(say('message.not_found', { id: fromMessageId }));
    end = index + 1;
  }
  // a result answers the latest call with its id before it: ids are only unique within a run
  // (some providers number calls from 0 in every answer), so a later run may reuse one
  const latestCall = new Map<string, number>();
  const resultOf = new Map<string, number>();
  history.forEach((message, i) => {
    const parts = message.parts;
    if (parts.kind === 'answer') for (const call of parts.toolCalls ?? []) latestCall.set(call.id, i);
    if (parts.kind === 'tool_result' && message.toolCallId) {
      const callAt = latestCall.get(message.toolCallId);
      if (callAt !== undefined) resultOf.set(`${callAt}:${message.toolCallId}`, i);
    }
  });
  // `end` may grow while scanning: the messages it takes in are checked in turn
  for (let i = 0; i < end; i++) {
    const parts = history[i].parts;
    if (parts.kind !== 'answer') continue;
    for (const call of parts.toolCalls ?? []) {
      const at = resultOf.get(`${i}:${call.id}`);
      if (at !== undefined && at >= end) end = at + 1;
    }
  }
  return end;
}

/** The fork's title: the source's with a marker, within the 500 characters a title may have. */
export function forkTitle(title: string): string {
  const suffix = ' (fork)';
  return `${Array.from(title).slice(0, 500 - suffix.length).join('')}${suffix}`;
}
