/** The public face of src/workdir: what other modules may import from it. */
export { WorkdirModule } from './workdir.module';
export { WorkdirService } from './workdir.service';
export type { Outcome } from './workdir.service';
export { normalisePath, MAX_PATH_CHARS } from './workdir-path';
export { countMatches } from './text-edit';
export { MAX_TASKS, MAX_TASK_TITLE_CHARS, MAX_WORKDIR_FILES, TASK_STATUSES } from './workdir.types';
export type { TaskItem, TaskStatus, WorkdirChanges, WorkdirFile, WorkdirFileInfo } from './workdir.types';
