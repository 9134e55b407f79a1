import type { OpenAPIObject, ReferenceObject, ResponseObject, SchemaObject } from '@nestjs/swagger';

/** What the document needs from modules that common does not import (the run event schemas, from runtime). */
export interface DocumentExtras {
  schemas: Record<string, SchemaObject>;
}

/**
 * An operation's id when its `@ApiOperation` names none: the method and the controller's
 * resource (`listDocuments` + `KnowledgeBase` → `listDocumentsKnowledgeBase`), camelCase, so a
 * route added without an explicit id still gets a usable, unique name in generated clients
 * (Nest's default, `KnowledgeBaseController_listDocuments`, becomes a method name nobody types).
 */
export function operationIdOf(controllerKey: string, methodKey: string): string {
  const resource = controllerKey.replace(/Controller$/, '');
  const words = `${methodKey} ${resource}`.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((word, i) => (i === 0 ? word.charAt(0).toLowerCase() : word.charAt(0).toUpperCase()) + word.slice(1)).join('');
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

/**
 * Marks the multipart variant of a body that is JSON or a multipart upload (`@ApiBody` takes one
 * schema for every media type of `@ApiConsumes`): completeDocument gives each media type its own
 * variant, so neither says it takes the other's shape.
 */
const MULTIPART_VARIANT = 'x-multipart';

/** `schema`, marked as the multipart variant of its body (see MULTIPART_VARIANT). */
export function multipartVariant(schema: SchemaObject): SchemaObject {
  return Object.assign({ [MULTIPART_VARIANT]: true }, schema);
}

type BodySchema = SchemaObject | ReferenceObject;

/** The JSON and multipart bodies of a oneOf marked with MULTIPART_VARIANT, each without the mark. */
function splitVariants(schema: BodySchema | undefined): { json: BodySchema; multipart: BodySchema } | undefined {
  const variants = schema && 'oneOf' in schema ? (schema.oneOf ?? []) : [];
  const marked = (variant: BodySchema) => (variant as Record<string, unknown>)[MULTIPART_VARIANT] === true;
  const json = variants.filter((variant) => !marked(variant));
  const multipart = variants.filter(marked).map((variant) => {
    const { [MULTIPART_VARIANT]: _mark, ...rest } = variant as Record<string, unknown>;
    return rest as SchemaObject;
  });
  if (json.length !== 1 || multipart.length !== 1) return undefined;
  return { json: json[0], multipart: multipart[0] };
}

/**
 * What the decorators cannot say, added once the document is built: the schemas of other
 * modules, and the 415 of every route that takes a body (BodyMediaTypeInterceptor answers it on
 * each of them, so each route says so without repeating a decorator).
 */
export function completeDocument(document: OpenAPIObject, extras: DocumentExtras, unsupported: ResponseObject): OpenAPIObject {
  document.components = { ...document.components, schemas: { ...document.components?.schemas, ...extras.schemas } };
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      // Nest leaves public routes (health probes) without `security`; `[]` says "none" explicitly
      operation.security ??= [];
      const body = operation.requestBody;
      if (!body) continue;
      if (!operation.responses['415']) operation.responses['415'] = unsupported;
      if (!('content' in body)) continue;
      const split = splitVariants(body.content['multipart/form-data']?.schema);
      if (split && body.content['application/json']) {
        body.content['application/json'] = { ...body.content['application/json'], schema: split.json };
        body.content['multipart/form-data'] = { ...body.content['multipart/form-data'], schema: split.multipart };
      }
    }
  }
  return document;
}
