import {
  BadRequestException,
  type CallHandler,
  type ExecutionContext,
  HttpException,
  Injectable,
  type NestInterceptor,
  PayloadTooLargeException,
} from '@nestjs/common';
import { AnyFilesInterceptor } from '@nestjs/platform-express';
import type { Request } from 'express';
import { type ApiBodyOptions, getSchemaPath } from '@nestjs/swagger';
import type { Observable } from 'rxjs';
import { isRecord, multipartVariant, say } from '../../common';
import { AppConfig } from '../../config';
import { type AttachmentUpload, MAX_ATTACHMENTS } from '../../conversation';
import { PostMessageDto } from './run.dto';

/** The part of a multipart upload that multer (memory storage) hands over. */
interface UploadedPart {
  fieldname: string;
  originalname: string;
  mimetype: string;
  size: number;
  buffer: Buffer;
}

type UploadRequest = Request & { files?: UploadedPart[]; attachmentUploads?: AttachmentUpload[] };

/**
 * Fields of PostMessageDto that are not strings: in a multipart body each is sent as JSON text
 * (`modelOverride={"provider":"openai","modelId":"gpt-4o"}`, `temperature=0.2`).
 */
const JSON_FIELDS = new Set(['modelOverride', 'clientTools', 'attachments', 'responseFormat', 'temperature', 'topP', 'maxTokens', 'seed', 'stop']);

/** Keys that would reach the prototype of the object the fields are copied into. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * POST …/messages as multipart/form-data: the files (any field name) in memory, bounded by
 * HELIX_MAX_ATTACHMENT_BYTES and MAX_ATTACHMENTS, the other fields those of the JSON body (the
 * global ValidationPipe then checks them as usual). A JSON body passes untouched.
 */
@Injectable()
export class MessageUploads implements NestInterceptor {
  private readonly multer: NestInterceptor;

  constructor(private readonly config: AppConfig) {
    const Multer = AnyFilesInterceptor({
      // browsers send a file's name as UTF-8 without saying so (busboy would read it as latin1)
      defParamCharset: 'utf8',
      limits: {
        fileSize: config.HELIX_MAX_ATTACHMENT_BYTES,
        files: MAX_ATTACHMENTS,
        fields: 50,
        // a field holds the text (characters of up to 4 bytes) or a JSON value
        fieldSize: Math.max(1024 * 1024, config.HELIX_MAX_MESSAGE_CHARS * 4),
      },
    });
    this.multer = new Multer();
  }

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<UploadRequest>();
    if (!request.is('multipart/form-data')) return next.handle();
    try {
      return await this.multer.intercept(context, {
        handle: () => {
          request.body = formFields(request.body);
          request.attachmentUploads = (request.files ?? []).map((part) => ({ name: part.originalname, bytes: part.buffer, declaredType: part.mimetype }));
          return next.handle();
        },
      });
    } catch (error) {
      throw this.explained(error);
    }
  }

  /** multer's own messages ("File too large") said in Helix's words, naming the limit. */
  private explained(error: unknown): unknown {
    if (!(error instanceof HttpException)) return error;
    const cause = error.cause as { code?: unknown; field?: unknown } | undefined;
    const field = typeof cause?.field === 'string' ? cause.field : 'file';
    if (error instanceof PayloadTooLargeException && cause?.code === 'LIMIT_FILE_SIZE') {
      return new PayloadTooLargeException(say('attachment.upload_too_large', { field, max: this.config.HELIX_MAX_ATTACHMENT_BYTES }));
    }
    if (cause?.code === 'LIMIT_FILE_COUNT') return new BadRequestException(say('attachment.too_many', { max: MAX_ATTACHMENTS }));
    return error;
  }
}

/** The files of a multipart POST …/messages (none for a JSON body). */
export function uploadsOf(request: Request): AttachmentUpload[] {
  return (request as UploadRequest).attachmentUploads ?? [];
}

function formFields(body: unknown): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (!isRecord(body)) return fields;
  for (const [key, value] of Object.entries(body)) {
    if (FORBIDDEN_KEYS.has(key)) throw new BadRequestException(say('http.body_forbidden_key', { key }));
    if (!JSON_FIELDS.has(key) || typeof value !== 'string') {
      fields[key] = value;
      continue;
    }
    try {
      fields[key] = JSON.parse(value) as unknown;
    } catch {
      throw new BadRequestException(say('attachment.form_field_json', { field: key }));
    }
  }
  return fields;
}

/** The route's two bodies in the OpenAPI document. */
export const MESSAGE_BODY: ApiBodyOptions = {
  schema: {
    oneOf: [
      { $ref: getSchemaPath(PostMessageDto) },
      multipartVariant({
        type: 'object',
        description:
          'multipart/form-data: the fields of the JSON body (`text`, `mode`, …; the non-string ones such as `modelOverride`, `clientTools`, ' +
          '`temperature` as JSON text) and up to 10 files, any field name, each at most HELIX_MAX_ATTACHMENT_BYTES',
        required: ['text'],
        properties: {
          text: { type: 'string' },
          mode: { type: 'string', enum: ['react', 'plan', 'direct'] },
          files: { type: 'array', maxItems: MAX_ATTACHMENTS, items: { type: 'string', format: 'binary' } },
        },
      }),
    ],
  },
};
