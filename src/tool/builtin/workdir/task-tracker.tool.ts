import { Injectable } from '@nestjs/common';
import { MAX_TASK_TITLE_CHARS, MAX_TASKS, type TaskItem, TASK_STATUSES, WorkdirService } from '../../../workdir';
import { HelixTool, type ToolContext, type ToolDefinition, type ToolResult } from '../../tool.types';

const MARKS: Record<TaskItem['status'], string> = { todo: '[ ]', in_progress: '[~]', done: '[x]' };

/** The list as the model reads it back. */
export function describeTasks(tasks: readonly TaskItem[]): string {
  if (!tasks.length) return 'The task list is empty.';
  const done = tasks.filter((task) => task.status === 'done').length;
  return `${tasks.map((task) => `${MARKS[task.status]} ${task.id}. ${task.title} (${task.status})`).join('\n')}\n(${done} of ${tasks.length} done)`;
}

/**
 * `task_tracker`: the agent's to-do list for the conversation, viewed or replaced whole (one
 * call states the whole plan, so nothing is left half-updated). A change is announced as a
 * `tasks` run event, through the result's `tasks`.
 */
@Injectable()
@HelixTool()
export class TaskTrackerTool implements ToolDefinition {
  readonly name = 'task_tracker';
  readonly description =
    'Your to-do list for this conversation, for work of several steps. `view` shows it; `replace` sets the whole list ' +
    '(every task with its status; keep the ids of tasks that stay). Update it as you go.';
  readonly parameters = {
    type: 'object',
    properties: {
      action: { type: 'string', enum: ['view', 'replace'] },
      tasks: {
        type: 'array',
        maxItems: MAX_TASKS,
        items: {
          type: 'object',
          properties: {
            id: { type: 'string', minLength: 1, maxLength: 40 },
            title: { type: 'string', minLength: 1, maxLength: MAX_TASK_TITLE_CHARS },
            status: { type: 'string', enum: [...TASK_STATUSES] },
          },
          required: ['id', 'title', 'status'],
          additionalProperties: false,
        },
      },
    },
    required: ['action'],
    additionalProperties: false,
  };
  readonly risk = 'low';

  constructor(private readonly workdir: WorkdirService) {}

  async run(args: Record<string, unknown>, context: Pick<ToolContext, 'conversationId'>): Promise<ToolResult> {
    const current = await this.workdir.tasks(context.conversationId);
    if (args.action === 'view') return { ok: true, output: describeTasks(current) };
    if (!Array.isArray(args.tasks)) return { ok: false, error: '`replace` needs `tasks`: the whole new list (an empty array clears it).' };
    // the schema has checked each item's shape
    const tasks = (args.tasks as TaskItem[]).map(({ id, title, status }) => ({ id, title: title.trim(), status }));
    const ids = new Set(tasks.map((task) => task.id));
    if (ids.size !== tasks.length) return { ok: false, error: 'Task ids must be unique within the list.' };
    if (JSON.stringify(tasks) === JSON.stringify(current)) return { ok: true, output: `Unchanged.\n${describeTasks(tasks)}` };
    await this.workdir.setTasks(context.conversationId, tasks);
    return { ok: true, output: `Task list updated.\n${describeTasks(tasks)}`, tasks };
  }
}
