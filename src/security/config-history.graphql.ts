import { Field, ID, Int, ObjectType } from '@nestjs/graphql';
import { Connection, JsonScalar } from '../graphql';

@ObjectType('ConfigVersion', { description: 'One version of a piece of configuration; content null: it was deleted.' })
export class ConfigVersionType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID, { nullable: true, description: 'null: instance-wide configuration' })
  workspaceId!: string | null;

  @Field()
  key!: string;

  @Field(() => Int)
  version!: number;

  @Field(() => JsonScalar, { nullable: true })
  content!: unknown;

  @Field(() => String, { nullable: true, description: '`bootstrap` or the id of the API key that made it' })
  author!: string | null;

  @Field()
  createdAt!: Date;
}

@ObjectType('AuditEntry', { description: 'An admin action: who, what, before and after (secret values are never recorded).' })
export class AuditEntryType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID, { nullable: true })
  workspaceId!: string | null;

  @Field()
  actor!: string;

  @Field()
  action!: string;

  @Field()
  target!: string;

  @Field(() => JsonScalar, { nullable: true })
  before!: unknown;

  @Field(() => JsonScalar, { nullable: true })
  after!: unknown;

  @Field()
  at!: Date;
}

export const AuditConnection = Connection(AuditEntryType, 'AuditEntry');
