/** What the working directory holds, as the service hands it out (rows never leave the repository). */

/** A file without its bytes (listings). */
export interface WorkdirFileInfo {
  path: string;
  size: number;
  updatedAt: Date;
}

export interface WorkdirFile extends WorkdirFileInfo {
  content: Buffer;
}

/** A set of changes applied at once (a shell command's effect): all of them or none. */
export interface WorkdirChanges {
  writes: { path: string; content: Buffer }[];
  deletes: string[];
}

export const TASK_STATUSES = ['todo', 'in_progress', 'done'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** An item of the agent's to-do list (task_tracker; the `tasks` run event carries the list). */
export interface TaskItem {
  id: string;
  title: string;
  status: TaskStatus;
}

/** How many files one conversation may hold, whatever their size (listings and the shell load them all). */
export const MAX_WORKDIR_FILES = 1000;
/** How many items the to-do list may have, and how long a title may be. */
export const MAX_TASKS = 100;
export const MAX_TASK_TITLE_CHARS = 500;

/** Why a change was refused; the tools turn these into the messages the model reads. */
export type WorkdirRefusal =
  | { reason: 'quota'; quotaBytes: number; usedBytes: number; neededBytes: number }
  | { reason: 'too_many_files'; limit: number };

export type ApplyOutcome = { ok: true; usedBytes: number } | ({ ok: false } & WorkdirRefusal);
