import { Fragment } from 'react';
import type { Message } from '../api/types';
import type { RunState, ShowSources } from '../run/run-state';
import { HistoryMessage } from './HistoryMessage';
import { RunView } from './RunView';

interface MessageListProps {
  messages: Message[];
  runs: Map<string, RunState>;
  onShowSources: ShowSources;
  onFork(fromMessageId: string): void;
  onSettle(runId: string): void;
}

/**
 * The history in order. A run this page follows is drawn from its events (the whole run, live),
 * right after the message that started it; its stored messages would repeat it and are left out.
 */
export function MessageList({ messages, runs, onShowSources, onFork, onSettle }: MessageListProps) {
  const byCall = new Map<string, { name: string; arguments: string }>();
  for (const message of messages) {
    const parts = message.parts as { toolCalls?: { id: string; name: string; arguments: string }[] };
    for (const call of parts.toolCalls ?? []) byCall.set(call.id, call);
  }
  const followed = (m: Message) => m.runId !== null && runs.has(m.runId);
  return (
    <ol className="messages">
      {messages.map((message) =>
        message.role === 'user' ? (
          <Fragment key={message.id}>
            <HistoryMessage message={message} call={undefined} onShowSources={onShowSources} onFork={onFork} />
            {followed(message) && <RunView run={runs.get(message.runId!)!} onShowSources={onShowSources} onSettle={onSettle} />}
          </Fragment>
        ) : followed(message) ? null : (
          <HistoryMessage key={message.id} message={message} call={message.toolCallId ? byCall.get(message.toolCallId) : undefined} onShowSources={onShowSources} onFork={onFork} />
        ),
      )}
    </ol>
  );
}
