import type { PrismaService } from '../../src/database/prisma.service';
import type { SqlClient } from '../../src/database/sql-client';
import { openTestDatabase } from './test-prisma';

/** A migrated test database with one conversation, for specs of the event log's parts. */
export interface RunEventsDatabase {
  prisma: PrismaService;
  sql: SqlClient;
  /** creates a run (run_events rows need one) and returns its id */
  newRun(): Promise<string>;
  close(): Promise<void>;
}

export async function openRunEventsDatabase(): Promise<RunEventsDatabase> {
  const { prisma, sql, close } = await openTestDatabase();
  await prisma.workspace.create({ data: { id: 'w', name: 'w' } });
  await prisma.conversation.create({ data: { id: 'c', workspaceId: 'w', title: 't' } });
  let runs = 0;
  return {
    prisma,
    sql,
    close,
    newRun: async () => {
      const id = `run_${++runs}`;
      await prisma.run.create({ data: { id, conversationId: 'c', workspaceId: 'w', goal: 'g', model: {}, maxSteps: 3 } });
      return id;
    },
  };
}

/** Resolves once `condition()` holds; fails after `timeoutMs`. */
export async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  for (const end = Date.now() + timeoutMs; !condition(); await new Promise((resolve) => setTimeout(resolve, 2))) {
    if (Date.now() > end) throw new Error('condition not met in time');
  }
}
