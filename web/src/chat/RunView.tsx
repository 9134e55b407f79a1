import { useI18n } from '../i18n/i18n';
import type { RunState, ShowSources } from '../run/run-state';
import { AnswerText } from './AnswerText';
import { ApprovalDialog } from './ApprovalDialog';
import { AskUserCard } from './AskUserCard';
import { PlanCard } from './PlanCard';
import { TasksCard } from './TasksCard';
import { ToolCard } from './ToolCard';

/** A run as its events tell it: text as it streams, tool cards, the plan, questions, the end. */
export function RunView({ run, onShowSources, onSettle }: { run: RunState; onShowSources: ShowSources; onSettle(runId: string): void }) {
  const { t } = useI18n();
  const live = !run.finalState;
  const lastText = [...run.blocks].reverse().find((b) => b.kind === 'text');
  return (
    <li className="message assistant run" data-run-id={run.runId} data-state={run.finalState ?? 'live'}>
      <span className="visually-hidden">{t('chat.assistant')}</span>
      {run.blocks.map((block) => {
        switch (block.kind) {
          case 'text':
            return (
              <AnswerText
                key={block.key}
                text={block.text}
                reasoning={block.reasoning}
                sources={block === lastText ? run.sources : []}
                graph={block === lastText ? (run.graph ?? undefined) : undefined}
                onShowSources={onShowSources}
                streaming={live && block === lastText}
              />
            );
          case 'tool':
            return <ToolCard key={block.key} name={block.name} args={block.args} status={block.status} output={block.output} durationMs={block.durationMs} subrun={block.subrun} />;
          case 'plan':
            return <PlanCard key={block.key} runId={run.runId} steps={block.steps} open={run.waiting?.kind === 'plan'} onDecided={() => onSettle(run.runId)} />;
          case 'tasks':
            return <TasksCard key={block.key} tasks={block.tasks} />;
          case 'ask':
            return <AskUserCard key={block.key} runId={run.runId} question={block.question} options={block.options} answered={block.answered} onAnswered={() => onSettle(run.runId)} />;
          case 'error':
            return (
              <p key={block.key} role="alert" className="error-text" data-error-code={block.code}>
                {block.message}
              </p>
            );
        }
      })}
      {live && run.status && run.waiting === null && (
        <p className="status-line" role="status">
          <span className="spinner" aria-hidden="true" />
          {run.status.text}
        </p>
      )}
      {run.tokenWarning && (
        <p className="warning small" role="note">
          {t('run.tokenWarning', { percentage: run.tokenWarning.percentage, tokens: run.tokenWarning.estimatedTokens, limit: run.tokenWarning.limit })}
        </p>
      )}
      {run.finalState === 'CANCELLED' && <p className="muted small">{t('run.cancelled')}</p>}
      {run.usage.totalTokens > 0 && (
        <p className="usage muted small">
          {t('run.usage', { prompt: run.usage.promptTokens, completion: run.usage.completionTokens })}
          {run.usage.cost > 0 && ` · ${t('run.cost', { cost: run.usage.cost.toFixed(4) })}`}
        </p>
      )}
      {run.waiting?.kind === 'approval' && <ApprovalDialog runId={run.runId} request={run.waiting} onDecided={() => onSettle(run.runId)} />}
    </li>
  );
}
