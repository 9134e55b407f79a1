import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
  ValidateBy,
  ValidationError,
} from 'class-validator';
import ipaddr from 'ipaddr.js';

const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : value;
const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/** An integer variable within [min, max]; the message names the variable and the range. */
function IntBetween(min: number, max: number): PropertyDecorator {
  return (target: object, property: string | symbol) => {
    const message = `${String(property)} must be an integer between ${min} and ${max}`;
    Transform(toInt)(target, property);
    IsInt({ message })(target, property);
    Min(min, { message })(target, property);
    Max(max, { message })(target, property);
  };
}

/**
 * The environment Helix reads, validated once at start-up (README.md "Configuration").
 * Property names are the variable names so an error names exactly what the operator must fix.
 */
export class AppConfig {
  @IsString()
  HOST = '127.0.0.1';

  @Transform(toInt)
  @IsInt({ message: 'PORT must be an integer between 0 and 65535' })
  @Min(0, { message: 'PORT must be an integer between 0 and 65535' })
  @Max(65535, { message: 'PORT must be an integer between 0 and 65535' })
  PORT = 8080;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, {
    message: 'DATABASE_URL must be a postgresql:// URL (leave it unset for the embedded database)',
  })
  DATABASE_URL?: string;

  @IsString()
  @MinLength(1)
  HELIX_DATA_DIR = './data';

  /**
   * The embedded database's buffer cache in MB (PostgreSQL's shared_buffers). It is resident from
   * start-up, so it sets most of an idle instance's memory; PGlite's own default is 128 MB.
   * Raise it for knowledge bases whose vector index is larger (README "Configuration").
   */
  @IntBetween(1, 4096)
  HELIX_EMBEDDED_SHARED_BUFFERS_MB = 32;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  OPENAI_API_KEY?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'OPENAI_BASE_URL must be an http(s) URL' })
  OPENAI_BASE_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[a-z0-9_-]+:\S+$/i, {
    message: 'HELIX_DEFAULT_MODEL must look like provider:modelId, e.g. openai:gpt-4o-mini',
  })
  HELIX_DEFAULT_MODEL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(['0', '1', 'true', 'false'], { message: 'HELIX_FAKE_MODEL must be 1 or 0' })
  HELIX_FAKE_MODEL?: string;

  /** `1`: GET /v1/models also lists the configured models (`provider:modelId`), usable as `model` with the default agent */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(['0', '1', 'true', 'false'], { message: 'HELIX_OPENAI_LIST_MODELS must be 1 or 0' })
  HELIX_OPENAI_LIST_MODELS?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  @MinLength(8, { message: 'HELIX_API_TOKEN must be at least 8 characters' })
  HELIX_API_TOKEN?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, {
    message: 'HELIX_MASTER_KEY must be 32 bytes encoded as base64 (44 characters)',
  })
  HELIX_MASTER_KEY?: string;

  /** the master key being replaced: secrets it encrypted still decrypt until `npm run secrets:rotate` */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^[A-Za-z0-9+/]{43}=$/, {
    message: 'HELIX_MASTER_KEY_PREVIOUS must be 32 bytes encoded as base64 (44 characters)',
  })
  HELIX_MASTER_KEY_PREVIOUS?: string;

  /** how long a run's stream token (`?token=` on its events) stays valid */
  @Transform(toInt)
  @IsInt({ message: 'HELIX_STREAM_TOKEN_TTL_SECONDS must be an integer between 10 and 86400' })
  @Min(10, { message: 'HELIX_STREAM_TOKEN_TTL_SECONDS must be an integer between 10 and 86400' })
  @Max(86400, { message: 'HELIX_STREAM_TOKEN_TTL_SECONDS must be an integer between 10 and 86400' })
  HELIX_STREAM_TOKEN_TTL_SECONDS = 3600;

  /** comma-separated exact origins (`https://chat.example.com`) a browser may call the API from */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^\s*https?:\/\/[^\s,/]+\s*(,\s*https?:\/\/[^\s,/]+\s*)*$/, {
    message: 'HELIX_CORS_ORIGINS must be a comma-separated list of origins such as https://chat.example.com (scheme, host and port; no path)',
  })
  HELIX_CORS_ORIGINS?: string;

  /** the built web chat app served at `/` (its index.html and assets/); unset: this installation's web/dist */
  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  HELIX_WEB_DIR?: string;

  @Transform(toInt)
  @IsInt({ message: 'HELIX_MAX_STEPS must be an integer between 1 and 1000' })
  @Min(1, { message: 'HELIX_MAX_STEPS must be an integer between 1 and 1000' })
  @Max(1000, { message: 'HELIX_MAX_STEPS must be an integer between 1 and 1000' })
  HELIX_MAX_STEPS = 12;

  @Transform(toInt)
  @IsInt({ message: 'HELIX_MAX_CONCURRENT_RUNS must be an integer between 1 and 10000' })
  @Min(1, { message: 'HELIX_MAX_CONCURRENT_RUNS must be an integer between 1 and 10000' })
  @Max(10000, { message: 'HELIX_MAX_CONCURRENT_RUNS must be an integer between 1 and 10000' })
  HELIX_MAX_CONCURRENT_RUNS = 32;

  /** the longest a dead instance's runs wait before another instance resumes them (run-leases.ts) */
  @Transform(toInt)
  @IsInt({ message: 'HELIX_LEASE_MS must be an integer between 1000 and 600000' })
  @Min(1000, { message: 'HELIX_LEASE_MS must be an integer between 1000 and 600000' })
  @Max(600_000, { message: 'HELIX_LEASE_MS must be an integer between 1000 and 600000' })
  HELIX_LEASE_MS = 30_000;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL?: string;

  // OpenTelemetry (docs/OBSERVE.md): traces are exported over OTLP/HTTP when an endpoint is set

  /** the collector's base URL; traces go to `<it>/v1/traces` */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http:// or https:// URL' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  /** the traces endpoint itself (takes precedence over OTEL_EXPORTER_OTLP_ENDPOINT) */
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http:// or https:// URL' })
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;

  /** `service.name` of the exported spans */
  @IsString()
  @MinLength(1, { message: 'OTEL_SERVICE_NAME must not be empty' })
  OTEL_SERVICE_NAME = 'helix';

  /** `true` turns the export off whatever the endpoint (the OpenTelemetry convention) */
  @Transform(({ value }: { value: unknown }) => value === true || value === 'true')
  @IsBoolean()
  OTEL_SDK_DISABLED = false;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  @MinLength(8, { message: 'HELIX_METRICS_TOKEN must be at least 8 characters' })
  HELIX_METRICS_TOKEN?: string;

  @Transform(toInt)
  @IsInt({ message: 'HELIX_TRACE_RETENTION_DAYS must be an integer between 1 and 3650' })
  @Min(1, { message: 'HELIX_TRACE_RETENTION_DAYS must be an integer between 1 and 3650' })
  @Max(3650, { message: 'HELIX_TRACE_RETENTION_DAYS must be an integer between 1 and 3650' })
  HELIX_TRACE_RETENTION_DAYS = 7;

  /** how long one code_exec call may run JavaScript before it is stopped */
  @Transform(toInt)
  @IsInt({ message: 'HELIX_CODE_EXEC_TIMEOUT_MS must be an integer between 10 and 300000' })
  @Min(10, { message: 'HELIX_CODE_EXEC_TIMEOUT_MS must be an integer between 10 and 300000' })
  @Max(300000, { message: 'HELIX_CODE_EXEC_TIMEOUT_MS must be an integer between 10 and 300000' })
  HELIX_CODE_EXEC_TIMEOUT_MS = 5000;

  /** the most bytes the files of one conversation's working directory may hold (file and shell tools) */
  @IntBetween(1024, 1024 * 1024 * 1024)
  HELIX_WORKSPACE_QUOTA_BYTES = 10 * 1024 * 1024;

  /** how long one `shell` call may run before its worker is terminated */
  @IntBetween(100, 300_000)
  HELIX_SHELL_TIMEOUT_MS = 10_000;

  // Abuse limits (docs/LIMITS.md). A rate or stream limit of 0 turns that limit off.

  /** the largest request body accepted (413 beyond), as body-parser reads it: `512kb`, `1mb` */
  @Matches(/^\d+(\.\d+)?\s*(b|kb|mb)$/i, { message: 'HELIX_BODY_LIMIT must be a size such as 512kb or 1mb' })
  HELIX_BODY_LIMIT = '1mb';

  /** requests per minute for one API key (the bootstrap token counts as one key) */
  @IntBetween(0, 1_000_000)
  HELIX_RATE_LIMIT_PER_KEY = 600;

  /** requests per minute from one client IP without an API key (open mode, stream tokens, refused keys) */
  @IntBetween(0, 1_000_000)
  HELIX_RATE_LIMIT_PER_IP = 300;

  /** failed authentications per minute from one client address before it gets 429s (0: no limit) */
  @IntBetween(0, 1_000_000)
  HELIX_AUTH_FAILURES_PER_MINUTE = 20;

  /**
   * Whether X-Forwarded-For names the client (Express's `trust proxy`): `false`, `true` (any
   * proxy), a hop count, or comma-separated proxy addresses and CIDRs (`loopback`, `linklocal`,
   * `uniquelocal` too). Decides the address of rate limits, failed-auth limits and logs.
   */
  @ValidateBy({
    name: 'trustProxy',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && trustProxySetting(value) !== undefined,
      defaultMessage: () => 'HELIX_TRUST_PROXY must be false, true, a hop count, or comma-separated addresses or CIDRs',
    },
  })
  HELIX_TRUST_PROXY = 'false';

  /** the longest message text accepted (POST /conversations/:id/messages) */
  @IntBetween(1, 10_000_000)
  HELIX_MAX_MESSAGE_CHARS = 100_000;

  /** the largest file attached to a message, in bytes (413 beyond); at most MAX_ATTACHMENTS files per message */
  @IntBetween(1, 100 * 1024 * 1024)
  HELIX_MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;

  /** runs of one workspace that may be live (not finished) at once; a new message beyond is a 429 */
  @IntBetween(1, 1_000_000)
  HELIX_MAX_LIVE_RUNS_PER_WORKSPACE = 20;

  /** runs that may wait for an execution slot in this process; a new message beyond is a 429 */
  @IntBetween(1, 10_000_000)
  HELIX_RUN_QUEUE_LIMIT = 1_000;

  @IntBetween(1, 100)
  HELIX_GRAPHQL_MAX_DEPTH = 10;

  @IntBetween(1, 10_000_000)
  HELIX_GRAPHQL_MAX_COMPLEXITY = 5_000;

  /** event streams one API key (or, without one, one client IP) may hold open at once */
  @IntBetween(0, 1_000_000)
  HELIX_MAX_SSE_PER_KEY = 100;

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL = 'info';

  /** HELIX_CORS_ORIGINS as a list (empty: no browser origin is allowed) */
  get corsOrigins(): string[] {
    return (this.HELIX_CORS_ORIGINS ?? '').split(',').map((origin) => origin.trim()).filter(Boolean);
  }

  get openAiListsModels(): boolean {
    return this.HELIX_OPENAI_LIST_MODELS === '1' || this.HELIX_OPENAI_LIST_MODELS === 'true';
  }

  get fakeModel(): boolean {
    return this.HELIX_FAKE_MODEL === '1' || this.HELIX_FAKE_MODEL === 'true';
  }
}

export class ConfigError extends Error {}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** HELIX_TRUST_PROXY as Express's `trust proxy` takes it; undefined when it is none of its forms. */
export function trustProxySetting(value: string): boolean | number | string[] | undefined {
  const text = value.trim().toLowerCase();
  if (text === '' || text === 'false' || text === '0') return false;
  if (text === 'true') return true;
  if (/^\d{1,3}$/.test(text)) return Number(text);
  const entries = text.split(',').map((entry) => entry.trim());
  const valid = (entry: string) => PROXY_NAMES.has(entry) || ipaddr.isValid(entry) || isCidr(entry);
  return entries.every(valid) ? entries : undefined;
}

function isCidr(entry: string): boolean {
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

function describe(errors: ValidationError[]): string {
  const first = errors[0];
  const message = Object.values(first.constraints ?? {})[0] ?? 'is invalid';
  const value = JSON.stringify(first.value);
  return message.startsWith(first.property)
    ? `${message} (got ${value})`
    : `${first.property} ${message} (got ${value})`;
}

/** Validates the environment; throws ConfigError with one line naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const known = Object.keys(new AppConfig()).concat([
    'DATABASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL', 'HELIX_DEFAULT_MODEL', 'HELIX_FAKE_MODEL', 'HELIX_OPENAI_LIST_MODELS',
    'HELIX_API_TOKEN', 'HELIX_MASTER_KEY', 'REDIS_URL', 'HELIX_METRICS_TOKEN',
    'HELIX_MASTER_KEY_PREVIOUS', 'HELIX_CORS_ORIGINS', 'HELIX_WEB_DIR',
    'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  ]);
  const picked: Record<string, string> = {};
  for (const key of known) {
    const value = env[key];
    if (value !== undefined) picked[key] = value;
  }
  const config = plainToInstance(AppConfig, picked);
  const errors = validateSync(config, { skipMissingProperties: false });
  if (errors.length) throw new ConfigError(`Invalid configuration: ${describe(errors)}`);
  return config;
}
