import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateBy,
  ValidateIf,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { Field, InputType, ObjectType, registerEnumType } from '@nestjs/graphql';
import { IsStorableText } from '../common';
import { asEnum } from '../graphql';
import { isHttpUrl, MAX_MCP_SERVERS, MCP_SERVER_NAME, MCP_TRANSPORTS, type McpServerConfig, type McpTransport } from './mcp-config';

export const McpTransportEnum = asEnum(MCP_TRANSPORTS);
registerEnumType(McpTransportEnum, { name: 'McpTransport', description: '`stdio` (a program Helix starts) or `http` (streamable HTTP)' });

/**
 * An MCP server as the admin API shows it: environment and header values are never shown (they
 * may be credentials), only their names.
 */
@ObjectType('McpServer', { description: 'An MCP server whose tools the runs may call as `mcp.<name>.<tool>`.' })
export class McpServerType {
  @Field()
  name!: string;

  @Field(() => McpTransportEnum)
  transport!: McpTransport;

  @Field(() => String, { nullable: true })
  command?: string;

  @Field(() => [String])
  args!: string[];

  @Field(() => String, { nullable: true })
  url?: string;

  @Field(() => [String], { description: 'names of the extra environment variables (values are not shown)' })
  envNames!: string[];

  @Field(() => [String], { description: 'names of the extra HTTP headers (values are not shown)' })
  headerNames!: string[];
}

export function mcpServerView(server: McpServerConfig): McpServerType {
  return {
    name: server.name,
    transport: server.transport,
    command: server.command,
    args: server.args ?? [],
    url: server.url,
    envNames: Object.keys(server.env ?? {}),
    headerNames: Object.keys(server.headers ?? {}),
  };
}

/** The stored form of an input (GraphQL carries maps as `{name, value}` lists). */
export function mcpServerConfig(input: McpServerInput): McpServerConfig {
  const map = (list?: McpNamedValueInput[]) => (list?.length ? Object.fromEntries(list.map((e) => [e.name, e.value])) : undefined);
  const server: McpServerConfig = { name: input.name, transport: input.transport };
  if (input.command !== undefined) server.command = input.command;
  if (input.args?.length) server.args = input.args;
  const env = map(input.env);
  if (env) server.env = env;
  if (input.url !== undefined) server.url = input.url;
  const headers = map(input.headers);
  if (headers) server.headers = headers;
  return server;
}

@InputType('McpNamedValueInput', { description: 'An environment variable or header; the value may be `secret:<NAME>` (a workspace secret).' })
export class McpNamedValueInput {
  @Field()
  @IsString()
  @Matches(/^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/, { message: 'name must be a variable or header name (letters, digits, `_`, `.`, `-`)' })
  name!: string;

  @Field()
  @IsString()
  @IsStorableText()
  @MaxLength(4000)
  value!: string;
}

@InputType('McpServerInput')
export class McpServerInput {
  @Field()
  @IsString()
  @Matches(MCP_SERVER_NAME, { message: 'name must be 1 to 32 lowercase letters, digits, `_` or `-`' })
  name!: string;

  @Field(() => McpTransportEnum)
  @IsIn(MCP_TRANSPORTS)
  transport!: McpTransport;

  @Field(() => String, { nullable: true, description: 'stdio: the program to start (required)' })
  @ValidateIf((o: McpServerInput) => o.transport === 'stdio' || o.command !== undefined)
  @IsString({ message: 'command is required for a stdio server' })
  @IsNotEmpty({ message: 'command is required for a stdio server' })
  @IsStorableText()
  @MaxLength(1000)
  command?: string;

  @Field(() => [String], { nullable: true })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @IsString({ each: true })
  @IsStorableText({ each: true })
  args?: string[];

  @Field(() => [McpNamedValueInput], { nullable: true, description: 'stdio: extra environment variables' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => McpNamedValueInput)
  env?: McpNamedValueInput[];

  @Field(() => String, { nullable: true, description: 'http: the endpoint, http(s) (required)' })
  @ValidateIf((o: McpServerInput) => o.transport === 'http' || o.url !== undefined)
  @ValidateBy({ name: 'isHttpUrl', validator: { validate: isHttpUrl, defaultMessage: () => 'url must be an http(s) URL (required for an http server)' } })
  @MaxLength(2000)
  url?: string;

  @Field(() => [McpNamedValueInput], { nullable: true, description: 'http: extra request headers' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => McpNamedValueInput)
  headers?: McpNamedValueInput[];
}

/** No two servers of a list share a name (their tools would collide). */
export function UniqueMcpNames(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'uniqueMcpNames',
      validator: {
        validate: (value: unknown) =>
          !Array.isArray(value) || new Set(value.map((s: { name?: unknown }) => s?.name)).size === value.length,
        defaultMessage: () => 'mcpServers must have distinct names',
      },
    },
    options,
  );
}

export const MCP_SERVERS_MAX = MAX_MCP_SERVERS;
