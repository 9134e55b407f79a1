import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config';
import type { UnitCondition, UnitOfWork } from '../database';
import { lineRange, replaceUnique } from './text-edit';
import { normalisePath } from './workdir-path';
import { WorkdirRepository } from './workdir.repository';
import type { TaskItem, WorkdirChanges, WorkdirFile, WorkdirFileInfo, WorkdirRefusal } from './workdir.types';

/** An outcome the model reads: a value, or an error message that says what to do instead. */
export type Outcome<T> = ({ ok: true } & T) | { ok: false; error: string };

/** The text of a file, or why it has none (not UTF-8). */
function textOf(file: WorkdirFile): Outcome<{ text: string }> {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(file.content);
    if (!text.includes('\u0000')) return { ok: true, text };
  } catch {
    // not UTF-8: reported below
  }
  return { ok: false, error: `${file.path} is a binary file (${file.size} bytes): it cannot be read or edited as text.` };
}

/**
 * A conversation's working directory: files and the agent's to-do list, stored in the database.
 * The tools reach them only through this service (paths are normalised and quota checked here);
 * callers have already checked that the conversation is the caller's.
 */
@Injectable()
export class WorkdirService {
  readonly quotaBytes: number;

  constructor(
    private readonly files: WorkdirRepository,
    @Inject(AppConfig) config: Pick<AppConfig, 'HELIX_WORKSPACE_QUOTA_BYTES'>,
  ) {
    this.quotaBytes = config.HELIX_WORKSPACE_QUOTA_BYTES;
  }

  list(conversationId: string): Promise<WorkdirFileInfo[]> {
    return this.files.list(conversationId);
  }

  /** Every file with its bytes (what the shell's file system starts from). */
  snapshot(conversationId: string): Promise<WorkdirFile[]> {
    return this.files.readAll(conversationId);
  }

  /** The file at `rawPath`: undefined for an invalid path or no such file (the REST download). */
  async find(conversationId: string, rawPath: string): Promise<WorkdirFile | undefined> {
    const checked = normalisePath(rawPath);
    return checked.ok ? this.files.read(conversationId, checked.path) : undefined;
  }

  async read(conversationId: string, rawPath: string, range: { from?: number; to?: number } = {}): Promise<Outcome<{ path: string; text: string; totalLines: number }>> {
    const file = await this.existing(conversationId, rawPath);
    if (!file.ok) return file;
    const text = textOf(file.file);
    if (!text.ok) return text;
    if (range.from === undefined && range.to === undefined) return { ok: true, path: file.file.path, text: text.text, totalLines: lineRange(text.text).totalLines };
    if (range.to !== undefined && range.from !== undefined && range.to < range.from) return { ok: false, error: '`endLine` is before `startLine`.' };
    return { ok: true, path: file.file.path, ...lineRange(text.text, range.from ?? 1, range.to) };
  }

  /** Creates or overwrites a file; `created` says which. */
  async write(conversationId: string, rawPath: string, content: string): Promise<Outcome<{ path: string; size: number; created: boolean }>> {
    const checked = normalisePath(rawPath);
    if (!checked.ok) return checked;
    const existed = await this.files.exists(conversationId, checked.path);
    const bytes = Buffer.from(content, 'utf8');
    const applied = await this.files.apply(conversationId, { writes: [{ path: checked.path, content: bytes }], deletes: [] }, this.quotaBytes);
    if (!applied.ok) return { ok: false, error: this.refusal(applied) };
    return { ok: true, path: checked.path, size: bytes.length, created: !existed };
  }

  /** Replaces the one exact occurrence of `oldText` (an error says how many there are otherwise). */
  async edit(conversationId: string, rawPath: string, oldText: string, newText: string): Promise<Outcome<{ path: string; size: number }>> {
    const file = await this.existing(conversationId, rawPath);
    if (!file.ok) return file;
    const text = textOf(file.file);
    if (!text.ok) return text;
    const edited = replaceUnique(text.text, file.file.path, oldText, newText);
    if (!edited.ok) return edited;
    const bytes = Buffer.from(edited.text, 'utf8');
    const applied = await this.files.apply(conversationId, { writes: [{ path: file.file.path, content: bytes }], deletes: [] }, this.quotaBytes);
    if (!applied.ok) return { ok: false, error: this.refusal(applied) };
    return { ok: true, path: file.file.path, size: bytes.length };
  }

  /** Applies what a shell command changed, all or nothing; paths are already normal (the shell's walk). */
  async apply(conversationId: string, changes: WorkdirChanges): Promise<Outcome<{ usedBytes: number }>> {
    const applied = await this.files.apply(conversationId, changes, this.quotaBytes);
    return applied.ok ? applied : { ok: false, error: this.refusal(applied) };
  }

  tasks(conversationId: string): Promise<TaskItem[]> {
    return this.files.tasks(conversationId);
  }

  setTasks(conversationId: string, items: readonly TaskItem[]): Promise<void> {
    return this.files.setTasks(conversationId, items);
  }

  /** A fork's copy of the files and the to-do list, in the fork's unit of work. */
  copyIn(unit: UnitOfWork, from: string, to: string, onlyIf?: UnitCondition): void {
    this.files.copyIn(unit, from, to, onlyIf);
  }

  /** What the model reads when a change is refused. */
  refusal(refused: WorkdirRefusal): string {
    if (refused.reason === 'too_many_files') return `The working directory may hold at most ${refused.limit} files: delete some first.`;
    return (
      `Quota exceeded: the working directory of this conversation may hold ${refused.quotaBytes} bytes; ` +
      `the other files use ${refused.usedBytes} and this change needs ${refused.neededBytes}. Nothing was written. Delete or shorten files first.`
    );
  }

  private async existing(conversationId: string, rawPath: string): Promise<Outcome<{ file: WorkdirFile }>> {
    const checked = normalisePath(rawPath);
    if (!checked.ok) return checked;
    const file = await this.files.read(conversationId, checked.path);
    if (file) return { ok: true, file };
    const names = (await this.files.list(conversationId)).map((info) => info.path);
    const known = names.length ? `Files: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''}.` : 'The working directory is empty.';
    return { ok: false, error: `No file ${checked.path} in the working directory. ${known}` };
  }
}
