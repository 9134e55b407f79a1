import {
  ArgumentsHost,
  BadRequestException,
  Catch,
  ExceptionFilter,
  HttpException,
  HttpStatus,
  Logger,
  ValidationError,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { redactUrl } from './redact-url';
import { databaseErrorAnswer } from './database-errors';
import { errorCode } from './error-codes';
import { BodyRejected } from './json-body';
import { LimitExceeded } from './limit-exceeded';
import { isOpenAiPath, openAiErrorBody } from './openai-errors';
import { requestId } from './request-id';
import { say, translate } from './i18n/catalogue';
import { type Language, requestLanguage } from './i18n/language';

/** Flattens class-validator errors into one readable line naming each field (`settings.maxSteps …`). */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string[] {
  const lines: string[] = [];
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    for (const message of Object.values(error.constraints ?? {})) {
      lines.push(message.startsWith(error.property) ? path + message.slice(error.property.length) : `${path} ${message}`);
    }
    lines.push(...describeValidationErrors(error.children ?? [], path));
  }
  return lines;
}

/** The path of each failed field (`messages.0.role`) with the check it failed (`whitelistValidation` for an unknown one). */
export function validationProblems(errors: ValidationError[], parent = ''): { path: string; constraint: string }[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    return [...Object.keys(error.constraints ?? {}).map((constraint) => ({ path, constraint })), ...validationProblems(error.children ?? [], path)];
  });
}

/** A 400 from request validation: its lines kept, so each is translated on its own (joined, no template could match). */
export class ValidationFailed extends BadRequestException {
  constructor(
    readonly lines: readonly string[],
    /** the failed fields, for error shapes that name one (the OpenAI-compatible API's `param`) */
    readonly problems: readonly { path: string; constraint: string }[] = [],
  ) {
    super(lines.join('; '));
  }
}

export function validationExceptionFactory(errors: ValidationError[]): BadRequestException {
  return new ValidationFailed(describeValidationErrors(errors), validationProblems(errors));
}

/** The message in the client's language (the log keeps the English one). */
function localized(message: string, exception: unknown, language: Language): string {
  if (language === 'en') return message;
  if (exception instanceof ValidationFailed) return exception.lines.map((line) => translate(line, language)).join('; ');
  return translate(message, language);
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/**
 * Every error leaves as `{statusCode, error, message, code}` with `message` a string and `code` a
 * stable name for programs (error-codes.ts). A database error
 * a client's input caused is a 400/404/409 with a message of Helix's own (database-errors.ts);
 * unexpected errors are logged with their stack and answered with a generic 500: no internals leak.
 */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpError');

  catch(exception: unknown, host: ArgumentsHost): unknown {
    // GraphQL answers errors in its own response body (formatGraphQLError): hand the error back
    if (host.getType<string>() === 'graphql') return exception;
    const response = host.switchToHttp().getResponse<Response>();
    let status = HttpStatus.INTERNAL_SERVER_ERROR;
    let message = say('http.internal');
    // a specific machine-readable `code` some errors carry (`attachment_unsupported`); others get one by status
    let code: string | undefined;
    // the request parameter an error names (OpenAiError), for the OpenAI-compatible API's shape
    let param: string | undefined;
    const parserError = bodyParserError(exception);
    const databaseError = parserError || exception instanceof HttpException ? undefined : databaseErrorAnswer(exception);
    if (parserError) {
      status = parserError.status;
      message = parserMessage(parserError);
    } else if (databaseError) {
      ({ status, message } = databaseError);
      this.logger.warn(`Answered ${status} for a database error: ${exception instanceof Error ? exception.message : String(exception)}`);
    } else if (exception instanceof HttpException) {
      status = exception.getStatus();
      if (exception instanceof LimitExceeded && exception.retryAfterSeconds !== undefined && !response.headersSent) {
        response.setHeader('Retry-After', String(exception.retryAfterSeconds));
      }
      const body = exception.getResponse();
      const raw = typeof body === 'string' ? body : (body as { message?: unknown }).message;
      message = Array.isArray(raw) ? raw.join('; ') : typeof raw === 'string' ? raw : exception.message;
      const coded = typeof body === 'string' ? undefined : (body as { code?: unknown }).code;
      if (typeof coded === 'string') code = coded;
      const named = typeof body === 'string' ? undefined : (body as { param?: unknown }).param;
      if (typeof named === 'string') param = named;
    } else {
      this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    }
    if (response.headersSent) {
      response.end();
      return;
    }
    const request = host.switchToHttp().getRequest<Request>();
    if (!response.getHeader('X-Request-Id')) {
      // a route the access log skips (event streams): its errors still name their request, and are logged
      const id = requestId(request);
      response.setHeader('X-Request-Id', id);
      this.logger.log(`${request.method} ${redactUrl(request.originalUrl)} ${status} (request ${id}): ${message}`);
    }
    // `error` is the status's reason phrase, a code like `statusCode`: only `message` is translated
    const shown = localized(message, exception, requestLanguage(request));
    // the OpenAI-compatible API answers in OpenAI's error shape, so that its SDKs' error classes work
    if (isOpenAiPath(request.path)) {
      const problems = exception instanceof ValidationFailed ? exception.problems : undefined;
      response.status(status).json(openAiErrorBody(status, shown, { code, param, problems }));
      return;
    }
    const stable = errorCode(status, { own: code, bodyErrorType: parserError?.type, validation: exception instanceof ValidationFailed });
    response.status(status).json({ statusCode: status, error: REASONS[status] ?? 'Error', message: shown, code: stable });
  }
}

interface BodyParserError {
  status: number;
  type: string;
  message: string;
  /** entity.too.large: the limit in bytes */
  limit?: number;
}

/** body-parser's own messages repeat what it read; these say what is wrong instead. */
function parserMessage(error: BodyParserError): string {
  // a check of json-body.ts (body-parser strips its type when the JSON reviver throws it)
  if (error instanceof BodyRejected) return error.message;
  if (error.type === 'entity.parse.failed') return say('http.body_not_json');
  if (error.type === 'entity.too.large') {
    return typeof error.limit === 'number' ? say('http.body_too_large_limit', { limit: error.limit }) : say('http.body_too_large');
  }
  return error.message;
}

/** body-parser errors arrive raw or wrapped by Nest's express adapter (as the exception's cause). */
function bodyParserError(exception: unknown): BodyParserError | undefined {
  for (const candidate of [exception, (exception as { cause?: unknown } | null)?.cause]) {
    const e = candidate as Partial<BodyParserError> | null | undefined;
    if (e && typeof e.type === 'string' && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
      return e as BodyParserError;
    }
  }
  return undefined;
}
