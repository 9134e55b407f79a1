import { useEffect, useState } from 'react';
import { api, ok } from '../api/client';
import { eventsOf } from '../api/events';
import { useI18n } from '../i18n/i18n';
import { applyEvent, emptyRun, type RunState } from '../run/run-state';
import { ErrorNote } from '../ui/ErrorNote';
import { loadSpans, type SpanNode } from './spans';
import { SidePanel } from '../ui/SidePanel';

type Tab = 'events' | 'context' | 'spans' | 'requests';
const TABS: Tab[] = ['events', 'context', 'spans', 'requests'];
const PAGE = 1000;

/** A run read whole from its log (the JSON page of the events route), for a run not followed live. */
async function readRun(runId: string): Promise<RunState> {
  let state = emptyRun(runId);
  for (;;) {
    const page = await ok(api.GET('/api/v1/runs/{id}/events', { params: { path: { id: runId }, query: { after: state.lastSeq, limit: PAGE } }, headers: { Accept: 'application/json' } }));
    const events = eventsOf(page);
    for (const event of events) state = applyEvent(state, event);
    if (events.length < PAGE) return state;
  }
}

/** What the conversation's latest run did: every event, its context window, spans and model requests. */
export function DebugPanel({ conversationId, live, onClose }: { conversationId: string | null; live: RunState | undefined; onClose(): void }) {
  const { t } = useI18n();
  const [tab, setTab] = useState<Tab>('events');
  const [stored, setStored] = useState<RunState | null>(null);
  const [spans, setSpans] = useState<SpanNode[] | 'forbidden' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const run = live ?? stored;

  useEffect(() => {
    if (live || !conversationId) return;
    api
      .GET('/api/v1/conversations/{id}/runs/latest', { params: { path: { id: conversationId } } })
      .then(async (latest) => latest.data && setStored(await readRun(latest.data.id)))
      .catch(setError);
  }, [conversationId, live]);

  const runId = run?.runId;
  const finished = Boolean(run?.finalState);
  useEffect(() => {
    if (tab !== 'spans' || !runId) return;
    loadSpans(runId).then(setSpans).catch(setError);
  }, [tab, runId, finished]);

  return (
    <SidePanel className="debug-panel" title={t('debug.title')} closeLabel={t('debug.close')} onClose={onClose}>
      <div role="tablist" className="tabs">
        {TABS.map((name) => (
          <button key={name} role="tab" aria-selected={tab === name} onClick={() => setTab(name)}>
            {t(`debug.${name}`)}
          </button>
        ))}
      </div>
      <ErrorNote error={error} />
      {!run ? <p className="muted">{t('debug.noRun')}</p> : <DebugTab tab={tab} run={run} spans={spans} />}
    </SidePanel>
  );
}

function DebugTab({ tab, run, spans }: { tab: Tab; run: RunState; spans: SpanNode[] | 'forbidden' | null }) {
  const { t } = useI18n();
  if (tab === 'events')
    return (
      <ol className="event-log" data-testid="debug-events">
        {run.events.map((event) => (
          <li key={event.seq}>
            <span className="seq">{event.seq}</span> <code>{event.type}</code>
            <pre>{JSON.stringify(event.data)}</pre>
          </li>
        ))}
      </ol>
    );
  if (tab === 'context') {
    const c = run.context;
    if (!c) return <p className="muted">{t('debug.noContext')}</p>;
    return (
      <dl className="facts">
        <dt>{t('composer.model')}</dt>
        <dd>{c.model}</dd>
        <dt>{t('debug.window')}</dt>
        <dd>{c.contextWindow}</dd>
        <dt>{t('debug.estimated')}</dt>
        <dd>{c.estimatedTokens}</dd>
        <dt>{t('debug.history')}</dt>
        <dd>{c.historyMessages}</dd>
        <dt>{t('debug.summarized')}</dt>
        <dd>{c.summarized ? t('common.yes') : t('common.no')}</dd>
        <dt>{t('debug.retrieved')}</dt>
        <dd>{c.retrieved}</dd>
      </dl>
    );
  }
  if (tab === 'spans') {
    if (spans === 'forbidden') return <p className="muted">{t('debug.spansNeedAdmin')}</p>;
    if (spans === null) return <p className="muted">{t('common.loading')}</p>;
    if (!spans.length) return <p className="muted">{t('debug.noSpans')}</p>;
    return <SpanTree spans={spans} />;
  }
  const requests = run.events.filter((e) => e.type === 'debug');
  if (!requests.length) return <p className="muted">{t('debug.noRequests')}</p>;
  return (
    <ol className="event-log">
      {requests.map((event) => (
        <li key={event.seq}>
          <code>{event.type === 'debug' ? event.data.kind : ''}</code>
          <pre>{JSON.stringify(event.data, null, 2)}</pre>
        </li>
      ))}
    </ol>
  );
}

function SpanTree({ spans }: { spans: SpanNode[] }) {
  return (
    <ul className="span-tree">
      {spans.map((span, i) => {
        const tokens = span.attributes && typeof span.attributes.totalTokens === 'number' ? ` · ${span.attributes.totalTokens} tok` : '';
        return (
          <li key={i}>
            <code>{span.kind}</code> {span.name} <span className="muted small">{span.durationMs ?? '…'} ms{tokens} · {span.status}</span>
            {span.children?.length ? <SpanTree spans={span.children} /> : null}
          </li>
        );
      })}
    </ul>
  );
}
