import { Module } from '@nestjs/common';
import { ConversationModule } from '../conversation';
import { ModelModule } from '../model';
import { RuntimeModule } from '../runtime';
import { WorkspaceModule } from '../workspace';
import { TrajectoryController } from './trajectory.controller';
import { TrajectoryExport } from './trajectory-export.service';
import { TrajectoryImport } from './trajectory-import.service';

/**
 * Exports and imports of trajectories (docs/EXPORT.md). It reads across the conversation, the
 * runtime and observe (global: its TraceReader), each through its own services, so it sits
 * above all of them and owns no table.
 */
@Module({
  imports: [ConversationModule, ModelModule, RuntimeModule, WorkspaceModule],
  controllers: [TrajectoryController],
  providers: [TrajectoryExport, TrajectoryImport],
})
export class TrajectoryModule {}
