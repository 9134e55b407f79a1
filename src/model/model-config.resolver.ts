import { Args, ID, Mutation, Query, Resolver } from '@nestjs/graphql';
import { Auth, type AuthContext } from '../security';
import { ModelConfigAdmin } from './model-config-admin.service';
import { ModelConfigInput, ModelConfigType, ModelInfoType } from './model-config.graphql';

/** Admin GraphQL: model configs (versioned as `model-config:<provider>/<modelId>`) and the models runs can use. */
@Resolver(() => ModelConfigType)
export class ModelConfigResolver {
  constructor(private readonly admin: ModelConfigAdmin) {}

  @Query(() => [ModelConfigType], { description: "The model configs that apply in a workspace (the caller's by default): its own and the global ones." })
  modelConfigs(@Auth() auth: AuthContext, @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string): Promise<ModelConfigType[]> {
    return this.admin.list(auth, workspaceId);
  }

  @Query(() => [ModelInfoType], { description: 'The model catalog and the models configured by name, with the workspace’s overrides applied.' })
  models(@Auth() auth: AuthContext, @Args('workspaceId', { type: () => ID, nullable: true }) workspaceId?: string): Promise<ModelInfoType[]> {
    return this.admin.models(auth, workspaceId);
  }

  @Mutation(() => ModelConfigType, {
    description: 'Creates or changes the config of (workspace, provider, modelId): omitted fields stay, null clears one. Takes effect for the next model call.',
  })
  upsertModelConfig(@Auth() auth: AuthContext, @Args('input') input: ModelConfigInput): Promise<ModelConfigType> {
    return this.admin.upsert(auth, input);
  }

  @Mutation(() => ModelConfigType, { description: 'Deletes a model config (versioned; rollbackConfig restores it); returns it as it was.' })
  deleteModelConfig(@Auth() auth: AuthContext, @Args('id', { type: () => ID }) id: string): Promise<ModelConfigType> {
    return this.admin.delete(auth, id);
  }
}
