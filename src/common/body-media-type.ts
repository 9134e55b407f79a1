import { type CallHandler, type ExecutionContext, HttpException, HttpStatus, type NestInterceptor } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { DECORATORS } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { API_PREFIX } from './api-prefix';
import { say } from './i18n/catalogue';

/** What a route of the REST API takes when it declares nothing else. */
const JSON_ONLY = ['application/json'];

/**
 * Answers 415 (`unsupported_media_type`) to a REST call whose body is not of a type its route
 * takes: without it a `text/plain` or form body went unparsed and reached the DTO as `{}`, so a
 * POST with a wrong header silently created an empty conversation. The types a route takes are
 * the ones its OpenAPI document declares (`@ApiConsumes`, else JSON), so the document and the
 * server cannot disagree. A request without a body (a bare POST …/cancel) passes whatever its
 * Content-Type says. Global interceptors run before a route's own, so this is checked before a
 * multipart upload is read.
 */
export class BodyMediaTypeInterceptor implements NestInterceptor {
  constructor(private readonly reflector: Reflector) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const request = context.switchToHttp().getRequest<Request>();
    if (!request.path.startsWith(`/${API_PREFIX}/`)) return next.handle();
    const declared = this.reflector.getAllAndOverride<string[] | undefined>(DECORATORS.API_CONSUMES, [context.getHandler(), context.getClass()]);
    const accepted = declared && declared.length > 0 ? declared : JSON_ONLY;
    // null: the request has no body; false: a body of another type (or none named). type-is
    // counts `Content-Length: 0` as a body, which a bare POST from many clients carries.
    if (request.headers['content-length'] !== '0' && request.is(accepted) === false) {
      const type = request.headers['content-type'] ?? '';
      throw new HttpException(
        { message: say('http.body_media_type', { accepted: accepted.join(', '), type: type || '(none)' }), code: 'unsupported_media_type' },
        HttpStatus.UNSUPPORTED_MEDIA_TYPE,
      );
    }
    return next.handle();
  }
}
