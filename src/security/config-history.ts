import { BadRequestException, Injectable, NotFoundException } from '@nestjs/common';
import { SqlClient, type Sql } from '../database';
import { AuditRepository, type NewAuditEntry } from './audit.repository';
import { actorOf, type AuthContext } from './auth-context';
import { type ConfigVersionRecord, ConfigVersionRepository } from './config-version.repository';

/** What one admin mutation changed: `after` is the new content (null when deleted). */
export interface ConfigChange {
  /** null: instance-wide configuration (global model configs) */
  workspaceId: string | null;
  /** the configuration's history key (configKey()) */
  key: string;
  /** the mutation, e.g. `upsertModelConfig` */
  action: string;
  before: unknown;
  after: unknown;
}

/** An audit row as its author describes it (the actor is added from the auth context). */
export type AuditEntry = Omit<NewAuditEntry, 'actor'>;

/** Restores `content` (a stored version; null: the configuration did not exist) as the caller. */
export type RollbackHandler = (auth: AuthContext, workspaceId: string | null, key: string, content: unknown) => Promise<void>;

/**
 * History keys: `settings` (a workspace's settings), `model-config:<provider>/<modelId>`,
 * `tool-policy:<tool>` and `tool-policy:<tool>@<conversationId>`, `prompt:<name>`. A key without
 * a kind is a prompt's name, so `updatePrompt(key: "system")` and `configVersions(key: "system")`
 * name the same history.
 */
export function configKey(key: string): string {
  const trimmed = key.trim();
  if (!trimmed || trimmed.length > 300) throw new BadRequestException('key must be 1 to 300 characters');
  return trimmed.includes(':') || trimmed === 'settings' ? trimmed : `prompt:${trimmed}`;
}

const kindOf = (key: string) => (key.includes(':') ? key.slice(0, key.indexOf(':')) : key);


/**
 * Configuration history and the audit log. Every admin mutation of configuration goes through
 * `change`: the owning module's writes, the new version and the audit row commit together or
 * not at all. `rollback` restores an old version through the owning module's handler, which
 * records it as a new version (history is never rewritten).
 */
@Injectable()
export class ConfigHistory {
  private readonly handlers = new Map<string, RollbackHandler>();
  private readonly committed: ((target: string) => void)[] = [];

  constructor(
    private readonly sql: SqlClient,
    private readonly versions: ConfigVersionRepository,
    private readonly audit: AuditRepository,
  ) {}

  /** The module owning a kind of configuration (`settings`, `model-config`, …) restores it. */
  onRollback(kind: string, handler: RollbackHandler): void {
    this.handlers.set(kind, handler);
  }

  /**
   * Called with the target (`secret:<name>`, a history key, …) of every change once it has
   * committed: caches of what changed (e.g. revealed provider keys) are dropped there.
   */
  afterCommit(listener: (target: string) => void): void {
    this.committed.push(listener);
  }

  /** Runs `write` in a transaction, then records its version and audit row in the same one. */
  async change<T>(auth: AuthContext, write: (tx: Sql) => Promise<{ result: T; change: ConfigChange }>): Promise<T> {
    return this.audited(auth, async (tx) => {
      const { result, change } = await write(tx);
      await this.versions.append(tx, change.workspaceId, change.key, change.after, actorOf(auth));
      return { result, entry: { ...change, target: change.key } };
    });
  }

  /** Like `change`, for an action that is audited but not versioned configuration (API keys, secrets). */
  async audited<T>(auth: AuthContext, write: (tx: Sql) => Promise<{ result: T; entry: AuditEntry }>): Promise<T> {
    let target = '';
    const result = await this.sql.$transaction(async (tx) => {
      const { result, entry } = await write(tx);
      await this.audit.insert({ ...entry, actor: actorOf(auth) }, tx);
      target = entry.target;
      return result;
    });
    this.notify(target);
    return result;
  }

  /** Records an audited action that wrote nothing itself (e.g. a run cancelled through the runtime). */
  async record(auth: AuthContext, entry: AuditEntry): Promise<void> {
    await this.audit.insert({ ...entry, actor: actorOf(auth) });
  }

  private notify(target: string): void {
    for (const listener of this.committed) listener(target);
  }

  async history(workspaceId: string | null, key: string): Promise<ConfigVersionRecord[]> {
    return this.versions.list(workspaceId, configKey(key));
  }

  /** Restores version `version` of `key` (404 when there is no such version). */
  async rollback(auth: AuthContext, workspaceId: string | null, key: string, version: number): Promise<void> {
    const normalized = configKey(key);
    const handler = this.handlers.get(kindOf(normalized));
    if (!handler) throw new BadRequestException(`key names no kind of configuration that can be rolled back: ${key}`);
    const target = await this.versions.find(workspaceId, normalized, version);
    if (!target) throw new NotFoundException(`Configuration ${key} has no version ${version}`);
    await handler(auth, workspaceId, normalized, target.content);
  }
}
