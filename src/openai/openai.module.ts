import { Module } from '@nestjs/common';
import { ConversationModule } from '../conversation';
import { ModelModule } from '../model';
import { RuntimeModule } from '../runtime';
import { WorkspaceModule } from '../workspace';
import { ChatCompletionController } from './chat/chat.controller';
import { ChatCompletionService } from './chat/chat.service';
import { ChatThreadRepository } from './chat/thread.repository';
import { ModelDirectory } from './model-directory';
import { ModelsController } from './models.controller';
import { RunPoster } from './run-poster';
import { RunSegments } from './run-segment';
import { ResponseRepository } from './responses/response.repository';
import { ResponsesController } from './responses/responses.controller';
import { ResponseService } from './responses/responses.service';

/**
 * The OpenAI-compatible API under `/v1` (docs/OPENAI.md): the workspace's agents as models, chat
 * completions and responses, mapped to Helix's conversations, runs and event log. It owns only
 * the tables that remember which conversation a client's messages continue and its responses.
 */
@Module({
  imports: [ConversationModule, ModelModule, RuntimeModule, WorkspaceModule],
  controllers: [ModelsController, ChatCompletionController, ResponsesController],
  providers: [ModelDirectory, RunSegments, RunPoster, ChatCompletionService, ChatThreadRepository, ResponseService, ResponseRepository],
})
export class OpenAiModule {}
