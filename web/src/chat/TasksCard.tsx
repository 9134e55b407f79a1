import { useI18n } from '../i18n/i18n';
import type { TaskItem } from '../run/run-state';

/** The agent's to-do list (task_tracker), as the run's latest `tasks` event has it. */
export function TasksCard({ tasks }: { tasks: TaskItem[] }) {
  const { t } = useI18n();
  const done = tasks.filter((task) => task.status === 'done').length;
  return (
    <div className="plan-card tasks-card">
      <h3>{t('tasks.title', { done, total: tasks.length })}</h3>
      <ul>
        {tasks.map((task) => (
          <li key={task.id} className={`plan-step ${task.status}`}>
            <input type="checkbox" checked={task.status === 'done'} readOnly aria-label={t(`tasks.status.${task.status}`)} /> {task.title}
            {task.status === 'in_progress' && <span className="plan-status"> {t('tasks.status.in_progress')}</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}
