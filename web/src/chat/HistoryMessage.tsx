import type { Message } from '../api/types';
import { useI18n } from '../i18n/i18n';
import type { Citation, KnowledgeGraph, ShowSources } from '../run/run-state';
import { AnswerText } from './AnswerText';
import { storedAttachments } from './attachments';
import { MessageAttachments } from './MessageAttachments';
import { ToolCard } from './ToolCard';

interface StoredParts {
  kind?: 'user' | 'answer' | 'partial' | 'failure' | 'tool_result';
  reasoning?: string;
  sources?: Citation[];
  graph?: KnowledgeGraph;
  interrupted?: boolean;
  ok?: boolean;
  name?: string;
}

/** A stored message: what the user wrote, an answer with its sources, a tool result, a failure. */
export function HistoryMessage({
  message,
  call,
  onShowSources,
  onFork,
}: {
  message: Message;
  call: { name: string; arguments: string } | undefined;
  onShowSources: ShowSources;
  onFork(fromMessageId: string): void;
}) {
  const { t } = useI18n();
  const parts = message.parts as StoredParts;
  if (message.role === 'user')
    return (
      <li className="message user" data-message-id={message.id}>
        <span className="visually-hidden">{t('chat.you')}</span>
        <div className="bubble">{message.content}</div>
        <MessageAttachments attachments={storedAttachments(message.parts)} />
      </li>
    );
  if (message.role === 'tool')
    return (
      <li className="message tool">
        <ToolCard name={parts.name ?? call?.name ?? 'tool'} args={call ? parseArgs(call.arguments) : undefined} status={parts.ok === false ? 'failed' : 'ok'} output={message.content} />
      </li>
    );
  if (message.role !== 'assistant' || (!message.content && !parts.reasoning)) return null;
  return (
    <li className={`message assistant ${parts.kind ?? ''}`} data-message-id={message.id}>
      <span className="visually-hidden">{t('chat.assistant')}</span>
      {parts.kind === 'failure' ? (
        <p role="alert" className="error-text">
          {message.content}
        </p>
      ) : (
        <AnswerText text={message.content} reasoning={parts.reasoning ?? ''} sources={parts.sources ?? []} graph={parts.graph} onShowSources={onShowSources} />
      )}
      {parts.kind === 'partial' && <p className="muted small">{parts.interrupted ? t('chat.interrupted') : t('chat.stopped')}</p>}
      <div className="message-actions">
        <button className="link small" onClick={() => onFork(message.id)}>
          {t('conv.forkHere')}
        </button>
      </div>
    </li>
  );
}

function parseArgs(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}
