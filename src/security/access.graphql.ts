import { Field, ID, ObjectType, registerEnumType } from '@nestjs/graphql';

export const RoleEnum = { admin: 'admin', member: 'member' } as const;
registerEnumType(RoleEnum, { name: 'Role', description: '`admin`: the admin API and the chat API; `member`: the chat API only' });

@ObjectType('ApiKey', { description: 'An API key; the key itself is shown once, when it is created.' })
export class ApiKeyType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID)
  workspaceId!: string;

  @Field()
  name!: string;

  @Field({ description: 'the first characters of the key, to recognise it' })
  prefix!: string;

  @Field(() => RoleEnum)
  role!: keyof typeof RoleEnum;

  @Field()
  createdAt!: Date;

  @Field(() => Date, { nullable: true })
  lastUsedAt!: Date | null;

  @Field(() => Date, { nullable: true })
  expiresAt!: Date | null;

  @Field(() => Date, { nullable: true })
  revokedAt!: Date | null;
}

@ObjectType('CreatedApiKey')
export class CreatedApiKeyType {
  @Field({ description: 'the key: shown this once, stored only as a hash' })
  key!: string;

  @Field(() => ApiKeyType)
  apiKey!: ApiKeyType;
}

@ObjectType('Secret', { description: 'A stored secret: its id and name, never its value.' })
export class SecretType {
  @Field(() => ID)
  id!: string;

  @Field(() => ID, { nullable: true, description: 'null: a global secret, usable by every workspace' })
  workspaceId!: string | null;

  @Field()
  name!: string;

  @Field()
  createdAt!: Date;

  @Field()
  updatedAt!: Date;
}
