import { Injectable } from '@nestjs/common';
import { SqlClient } from '../database/sql-client';

/** Statements on the `workspaces` table (their settings are read with a conversation). */
@Injectable()
export class WorkspaceRepository {
  constructor(private readonly sql: SqlClient) {}

  /** Creates the workspace unless it exists (its name and settings are then left alone). */
  async ensure(id: string, name: string): Promise<void> {
    await this.sql.$executeRaw`
      INSERT INTO workspaces (id, name, updated_at) VALUES (${id}, ${name}, now()) ON CONFLICT (id) DO NOTHING`;
  }
}
