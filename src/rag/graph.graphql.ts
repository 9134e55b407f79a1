import { Field, ID, Int, ObjectType } from '@nestjs/graphql';

@ObjectType('GraphEntity', { description: 'An entity of a knowledge base’s knowledge graph.' })
export class GraphEntityType {
  @Field(() => ID) id!: string;
  @Field(() => ID) knowledgeBaseId!: string;
  @Field() name!: string;
  @Field({ description: 'as extraction typed it (`person`, `organization`…; offline: `name` or `term`)' }) type!: string;
  @Field(() => Int, { description: 'how many chunks mention it' }) mentions!: number;
}

@ObjectType('GraphRelation', { description: 'A relation between two entities, over the chunks that state it.' })
export class GraphRelationType {
  @Field(() => ID, { description: 'the source entity' }) source!: string;
  @Field(() => ID, { description: 'the target entity' }) target!: string;
  @Field({ description: 'e.g. `works_for`; `related_to` for co-occurrence' }) label!: string;
  @Field(() => Int, { description: 'how many chunks state it' }) weight!: number;
  @Field(() => [ID], { description: 'some chunks that state it' }) chunkIds!: string[];
  @Field(() => [ID], { description: 'their documents' }) documentIds!: string[];
}

@ObjectType('KnowledgeGraph', { description: 'A view of a knowledge base’s graph: entities and the relations around them.' })
export class KnowledgeGraphType {
  @Field(() => ID) knowledgeBaseId!: string;
  @Field({ description: 'whether the knowledge base extracts a graph at ingestion' }) enabled!: boolean;
  @Field(() => Int, { description: 'entities in the whole graph' }) entityCount!: number;
  @Field(() => Int, { description: 'relations in the whole graph' }) relationCount!: number;
  @Field(() => [GraphEntityType]) entities!: GraphEntityType[];
  @Field(() => [GraphRelationType]) relations!: GraphRelationType[];
}
