import { normalisePath, type WorkdirChanges } from '../../../workdir';

/** Where the working directory is mounted inside the shell's file system (and its cwd and $HOME). */
export const SHELL_ROOT = '/workspace';

/** `text` cut to `limit` characters with a marker saying how much was left out. */
export function clip(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n[… truncated: ${text.length - limit} more characters]`;
}

export interface SandboxFile {
  path: string;
  content: Uint8Array;
}

/** What a command changed: writes and deletes to store, and files left out (with why). */
export interface ShellChanges extends WorkdirChanges {
  skipped: string[];
}

/**
 * The difference between the files loaded into the sandbox and those under SHELL_ROOT after the
 * command (absolute sandbox paths). Files outside SHELL_ROOT (`/tmp`) are scratch and dropped;
 * a path the working directory cannot hold is skipped and reported, never stored.
 */
export function changesOf(before: readonly SandboxFile[], after: readonly SandboxFile[]): ShellChanges {
  const old = new Map(before.map((file) => [file.path, Buffer.from(file.content)]));
  const changes: ShellChanges = { writes: [], deletes: [], skipped: [] };
  const seen = new Set<string>();
  for (const file of after) {
    if (!file.path.startsWith(`${SHELL_ROOT}/`)) continue;
    const checked = normalisePath(file.path.slice(SHELL_ROOT.length + 1));
    if (!checked.ok) {
      changes.skipped.push(checked.error);
      continue;
    }
    seen.add(checked.path);
    const content = Buffer.from(file.content);
    const previous = old.get(checked.path);
    if (!previous || !previous.equals(content)) changes.writes.push({ path: checked.path, content });
  }
  for (const path of old.keys()) if (!seen.has(path)) changes.deletes.push(path);
  return changes;
}

/** One line per kind of change, for the model. */
export function describeChanges(before: readonly SandboxFile[], changes: ShellChanges): string {
  const existed = new Set(before.map((file) => file.path));
  const created = changes.writes.filter((write) => !existed.has(write.path)).map((write) => write.path);
  const modified = changes.writes.filter((write) => existed.has(write.path)).map((write) => write.path);
  const parts = [
    created.length ? `created ${created.join(', ')}` : '',
    modified.length ? `modified ${modified.join(', ')}` : '',
    changes.deletes.length ? `deleted ${changes.deletes.join(', ')}` : '',
  ].filter(Boolean);
  const skipped = changes.skipped.length ? `\nNot saved: ${changes.skipped.join(' ')}` : '';
  return `${parts.length ? `Files: ${parts.join('; ')}.` : 'No file changed.'}${skipped}`;
}
