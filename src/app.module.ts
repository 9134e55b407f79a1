import { DynamicModule, Module } from '@nestjs/common';
import { AppConfig, ConfigModule } from './config';
import { ConversationModule } from './conversation';
import { WorkspaceModule } from './workspace';
import { DatabaseHandle, DatabaseModule } from './database';
import { AdminGraphQLModule } from './graphql';
import { HealthModule } from './health';
import { ObserveModule } from './observe';
import { OpenAiModule } from './openai';
import { RagModule } from './rag';
import { RuntimeModule } from './runtime';
import { LimitsModule, SecurityModule } from './security';
import { ShutdownFirst } from './shutdown-first';
import { TrajectoryModule } from './trajectory';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: DatabaseHandle): DynamicModule {
    return {
      module: AppModule,
      providers: [ShutdownFirst],
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(database),
        SecurityModule,
        // after SecurityModule: its rate-limit guard runs once ApiKeyGuard has named the caller
        LimitsModule,
        ObserveModule,
        HealthModule,
        WorkspaceModule,
        ConversationModule,
        RuntimeModule,
        RagModule,
        OpenAiModule,
        TrajectoryModule,
        AdminGraphQLModule,
      ],
    };
  }
}
