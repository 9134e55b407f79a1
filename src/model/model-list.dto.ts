import { ApiProperty } from '@nestjs/swagger';

/** A model a member may choose: what a model picker shows, nothing of how it is called. */
export class ModelListItem {
  @ApiProperty({ example: 'openai' }) provider!: string;
  @ApiProperty({ example: 'gpt-4o-mini' }) modelId!: string;
  @ApiProperty({ description: 'its name for people: the label of its model config, else `provider:modelId`', example: 'GPT-4o mini' })
  label!: string;
  @ApiProperty({ type: 'integer', description: 'tokens a prompt and its answer fit in (its model config, else the catalog)', example: 128000 })
  contextWindow!: number;
  @ApiProperty({ description: 'takes images (from the catalog; false for a model it does not know)' })
  vision!: boolean;
}

export class ModelListResponse {
  @ApiProperty({
    type: () => [ModelListItem],
    description:
      "the workspace's default model first (what a run that names none uses), then its configured models by provider and id; " +
      'the offline model where it is what runs',
  })
  items!: ModelListItem[];
}
